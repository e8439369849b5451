import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { AuthLimits, AvatarGestures, AvatarMoods, AvatarStates, Plans, type TPlan } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { useSession } from '../../../lib/auth-store';
import { usePublicConfig } from '../../../lib/config';
import { AVATAR_IFRAME_ALLOW } from '../../../lib/embed';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { CodeBlock } from '../components/code-block';

interface Section {
  id: string;
  title: string;
}

const sections: readonly Section[] = [
  { id: 'overview', title: 'What it is' },
  { id: 'getting-started', title: 'Getting started' },
  { id: 'avatar', title: 'Building an avatar' },
  { id: 'knowledge', title: 'Knowledge base' },
  { id: 'functions', title: 'Functions' },
  { id: 'encryption', title: 'Encryption keys' },
  { id: 'agents', title: 'Bring your own agent' },
  { id: 'embed', title: 'Embedding an avatar' },
  { id: 'oauth', title: 'Visitor sign-in (OAuth)' },
  { id: 'account', title: 'Account & billing' },
  { id: 'security', title: 'Signing in & security' },
  { id: 'admins', title: 'For administrators' },
  { id: 'faq', title: 'Troubleshooting' },
];

/** The /docs example: minting an avatar access token with node:crypto (ES256, no dependency). */
function tokenExample(origin: string): string {
  return `import { createPrivateKey, sign } from 'node:crypto';

// The private key shown once when you created the encryption key (keep it in a secret store).
const privateKey = createPrivateKey(process.env.AVATAR_PRIVATE_KEY);

function avatarToken(avatarId, userId, ttlSeconds = 3600) {
  const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = b64({ alg: 'ES256', typ: 'JWT' });
  const payload = b64({ avatarId, userId, exp: Math.floor(Date.now() / 1000) + ttlSeconds });
  const signature = sign('sha256', Buffer.from(\`\${header}.\${payload}\`), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return \`\${header}.\${payload}.\${signature.toString('base64url')}\`;
}

const token = avatarToken(10001, 'customer-42');
console.log(\`${origin}/avatar/10001?token=\${token}\`);`;
}

/** The /docs example: a host page that drives the avatar through its postMessage API. */
function hostPageExample(origin: string): string {
  return `<iframe id="avatar" src="${origin}/avatar/YOUR_AVATAR_ID?hideChatInput=true"
        allow="${AVATAR_IFRAME_ALLOW}" width="480" height="640" style="border:0"></iframe>
<button id="ask">Ask about opening hours</button>
<script>
  const frame = document.getElementById('avatar');
  const avatarOrigin = '${origin}';
  const pending = new Map();
  let nextCallId = 1;

  // Call a method; resolves with its result (trl-method-response).
  function call(method, ...args) {
    const callId = nextCallId++;
    frame.contentWindow.postMessage({ eventName: 'trl-method-call', eventParams: { method, args, callId } }, avatarOrigin);
    return new Promise((resolve, reject) => pending.set(callId, { resolve, reject }));
  }

  window.addEventListener('message', (event) => {
    if (event.origin !== avatarOrigin || event.source !== frame.contentWindow) return;
    const { eventName, eventParams } = event.data || {};
    if (eventName === 'trl-method-response') {
      const waiter = pending.get(eventParams.callId);
      pending.delete(eventParams.callId);
      if (eventParams.status === 'success') waiter?.resolve(eventParams.result);
      else waiter?.reject(new Error(eventParams.error));
    } else if (eventName === 'trl-chat' && !eventParams.sttResponse) {
      console.log('The avatar said:', eventParams.message);
    } else if (eventName === 'auth-fail') {
      console.warn('The avatar could not start:', eventParams.message);
    }
  });

  // Ask for the events you want (only these are posted, and only to your origin).
  frame.addEventListener('load', () => {
    frame.contentWindow.postMessage(
      { eventName: 'registerTrlEvents', eventParams: { events: ['auth-success', 'auth-fail', 'trl-chat', 'speaking-started', 'speaking-ended', 'error'] } },
      avatarOrigin,
    );
  });

  document.getElementById('ask').onclick = () => call('sendMessage', 'What are your opening hours?');
</script>`;
}

