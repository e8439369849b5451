import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Button from '@mui/material/Button';
import FormHelperText from '@mui/material/FormHelperText';
import Tab from '@mui/material/Tab';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { AvatarMessages, Limits } from '@persona/contract';
import { JsonEditor } from '../../../../components/json-editor';
import { showToast } from '../../../../lib/toast';
import { parseJsonObject, prettyJson } from '../../lib/avatar-config';
import { AVATAR_URL_PARAMETERS, embedSnippet, tokenExpiry } from '../../lib/preview';
import { useEditorSession } from './editor-session';
import { copyText } from '../../../../lib/copy-text';

type SubTab = 'iframe' | 'avatar' | 'client';

/** Copies the snippet (the Clipboard API, or the page's fallback) and says so. */
async function copyWithNotice(text: string) {
  try {
    await copyText(text);
    void showToast('Copied to clipboard.', 'success', { autoHideDurationMs: Limits.copyNoticeMs });
  } catch {
    void showToast('Failed to copy.', 'error', { autoHideDurationMs: Limits.copyNoticeMs });
  }
}

export function EmbedTab() {
  const session = useEditorSession();
  const { agent, draft, updateDraft, setJsonInvalid, jsonInvalid, isAvatarSelfHosted, isClientSelfHosted } = session;
  const [subTab, setSubTab] = useState<SubTab>('iframe');
  const [avatarText, setAvatarText] = useState(() => prettyJson(draft.avatarConfig));
  const [clientText, setClientText] = useState(() => prettyJson(draft.clientConfig ?? {}));

  if (!agent?.id) {
    return (
      <Box sx={{ py: 6, textAlign: 'center' }}>
        <Typography variant="h5">First Create Avatar</Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          The embed code exists once the avatar has been created.
        </Typography>
      </Box>
    );
  }

  const onAvatarJson = (text: string) => {
    setAvatarText(text);
    const parsed = parseJsonObject(text);
    setJsonInvalid('avatar', parsed === null);
    if (parsed) updateDraft({ avatarConfig: parsed });
  };
  const onClientJson = (text: string) => {
    setClientText(text);
    const parsed = parseJsonObject(text);
    setJsonInvalid('client', parsed === null);
    if (parsed) updateDraft({ clientConfig: parsed });
  };

  const snippet = embedSnippet(agent.accessLink, agent.token);
  const selfHostedNotice = (url: string | undefined) => (
    <Alert severity="warning" sx={{ mb: 2 }}>
      This configuration file is self-hosted at <strong style={{ wordBreak: 'break-all' }}>{url}</strong>, so it is read-only here. When you save,
      you can transfer its hosting to Persona Studio; after that you can edit it here.
    </Alert>
  );

  return (
    <Box>
      <Tabs
        value={subTab}
        onChange={(_e, v: SubTab) => setSubTab(v)}
        variant="scrollable"
        aria-label="Embed"
        sx={{ mb: 2, borderBottom: 1, borderColor: 'divider', '& .MuiTab-root': { fontWeight: 700, fontSize: '0.78rem', minWidth: 0, px: 1.5 } }}
      >
        <Tab value="iframe" label="IFRAME" />
        <Tab value="avatar" label="AVATAR/ENVIRONMENT JSON" />
        <Tab value="client" label="CLIENT JSON" />
      </Tabs>

      {subTab === 'iframe' ? (
        <Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            Paste this snippet into your page where the avatar should appear.
          </Typography>
          {agent.token ? <TokenNotice token={agent.token} /> : null}
          <Box sx={{ position: 'relative' }}>
            <Box
              component="pre"
              data-testid="embed-snippet"
              aria-label="Embed snippet"
              tabIndex={0}
              // Wrapped inside its box: a long token must not run out of it.
              sx={{ m: 0, p: 2, pr: 7, pt: 6, bgcolor: '#0f172a', color: '#e2e8f0', borderRadius: 2, fontSize: 13, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxWidth: '100%', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' }}
            >
              {snippet}
            </Box>
            <Button
              size="small"
              variant="contained"
              color="inherit"
              startIcon={<ContentCopyIcon fontSize="small" />}
              onClick={() => void copyWithNotice(snippet)}
              sx={{ position: 'absolute', top: 8, right: 8, bgcolor: '#fff' }}
            >
              Copy
            </Button>
          </Box>
          <Typography variant="h6" component="h3" sx={{ mt: 3, mb: 1 }}>
            URL parameters
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            Add them to the src address, for example <code>?hideChatHistory=true&amp;micOn=false</code>.
          </Typography>
          {/* Two columns that wrap (the values and default under the name): they fit the editor's
              panel (536 px at a 1280 px window), where four columns needed sideways scrolling. It
              still scrolls in a panel narrower than its longest word, focusable so a keyboard can too. */}
          <TableContainer tabIndex={0} role="group" aria-label="URL parameters" sx={{ border: 1, borderColor: 'divider', borderRadius: 2 }}>
            <Table size="small" aria-label="URL parameters">
              <TableHead>
                <TableRow sx={{ '& th': { fontWeight: 700, bgcolor: 'grey.50' } }}>
                  <TableCell>Parameter</TableCell>
                  <TableCell>What it does</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {AVATAR_URL_PARAMETERS.map((p) => (
                  <TableRow key={p.name} sx={{ verticalAlign: 'top' }}>
                    <TableCell sx={{ width: '40%' }}>
                      <Box component="code" sx={{ fontFamily: 'ui-monospace, monospace', fontWeight: 600, overflowWrap: 'anywhere' }}>
                        {p.name}
                      </Box>
                      <Typography variant="caption" color="text.secondary" component="div">
                        {p.values} · default {p.defaultValue}
                      </Typography>
                    </TableCell>
                    <TableCell>{p.description}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        </Box>
      ) : subTab === 'avatar' ? (
        <Box>
          {isAvatarSelfHosted ? selfHostedNotice(agent.avatarConfigURL) : null}
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            The avatar's look and environment: ParentConfig (the chosen appearance), panel, Scene, Environment, Lights. Changes here show in the
            Appearance and Environment tabs.
          </Typography>
          {/* Keyed: the two editors sit at the same place in the tree, and CodeMirror drops a new value
              that arrives just after typing (its typing latch), so a reused one kept the other's text. */}
          <JsonEditor key="avatar-json" label="Avatar/Environment JSON" value={avatarText} onChange={onAvatarJson} readOnly={isAvatarSelfHosted} hasError={jsonInvalid.avatar} />
          {jsonInvalid.avatar ? (
            <FormHelperText error role="alert">
              {AvatarMessages.jsonInvalid}
            </FormHelperText>
          ) : null}
        </Box>
      ) : (
        <Box>
          {isClientSelfHosted ? selfHostedNotice(agent.clientConfigURL) : null}
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            How the avatar page behaves for visitors: chat, buttons, locale.
          </Typography>
          <JsonEditor key="client-json" label="Client JSON" value={clientText} onChange={onClientJson} readOnly={isClientSelfHosted} hasError={jsonInvalid.client} />
          {jsonInvalid.client ? (
            <FormHelperText error role="alert">
              {AvatarMessages.jsonInvalid}
            </FormHelperText>
          ) : null}
        </Box>
      )}
    </Box>
  );
}

/** A snippet with a portal-minted token works until the token expires: say when, and how a site mints its own. */
function TokenNotice({ token }: { token: string }) {
  const expiry = tokenExpiry(token);
  return (
    <Alert severity="info" sx={{ mb: 2 }}>
      This avatar is protected by an encryption key, so the snippet carries an access token made by the portal for your
      tests.{' '}
      {expiry ? (
        <>
          It stops working on <strong>{expiry.toLocaleString()}</strong>, or sooner when you sign out.{' '}
        </>
      ) : null}
      On your site, mint a token on your own server with your encryption key for each visitor (see{' '}
      <Link href="/react/docs#encryption">Docs › Encryption keys</Link>) and put it in the <code>token</code> parameter.
    </Alert>
  );
}