const embedMethods: readonly [string, string][] = [
  ['sendMessage(text)', 'Sends text as if the visitor typed it; the avatar answers.'],
  ['sendMessageToAvatar(text)', 'The avatar says this text itself (a greeting, an announcement).'],
  ['setMicEnabled(on) · toggleMic() · isMicEnabled()', 'The microphone, as the visitor’s mic button.'],
  ['setSpeakerEnabled(on) · toggleSpeaker() · isSpeakerEnabled()', 'The avatar’s sound.'],
  ['registerTrlEvents([names])', 'Subscribes to events (also accepted as a message with that eventName).'],
  ['connect() · disconnect() · getState()', 'Starts or ends the conversation; getState() answers the avatar’s state, in the words of the state event.'],
  [
    'setMood(mood, intensity) · playGesture(gesture)',
    `The avatar’s expression: a mood (${AvatarMoods.join(', ')}; intensity 0–1, optional) held until the next one, or a gesture (${AvatarGestures.join(', ')}) played once. Other names are refused. The brain does the same with tags in its answer — <trl-mood id='happy' />, <trl-anim id='nod' /> — which are never spoken, shown or kept in the history.`,
  ],
];

const embedEvents: readonly [string, string][] = [
  ['auth-success / auth-fail', 'The conversation was admitted, or refused with {code, message, failReason}.'],
  ['trl-chat', '{message, sttResponse}: a line of the conversation; sttResponse is true for what the visitor said aloud.'],
  ['mic-update / speaker-update', '{enabled}: the microphone or sound was switched (Trulience posts a bare true/false: read .enabled).'],
  ['mic-access', '{permissionGranted}: the browser gave the microphone, or the visitor refused it.'],
  ['mic-error', "{reason, message}: the microphone cannot be used — reason 'denied' (the visitor blocked it), 'missing' (none connected), 'unavailable' (in use) or 'unsupported' (not https). The page explains it too; typing still works."],
  ['media-connected, websocket-connect / websocket-disconnect', 'The avatar server connection opened or closed ({code, message}).'],
  ['avatar-text', '{utt, delta | text, final}: the answer as it is being written, from when its voice is heard (as the page shows it).'],
  ['speaking-started / speaking-ended', '{utt, interrupted}: the first and the last sample of an answer’s voice are heard.'],
  ['state', `{state}: ${AvatarStates.join(', ')}. It follows what the visitor hears: speaking from the first sample of the voice to the last, thinking while an answer is on its way.`],
  ['error', '{code, message, fatal}: something went wrong; fatal means the conversation ended.'],
];

function priceOf(plan: TPlan): string {
  return plan.priceUsdMonth === null ? 'flexible pricing' : `USD ${plan.priceUsdMonth} / month`;
}

/** /docs: the public guide to the portal. */
export function DocsRoute() {
  useDocumentTitle('Docs');
  const config = usePublicConfig();
  const session = useSession();
  const product = config.productName;
  // Snippets are pasted into other sites: the configured public address, not the one this page was opened at.
  const origin = config.publicUrl ?? window.location.origin;
  const embedSnippet = `<iframe
  src="${origin}/avatar/YOUR_AVATAR_ID"
  title="Talk to our assistant"
  width="480" height="640"
  allow="${AVATAR_IFRAME_ALLOW}"
  style="border: 0; border-radius: 12px"
></iframe>`;

  return (
    <PageContainer>
      <Box sx={{ display: 'grid', gap: { xs: 3, md: 5 }, gridTemplateColumns: { xs: '1fr', md: '220px minmax(0, 1fr)' } }}>
        <Box component="nav" aria-label="On this page" sx={{ display: { xs: 'none', md: 'block' } }}>
          <Box sx={{ position: 'sticky', top: 88 }}>
            <Typography variant="overline" color="text.secondary" sx={{ fontWeight: 700 }}>
              On this page
            </Typography>
            <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0, mt: 1, display: 'grid', gap: 0.75 }}>
              {sections.map((section) => (
                <li key={section.id}>
                  <Link href={`#${section.id}`} color="text.secondary" variant="body2">
                    {section.title}
                  </Link>
                </li>
              ))}
            </Box>
          </Box>
        </Box>

        <Box component="article" sx={{ minWidth: 0, maxWidth: 780, '& section': { scrollMarginTop: 88 } }}>
          <Chip label="Documentation" color="primary" variant="outlined" size="small" sx={{ mb: 1.5, fontWeight: 600 }} />
          <Typography variant="h1" sx={{ mb: 1.5 }}>
            {product} guide
          </Typography>
          <Typography variant="h6" component="p" color="text.secondary" sx={{ fontWeight: 400, mb: 3 }}>
            Build conversational AI avatars, give them knowledge and skills, and put them on your own website in
            minutes.
          </Typography>
          <Box sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap', mb: 5 }}>
            {session ? (
              <Button component={RouterLink} to={paths.home} variant="contained">
                Open the portal
              </Button>
            ) : (
              <Button component={RouterLink} to={paths.login} variant="contained">
                Sign in
              </Button>
            )}
            {!session && config.allowRegistration ? (
              <Button component={RouterLink} to={paths.register} variant="outlined">
                Create an account
              </Button>
            ) : null}
          </Box>

          <DocSection id="overview" title="What it is">
            <P>
              {product} is a portal for creating <strong>digital humans</strong>: animated avatars that listen, think and
              answer out loud. You decide what an avatar looks like, where it stands, how it sounds, what it knows and
              which actions it may take. Visitors talk to it in the browser, by voice or by text, on a page of the portal
              or inside your own site.
            </P>
            <P>The portal has three kinds of users:</P>
            <Bullets
              items={[
                <>
                  <strong>Customers</strong> build avatars, knowledge bases, functions and encryption keys, and see their
                  usage and plan.
                </>,
                <>
                  <strong>Visitors</strong> of your site talk to the avatars you embed. They need no account.
                </>,
                <>
                  <strong>Administrators</strong> watch who is online and which avatar servers are connected, and manage
                  accounts.
                </>,
              ]}
            />
          </DocSection>

          <DocSection id="getting-started" title="Getting started">
            <Steps
              items={[
                {
                  title: 'Sign in',
                  body: (
                    <>
                      Go to the <Link component={RouterLink} to={paths.login}>sign-in page</Link> and enter your e-mail
                      and password.{' '}
                      {config.allowRegistration ? (
                        <>
                          New here? <Link component={RouterLink} to={paths.register}>Register</Link>, then follow the
                          link in the verification e-mail before you sign in.
                        </>
                      ) : (
                        <>Accounts on this portal are created by an administrator: ask yours for an invitation.</>
                      )}{' '}
                      Leave <em>Remember me</em> on to stay signed in on this device; switch it off on a shared
                      computer and the session ends when you close the tab.
                    </>
                  ),
                },
                {
                  title: 'Create an avatar',
                  body: (
                    <>
                      Open <strong>Avatar Creator</strong> and create a new avatar. Give it a name, choose its
                      appearance and environment, then configure its brain: the AI mode, the language model and its
                      instructions, and the voice.
                    </>
                  ),
                },
                {
                  title: 'Talk to it',
                  body: (
                    <>
                      Use <strong>Connect</strong> on the avatar to open it in a new tab and have a conversation. Allow
                      the microphone when the browser asks, or type your messages. Adjust the instructions and try again
                      until it behaves as you want.
                    </>
                  ),
                },
                {
                  title: 'Put it on your site',
                  body: (
                    <>
                      Copy the embed snippet of the avatar into your own page (see{' '}
                      <Link href="#embed">Embedding an avatar</Link>). Every conversation is counted in your billing
                      report.
                    </>
                  ),
                },
              ]}
            />
          </DocSection>

          <DocSection id="avatar" title="Building an avatar">
            <P>An avatar is configured in the Avatar Creator, one area at a time. Changes are saved with the avatar.</P>
            <Definitions
              items={[
                ['Appearance', 'The character itself: its look, its framing and how it moves while it speaks.'],
                ['Environment', 'What is behind the avatar: a scene, a colour or a picture of your own.'],
                [
                  'Brain',
                  <>
                    How the avatar thinks. <em>Simple</em> uses the built-in speech recognition, language model and
                    voice. <em>Composite</em> lets you pick any speech-to-text, language model and text-to-speech
                    provider. <em>Speech to Speech</em> uses a multimodal model that hears and speaks directly.{' '}
                    <em>3rd Party AI</em> connects a conversational AI framework you already run. The instructions (the
                    prompt) describe who the avatar is and how it should answer.
                  </>,
                ],
                ['Voice and language', 'The speech provider and voice, and the language the avatar listens and talks in (US English by default).'],
                ['Knowledge', 'The knowledge-base collections the avatar searches before it answers.'],
                ['Functions', 'The approved functions the avatar may call during a conversation.'],
                ['Encryption', 'The key used to protect data exchanged with your own systems.'],
              ]}
            />
          </DocSection>

          <DocSection id="knowledge" title="Knowledge base">
            <P>
              A knowledge base is a set of <strong>collections</strong>. Link a collection to an avatar and it will look
              up relevant passages while it answers, so it can talk about your products, opening hours or policies
              without you writing them into the prompt.
            </P>
            <Bullets
              items={[
                <>
                  <strong>Text</strong>: paste content directly, with a name and a description.
                </>,
                <>
                  <strong>Url</strong>: add one or more web pages; each is fetched and indexed.
                </>,
                <>
                  <strong>Crawl</strong>: give a website address, pick from up to 20 pages found on it, and add the ones
                  you want.
                </>,
                <>
                  <strong>File</strong>: upload documents (up to 25 MB each). Progress is shown while a file is
                  processed.
                </>,
              ]}
            />
            <P>Deleting a collection also removes it from the avatars it is linked to. Deleting an item cannot be undone.</P>
          </DocSection>

          <DocSection id="functions" title="Functions">
            <P>
              Functions are small <strong>Python</strong> programs an avatar can call in the middle of a conversation:
              look up an order, book an appointment, fetch today&apos;s weather. Start from an empty canvas or a
              template, give the function a file name and write its code.
            </P>
            <P>
              Every new or changed function is <strong>Pending</strong> until a moderator reviews and approves it; only
              approved functions can be linked to avatars. Deleting a function removes it from the avatars that use it.
            </P>
          </DocSection>

          <DocSection id="encryption" title="Encryption keys">
            <P>
              Create an encryption key with a name. The private key is shown <strong>once</strong>, right after
              creation: copy it and keep it somewhere safe, because the portal will not show it again. Default keys are
              provided for you and cannot be deleted. Keys cannot be edited; create a new one instead.
            </P>
            <P>
              Choose the key of an avatar in its advanced settings. The avatar then opens only with an access token: a
              JWT signed <code>ES256</code> with the private key, carrying the claims <code>avatarId</code>,{' '}
              <code>exp</code> (expiry, seconds since 1970) and, if you like, <code>userId</code> (your id for the
              visitor). Mint tokens on your own server — never in the browser — and add them to the avatar&apos;s link as{' '}
              <code>?token=</code>. This Node example needs no package:
            </P>
            <CodeBlock code={tokenExample(origin)} label="Minting an avatar token in Node" />
            <Bullets
              items={[
                <>Keep tokens short-lived (minutes to hours): a token opens the avatar for whoever holds it until it expires.</>,
                <>A token for one avatar does not open another, and a token signed with another key is refused.</>,
                <>The portal signs its own tokens (Connect, preview) with your default key, whose private key never leaves the server.</>,
              ]}
            />
          </DocSection>

          <DocSection id="agents" title="Bring your own agent">
            <P>
              In <strong>None (3rd Party AI)</strong> mode with the engine <strong>Ten</strong> or{' '}
              <strong>Custom STT/LLM/TTS</strong>, the avatar is the face of an agent you run yourself. Give the avatar an
              encryption key of its own; your agent signs a short-lived token with its private key (<code>ES256</code>,{' '}
              <code>aud</code> <code>persona-agent</code>, <code>sub</code> the avatar id, <code>exp</code> at most an hour
              ahead) and keeps a WebSocket open to <code>{origin}/api/agent/ws</code> with{' '}
              <code>Authorization: Bearer &lt;token&gt;</code>.
            </P>
            <Bullets
              items={[
                <>When a visitor opens a session, your agent receives a <code>session</code> offer with an address and a single-use ticket, and joins it.</>,
                <>It receives the visitor&apos;s microphone (16 kHz PCM) and typed messages, and answers with its own audio plus the words to show; the avatar lip-syncs to that audio.</>,
                <>If no agent is connected, the visitor is told so; an agent that connects later gets the visitor&apos;s next message.</>,
                <>
                  The full protocol and an example agent: the{' '}
                  <Link component={RouterLink} to={paths.agentApi}>
                    agent API reference
                  </Link>
                  .
                </>,
              ]}
            />
          </DocSection>

          <DocSection id="embed" title="Embedding an avatar">
            <P>
              Each avatar has its own page at <code>{origin}/avatar/&lt;avatar id&gt;</code>. To show it inside your site,
              place it in an iframe. Replace <code>YOUR_AVATAR_ID</code> with the id shown in the Avatar Creator:
            </P>
            <CodeBlock code={embedSnippet} label="Embed snippet" />
            <Bullets
              items={[
                <>
                  Keep <code>microphone</code> in the <code>allow</code> list, otherwise visitors can only type.
                </>,
                <>The page must be served over HTTPS for browsers to grant the microphone.</>,
                <>
                  Size the frame to your layout (480 × 640 px is a good start); the avatar fills the space it gets, including on
                  phones, with its controls over it. The chat is a panel visitors open with the Chat button; <code>chatOpen=true</code> opens it
                  from the start.
                </>,
                <>
                  URL parameters change the page: <code>autoConnect</code>, <code>hideChatInput</code>,{' '}
                  <code>hideChatHistory</code>, <code>chatOpen</code>, <code>hideFullscreen</code>, <code>micOn</code>, <code>draggable</code>,{' '}
                  <code>useCache</code>, <code>token</code>, <code>showFullscreenAvatar</code> and{' '}
                  <code>registerTrlEvents</code> (the Embed tab lists them). Pages written for Trulience keep working:{' '}
                  <code>connect</code>, <code>hideFS</code>, <code>micOffByDefault</code>, <code>disableMic</code>,{' '}
                  <code>speakerOffByDefault</code>, <code>hideMicButton</code>, <code>hideSpeakerButton</code> and{' '}
                  <code>hideHangUpButton</code> are accepted too, and <code>registerTrlEvents=auth-success,trl-chat,…</code>{' '}
                  in the URL registers those events without any message.
                </>,
                <>
                  To allow only your own sites to show the avatar, list their origins in the avatar&apos;s{' '}
                  <strong>Allowed origins</strong> (Advanced tab); other sites then get a refusal instead of the avatar, and
                  their page an <code>auth-fail</code> event (code <code>origin-not-allowed</code>). The portal&apos;s own
                  preview always works. A page that sends no <code>Referer</code> (<code>referrerpolicy=&quot;no-referrer&quot;</code>)
                  gets the browser&apos;s blocked-frame message instead.
                </>,
              ]}
            />
            <Typography variant="h6" component="h3" sx={{ mt: 3, mb: 1 }}>
              Controlling the avatar from your page
            </Typography>
            <P>
              The avatar page answers messages from the page that embeds it, with the same shape as Trulience&apos;s
              iframe API: send <code>{'{eventName: "trl-method-call", eventParams: {method, args, callId}}'}</code> and get{' '}
              <code>{'{eventName: "trl-method-response", eventParams: {callId, status, result | error}}'}</code> back. Events
              are posted only after you register them (by message, or with <code>registerTrlEvents</code> in the URL), and
              only to your page&apos;s origin. Trulience&apos;s older messages <code>{'{command, message}'}</code> still work:{' '}
              <code>trl-chat</code> / <code>trl-chat-send</code>, <code>trl-avatar-chat</code> /{' '}
              <code>trl-avatar-chat-send</code>, <code>trl-mic-status</code> / <code>trl-mic-set</code>,{' '}
              <code>trl-set-speaker-status</code> / <code>trl-speaker-set</code> and <code>end-call</code>.
            </P>
            <CodeBlock code={hostPageExample(origin)} label="Host page driving the avatar" />
            <DefinitionTable caption="Methods" rows={embedMethods} />
            <DefinitionTable caption="Events" rows={embedEvents} />
          </DocSection>

          <DocSection id="oauth" title="Visitor sign-in (OAuth)">
            <P>
              An avatar can ask its visitors to sign in with an identity service (Google or SmartPension) before it talks.
              Register the portal with the service, then enter its client id, secret and endpoints as an OAuth config:
              open <Link component={RouterLink} to={paths.oauthConfigs}>OAuth configs</Link> (not in the menu) and choose
              Create OAuth Config. <Link component={RouterLink} to={paths.oauthHelp}>OAuth help</Link> explains every
              field and where Google shows its values.
            </P>
          </DocSection>

          <DocSection id="account" title="Account & billing">
            <P>
              The <strong>Account</strong> page shows your customer id, status, plan and since when you have it. The
              billing report adds up, per avatar, the minutes of conversation and the number of calls in a date range
              (the last month by default).
            </P>
            <Box sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr 1fr', sm: 'repeat(4, 1fr)' }, my: 2 }}>
              {Plans.map((plan) => (
                <Paper key={plan.code} variant="outlined" sx={{ p: 2 }}>
                  <Typography sx={{ fontWeight: 700 }}>{plan.name}</Typography>
                  <Typography variant="body2" color="text.secondary">
                    {priceOf(plan)}
                  </Typography>
                </Paper>
              ))}
            </Box>
            <P>
              To change plan, use <strong>Change Subscription</strong> and send a request. An administrator confirms the
              change by e-mail; until then the requested plan is shown as requested.
            </P>
          </DocSection>

          <DocSection id="security" title="Signing in & security">
            <Bullets
              items={[
                <>A session lasts {AuthLimits.sessionHours / 24} days, or until you sign out.</>,
                <>
                  Forgot your password? Use <Link component={RouterLink} to={paths.forgotPassword}>Forgot password</Link>.
                  The e-mailed link works once and for {AuthLimits.resetCodeHours} hour; after the reset, your other
                  sessions are signed out.
                </>,
                <>
                  After {AuthLimits.maxFailedLogins} failed sign-in attempts within {AuthLimits.failedLoginWindowMinutes}{' '}
                  minutes the account is locked for {AuthLimits.lockoutMinutes} minutes.
                </>,
                <>Verification links are valid for {AuthLimits.verificationCodeHours} hours.</>,
              ]}
            />
          </DocSection>

          <DocSection id="admins" title="For administrators">
            <Bullets
              items={[
                <>
                  <strong>Online Users</strong> lists the live conversations with their session ids; open one for its
                  details.
                </>,
                <>
                  <strong>VPS Status</strong> lists the avatar servers connected to the portal. Available servers are
                  green, anything else red; a server that is gone can be removed.
                </>,
                <>
                  Administrators can open a customer&apos;s portal on their behalf to help them; such a session only
                  lasts for the browser tab and shows a banner.
                </>,
              ]}
            />
          </DocSection>

          <DocSection id="faq" title="Troubleshooting">
            <Definitions
              items={[
                ['I did not get the e-mail', 'Check the spam folder, then ask for a new link. Links expire, so always use the latest one.'],
                [
                  '“Sigin In Failed”',
                  'The e-mail or password is wrong, the account is not verified yet, or it was disabled. The panel lists the reason.',
                ],
                ['The avatar cannot hear me', 'Allow the microphone in the browser, and make sure the embedding page uses HTTPS.'],
                ['I was signed out', 'Sessions expire; sign in again. Signing out in one tab signs out the others too.'],
              ]}
            />
          </DocSection>
        </Box>
      </Box>
    </PageContainer>
  );
}

function DocSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Box component="section" id={id} aria-labelledby={`${id}-title`} sx={{ mb: 5 }}>
      <Typography id={`${id}-title`} variant="h3" component="h2" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

function P({ children }: { children: ReactNode }) {
  return <Typography sx={{ mb: 1.5, lineHeight: 1.7 }}>{children}</Typography>;
}

function Bullets({ items }: { items: readonly ReactNode[] }) {
  return (
    <Box component="ul" sx={{ pl: 3, mt: 0, mb: 2, '& li': { mb: 0.75, lineHeight: 1.7 } }}>
      {items.map((item, index) => (
        <li key={index}>{item}</li>
      ))}
    </Box>
  );
}

function Steps({ items }: { items: readonly { title: string; body: ReactNode }[] }) {
  return (
    <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gap: 2 }}>
      {items.map((item, index) => (
        <Paper component="li" key={item.title} variant="outlined" sx={{ p: 2.5, display: 'flex', gap: 2 }}>
          <Box
            aria-hidden
            sx={{
              flex: '0 0 32px',
              height: 32,
              borderRadius: '50%',
              bgcolor: 'primary.main',
              color: 'primary.contrastText',
              display: 'grid',
              placeItems: 'center',
              fontWeight: 700,
            }}
          >
            {index + 1}
          </Box>
          <Box sx={{ minWidth: 0 }}>
            <Typography component="h3" sx={{ fontWeight: 700, mb: 0.5 }}>
              {item.title}
            </Typography>
            <Typography color="text.secondary" sx={{ lineHeight: 1.7 }}>
              {item.body}
            </Typography>
          </Box>
        </Paper>
      ))}
    </Box>
  );
}

function Definitions({ items }: { items: readonly (readonly [string, ReactNode])[] }) {
  return (
    <Box component="dl" sx={{ m: 0, mb: 2, display: 'grid', gap: 1.5 }}>
      {items.map(([term, description]) => (
        <Box key={term}>
          <Typography component="dt" sx={{ fontWeight: 700 }}>
            {term}
          </Typography>
          <Typography component="dd" color="text.secondary" sx={{ m: 0, lineHeight: 1.7 }}>
            {description}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

function DefinitionTable({ caption, rows }: { caption: string; rows: readonly (readonly [string, string])[] }) {
  return (
    <Box component="table" aria-label={caption} sx={{ width: '100%', borderCollapse: 'collapse', mb: 2, fontSize: '0.9rem', '& th, & td': { textAlign: 'left', verticalAlign: 'top', p: 1, borderBottom: 1, borderColor: 'divider' } }}>
      <caption style={{ textAlign: 'left', fontWeight: 700, padding: '8px 0' }}>{caption}</caption>
      <tbody>
        {rows.map(([name, what]) => (
          <tr key={name}>
            <Box component="th" scope="row" sx={{ fontFamily: 'ui-monospace, monospace', fontWeight: 600, width: { sm: '40%' }, overflowWrap: 'anywhere' }}>
              {name}
            </Box>
            <td>{what}</td>
          </tr>
        ))}
      </tbody>
    </Box>
  );
}
