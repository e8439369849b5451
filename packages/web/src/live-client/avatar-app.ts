import { LiveCode, LiveFailReason, LiveMessages, LiveProtocol, OAuthReturnParams, type TAvatarAction, type TLiveCode, type TLivePageConfig } from '@persona/contract';
import { AvatarAudio, canPlayAudio } from './audio/avatar-audio';
import { BrowserRecognition, browserRecognitionCtor, type SpeechRecognitionCtor } from './audio/browser-recognition';
import type { EchoStats } from '@persona/contract/echo-filter';
import { MicCapture, MicProblemText, type MicEvents, type MicProblem, type MicSource } from './audio/mic-capture';
import { meterLevel } from './audio/mic-framer';
import { AvatarStateMachine } from './avatar-state';
import { ChatView } from './chat-view';
import type { AvatarStage } from './render/stage';
import { EmbedApi } from './embed-api';
import { LiveSession, type LiveSessionOptions } from './live-session';
import type { AvatarPageOptions } from './params';

const OAUTH_MESSAGE = 'persona-oauth-grant';
/** The longest the avatar's voice waits for its face to be drawn (avatar-app's `face`). */
export const FACE_WAIT_MS = LiveProtocol.faceWaitMs;

/** An anonymous id per browser and avatar (daily limits, avatar memory); memory-only when storage is blocked. */
export function visitorIdFor(avatarId: number, storage: Storage | null = safeStorage()): string {
  const key = `persona.visitor.${avatarId}`;
  const existing = storage?.getItem(key);
  if (existing && /^[A-Za-z0-9_-]{8,64}$/.test(existing)) return existing;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const id = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  try {
    storage?.setItem(key, id);
  } catch {
    // Storage full or blocked (third-party iframe): the id lives as long as the page.
  }
  return id;
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The sign-in popup lands back on the avatar page with these (see OAuthReturnParams). */
const OAUTH_RETURN_APP = 'oauthApp';

/**
 * The OAuth sign-in landing: when this page was opened as the sign-in popup of an avatar page
 * (same origin), exchange the one-time code for the grant here — this window carries the sign-in
 * cookie, a cross-site iframe may not — hand the grant to the avatar page and close. The grant
 * itself never appears in a URL. Returns true when this window is such a landing.
 */
export async function handOverOAuthGrant(win: Window = window, fetcher: typeof fetch = (i, init) => fetch(i, init)): Promise<boolean> {
  const url = new URL(win.location.href);
  const code = url.searchParams.get(OAuthReturnParams.code);
  const error = url.searchParams.get(OAuthReturnParams.error);
  const appId = Number(url.searchParams.get(OAUTH_RETURN_APP));
  if ((!code && !error) || !Number.isInteger(appId) || appId <= 0) return false;
  for (const name of [OAuthReturnParams.code, OAuthReturnParams.error, OAUTH_RETURN_APP]) url.searchParams.delete(name);
  win.history.replaceState(null, '', url.pathname + url.search + url.hash);
  const opener = win.opener as Window | null;
  let message: { type: string; grant?: string; error?: string };
  if (code) {
    try {
      const res = await fetcher(new URL('/api/oauth/grant', win.location.origin).toString(), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appId, code }),
      });
      const body = (await res.json().catch(() => null)) as { oauthGrant?: unknown } | null;
      message = res.ok && typeof body?.oauthGrant === 'string' ? { type: OAUTH_MESSAGE, grant: body.oauthGrant } : { type: OAUTH_MESSAGE, error: 'exchange' };
    } catch {
      message = { type: OAUTH_MESSAGE, error: 'exchange' };
    }
  } else {
    message = { type: OAUTH_MESSAGE, error: 'denied' };
  }
  if (!opener || opener === win) return false;
  opener.postMessage(message, win.location.origin);
  win.close();
  return true;
}

export interface AvatarAppOptions {
  avatarId: number;
  options: AvatarPageOptions;
  textOnly?: boolean;
  /** For tests. */
  session?: Partial<LiveSessionOptions>;
  /** The window whose parent is the host page (default: this one). */
  embedWindow?: Window;
  /** The microphone (default: getUserMedia + the capture worklet). */
  mic?: (events: MicEvents) => MicSource;
  /** The browser's speech recognition, used when the worker does not listen (default: the browser's, if any). */
  speechRecognition?: SpeechRecognitionCtor | null;
}

/** The avatar page (and the chat widget): page config, Connect, chat, refusals, host API. */
export function mountAvatarApp(container: HTMLElement, app: AvatarAppOptions) {
  const { avatarId, options } = app;
  const textOnly = app.textOnly ?? false;
  const embed: EmbedApi = new EmbedApi({
    sendMessage: (text) => send(text),
    sendMessageToAvatar: (text) => session.send(text, { speak: true }) !== null,
    setMicEnabled: (enabled) => setMic(enabled),
    isMicEnabled: () => session.isMicEnabled,
    setSpeakerEnabled: (enabled) => setSpeaker(enabled),
    isSpeakerEnabled: () => session.isSpeakerEnabled,
    connect: () => connect(),
    disconnect: () => session.hangUp(),
    getState: () => presence.state,
    act: (action) => act(action),
  }, app.embedWindow, options.registerEvents);
  const session: LiveSession = new LiveSession({
    avatarId,
    ...(options.token ? { token: options.token } : {}),
    ...(embed.origin ? { hostOrigin: embed.origin } : {}),
    visitorId: visitorIdFor(avatarId),
    textOnly,
    useCache: options.useCache,
    mic: options.micOn,
    speaker: options.speakerOn,
    client: { deviceOS: navigator.platform || navigator.userAgent.slice(0, 100), locale: navigator.language, spokenLanguage: navigator.language },
    ...app.session,
  });
  let pageConfig: TLivePageConfig | null = null;
  let oauthGrant: string | undefined;
  /**
   * The state the visitor experiences (avatar-state.ts): the header, the stage's pose, getState()
   * and the host's `state` event; and the answers' text, each held until its voice is heard.
   */
  const presence = new AvatarStateMachine({
    state: (state) => {
      view.setLiveState(state);
      stage?.setPose(state);
      embed.emit('state', { state });
    },
    reveal: (utt) => {
      view.revealAnswer(utt);
      for (const emit of heldEvents.get(utt) ?? []) emit();
      heldEvents.delete(utt);
    },
  });
  /** The host page's events of answers whose text is held (avatar-text, trl-chat): posted when it shows. */
  const heldEvents = new Map<number, (() => void)[]>();

  // In a frame, nothing takes the focus before the visitor has used the frame:
  // a focus() there moves the host page's focus into the iframe and scrolls the host to it. A
  // pointer or key inside the frame (the Connect button, the input, the stage) is that use.
  let visitorActed = !embed.framed;
  const onVisitorAct = () => {
    visitorActed = true;
  };
  window.addEventListener('pointerdown', onVisitorAct, true);
  window.addEventListener('keydown', onVisitorAct, true);

  const view = new ChatView(
    {
      hideChatInput: options.hideChatInput,
      hideChatHistory: options.hideChatHistory,
      hideFullscreen: options.hideFullscreen,
      hideMicButton: options.hideMicButton,
      hideSpeakerButton: options.hideSpeakerButton,
      hideHangUpButton: options.hideHangUpButton,
      draggable: options.draggable,
      textOnly,
      chatOpen: options.chatOpen,
    },
    {
      onSend: (text) => send(text),
      onConnect: () => void connect(),
      onHangUp: () => session.hangUp(),
      onMic: (enabled) => setMic(enabled),
      onSpeaker: (enabled) => setSpeaker(enabled),
      onSignIn: () => void signIn(),
    },
  );
  container.replaceChildren(view.root);
  view.setMic(options.micOn);
  view.setSpeaker(options.speakerOn);

  // The avatar's voice: played here, and what is heard drives speaking, the mouth and the
  // worker's playback frames. Not in the chat widget, nor without Web Audio.
  /** The visitor can hear the avatar's voice here (updateVoiced): timed avatar actions wait for it. */
  let voiced = false;
  const audio = !textOnly && canPlayAudio() ? createAudio() : null;
  let stage: AvatarStage | null = null;
  /**
   * The voice waits for the face: on a cold page the renderer (its chunk, its model) may still be
   * loading when the greeting arrives, and a voice heard over a face that is not drawn yet, lips
   * still, is the first thing a visitor would notice. Settles once the stage is drawing or has
   * given up (the photo stays); the player holds the voice until then, FACE_WAIT_MS at most.
   */
  let faceSettled!: () => void;
  const face = new Promise<void>((resolve) => {
    faceSettled = resolve;
  });
  if (textOnly) faceSettled();
  // The stage's chunk is fetched while the page config loads, not after it: the first frame
  // comes one chunk's download and parse sooner.
  const stageModule = textOnly ? null : import('./render/stage');
  stageModule?.catch(() => undefined);
  let faceTimer: ReturnType<typeof setTimeout> | undefined;
  let faceWait: Promise<void> | null = null;
  /** The face, or FACE_WAIT_MS from the first time the voice asks for it (one wait per page). */
  const faceOrTimeout = () =>
    (faceWait ??= Promise.race([face, new Promise<void>((resolve) => (faceTimer = setTimeout(resolve, FACE_WAIT_MS)))]).then(() => clearTimeout(faceTimer)));

  /** Binary frames carry the utterance in 16 bits: the full number from its start frame. */
  const uttByLow = new Map<number, number>();
  const assistantText = new Map<number, string>();
  const full = (low: number) => uttByLow.get(low) ?? low;

  function createAudio() {
    const player = new AvatarAudio({
      started: (low) => session.playback(full(low), 'started', 0),
      progress: (low, ms) => session.playback(full(low), 'progress', ms),
      ended: (low, ms, interrupted) => {
        if (interrupted) session.playbackCut(full(low), ms);
        else session.playback(full(low), 'ended', ms);
        stage?.ended(low, ms, interrupted);
      },
      blocked: (isBlocked) => {
        audioBlocked = isBlocked;
        view.setAudioBlocked(isBlocked);
        updateVoiced();
      },
      // What the visitor hears: the capture's own canceller's far end where the browser has none.
      audible: (stream) => mic?.setEchoReference?.(stream),
    });
    player.setMuted(!options.speakerOn);
    view.root.append(player.element);
    // Browsers keep sound off until a gesture: any click or key on the page turns it on.
    const unlock = () => player.resume();
    window.addEventListener('pointerdown', unlock, true);
    window.addEventListener('keydown', unlock, true);
    return player;
  }

  let audioBlocked = false;
  /** The visitor can hear the avatar's voice here: a player plays it, the browser lets it sound, the speaker is on. */
  function updateVoiced() {
    voiced = audio !== null && session.playbackDriven && !audioBlocked && session.isSpeakerEnabled && session.state === 'connected';
    presence.setVoiced(voiced);
  }

  /** The notice showing, when it is one that goes by itself (too-fast: with the next message taken; tools-starting: with the answer). */
  let passingNotice: TLiveCode | null = null;
  const clearNotice = (code: TLiveCode) => {
    if (passingNotice !== code) return;
    passingNotice = null;
    view.showNotice(null);
  };
  function send(text: string): boolean {
    const id = session.send(text);
    if (id === null) return false;
    view.addUser(text.trim(), id);
    clearNotice(LiveCode.tooFast);
    return true;
  }
  // Listening: the microphone streams 16 kHz PCM16 frames of 20 ms to the worker while
  // the visitor wants it on and the worker listens (its `ready` says so).
  const mic: MicSource | null = textOnly
    ? null
    : (app.mic ?? ((events) => new MicCapture(events)))({
        frame: (pcm, rms) => {
          if (!micWanted) return;
          session.sendMic(pcm);
          view.setMeter(meterLevel(rms));
        },
        lost: (problem) => micFailed(problem),
        echo: (stats) => {
          const probe = (window as unknown as { __personaAvatar?: { micEcho: EchoStats | null } }).__personaAvatar;
          if (probe) probe.micEcho = stats;
        },
      });
  mic?.setEchoReference?.(audio?.audible ?? null);
  let listening = false;
  let micWanted = options.micOn;
  let destroyed = false;
  // The worker does not listen: the browser's own recognition, where there is one; its text goes
  // to the avatar as typed messages.
  const RecognitionCtor = textOnly ? null : app.speechRecognition !== undefined ? app.speechRecognition : browserRecognitionCtor();
  let browserRec: BrowserRecognition | null = null;
  const source = (): MicSource | BrowserRecognition | null => (listening ? mic : browserRec);

  function setMic(enabled: boolean) {
    micWanted = enabled;
    session.setMic(enabled);
    view.setMic(enabled);
    embed.emit('mic-update', { enabled });
    if (enabled) view.showMicProblem(null);
    void applyMic();
  }
  /** Starts or stops the capture to match what the visitor wants and what the worker offers. */
  async function applyMic() {
    const src = source();
    if (!listening && mic?.active) mic.stop();
    if (listening && browserRec?.active) browserRec.stop();
    if (!src) return;
    const usable = () => micWanted && session.state === 'connected' && source() === src;
    if (!usable()) {
      if (src.active) src.stop();
      view.setMeter(null);
      return;
    }
    if (src.active) return;
    const result = await src.start();
    if (destroyed) return;
    if (!result.ok) {
      // Cancelled: stop() ran while it started (mic turned off, page gone) — nothing to explain.
      if ('problem' in result) micFailed(result.problem);
      return;
    }
    if (!usable()) {
      src.stop();
      return;
    }
    view.showMicProblem(null);
    embed.emit('mic-access', { permissionGranted: true });
    // The browser's recognition gives no level: no meter then.
    if (src === mic) view.setMeter(0);
  }
  /** The microphone cannot be used: say why, in the page and to the host page; typing still works. */
  function micFailed(problem: MicProblem) {
    if (destroyed) return;
    mic?.stop();
    browserRec?.stop();
    view.setMeter(null);
    view.showMicProblem(MicProblemText[problem]);
    embed.emit('mic-error', { reason: problem, message: MicProblemText[problem] });
    if (problem === 'denied') embed.emit('mic-access', { permissionGranted: false });
    if (micWanted) {
      micWanted = false;
      session.setMic(false);
      view.setMic(false);
      embed.emit('mic-update', { enabled: false });
    }
  }
  function setSpeaker(enabled: boolean) {
    session.setSpeaker(enabled);
    audio?.setMuted(!enabled);
    view.setSpeaker(enabled);
    updateVoiced();
    embed.emit('speaker-update', { enabled });
  }

  function refuse(code: TLiveCode, message: string) {
    view.showError(message, { signIn: code === LiveCode.oauthRequired || code === LiveCode.oauthFailed ? Boolean(pageConfig?.avatar.oauth) : false });
  }

  async function connect(): Promise<boolean> {
    if (!pageConfig) return false;
    if (pageConfig.avatar.tokenRequired && !options.token) {
      refuseWithoutToken();
      return false;
    }
    if (pageConfig.avatar.oauth && !oauthGrant) {
      refuse(LiveCode.oauthRequired, LiveMessages['oauth-required']);
      return false;
    }
    view.hideBanner();
    view.showNotice(null);
    const grant = oauthGrant;
    oauthGrant = undefined; // one-time
    return session.connect(grant ? { oauthGrant: grant } : {});
  }

  /**
   * A protected avatar opened without a token can never connect: the page says so as it loads,
   * offers no Connect, and the host page gets auth-fail (also if it registers later).
   */
  function refuseWithoutToken() {
    const code = LiveCode.tokenRequired;
    refuse(code, LiveMessages[code]);
    view.setUnavailable();
    embed.emitStanding('auth-fail', { code, message: LiveMessages[code], failReason: LiveFailReason[code]! });
  }

  /**
   * The sign-in popup opens at once (the click allows it), then goes to a fresh start link: the
   * portal signs them and they last minutes (OAuthLimits.startTtlMinutes), while a page may stay
   * open for hours.
   */
  async function signIn() {
    const oauth = pageConfig?.avatar.oauth;
    if (!oauth) return;
    const popup = window.open('', 'persona-oauth', 'popup,width=520,height=680');
    if (!popup) {
      view.showError('Please allow pop-ups for this page to sign in.', { signIn: true });
      return;
    }
    let startUrl = oauth.startUrl;
    try {
      const fresh = await session.loadPageConfig();
      if (fresh.avatar.oauth?.appId === oauth.appId) startUrl = fresh.avatar.oauth.startUrl;
    } catch {
      // The link the page has may still be valid.
    }
    const url = new URL(startUrl, window.location.origin);
    url.searchParams.set('returnTo', `${window.location.pathname}?${OAUTH_RETURN_APP}=${oauth.appId}`);
    popup.location.href = url.toString();
  }

  const onOAuthMessage = (event: MessageEvent) => {
    if (event.origin !== window.location.origin) return;
    const data = event.data as { type?: unknown; grant?: unknown; error?: unknown } | null;
    if (!data || data.type !== OAUTH_MESSAGE) return;
    if (typeof data.grant !== 'string') {
      refuse(LiveCode.oauthFailed, LiveMessages['oauth-failed']);
      return;
    }
    oauthGrant = data.grant;
    void connect();
  };
  window.addEventListener('message', onOAuthMessage);

  session.on('connection', (state) => {
    view.setConnection(state);
    if (state === 'reconnecting') audio?.connectionLost();
    if (state === 'ended' || state === 'failed' || state === 'disconnected') {
      listening = false;
      view.setListeningAvailable(false);
      void applyMic();
    }
    if (state !== 'connected') updateVoiced();
    presence.setConnection(state);
  });
  session.on('admitted', ({ sessionId }) => embed.emit('auth-success', { sessionId }));
  session.on('refused', (failure) => {
    refuse(failure.code, failure.message);
    embed.emit('auth-fail', { code: failure.code, message: failure.message, ...(failure.failReason !== undefined ? { failReason: failure.failReason } : {}) });
    embed.emit('error', { code: failure.code, message: failure.message, fatal: true });
  });
  session.on('ready', ({ sessionId, history, resumed, echo, audioSampleRate, listening: workerListens }) => {
    listening = workerListens && mic !== null;
    if (!listening && RecognitionCtor && !browserRec) {
      browserRec = new BrowserRecognition(
        RecognitionCtor,
        {
          interim: (text) => {
            if (session.ui?.transcriptionStreaming) view.interimUser(text);
          },
          final: (text) => {
            view.clearInterim();
            send(text);
          },
          lost: (problem) => micFailed(problem),
        },
        navigator.language || 'en-US',
      );
      // Audio to the browser vendor's service only on the visitor's (or the host page's) own
      // request: the mic starts off here, whatever micOn says. (Headless browsers have the API but
      // refuse it: no explanation appears unless someone asked for the mic.)
      if (micWanted) {
        micWanted = false;
        session.setMic(false);
        view.setMic(false);
        embed.emit('mic-update', { enabled: false });
      }
    }
    view.setListeningAvailable(listening || browserRec !== null);
    void applyMic();
    if (audio && audioSampleRate > 0) {
      session.playbackDriven = true;
      void audio.start(audioSampleRate, faceOrTimeout()).catch(() => {
        // No worklet (old browser, blocked module): speaking follows the worker's frames.
        session.playbackDriven = false;
        updateVoiced();
      });
    }
    updateVoiced();
    if (resumed) {
      audio?.connectionResumed();
      view.setHistory(history);
    }
    if (echo) view.showNotice(LiveMessages['daily-limit-echo']);
    else view.showNotice(null);
    embed.emit('media-connected', { sessionId });
    embed.emit('websocket-connect', { sessionId });
    if (visitorActed) view.focusInput();
  });
  session.on('utterance', (u) => {
    uttByLow.set(u.utt & 0xffff, u.utt);
    while (uttByLow.size > 64) uttByLow.delete(uttByLow.keys().next().value!);
    if (u.text) stage?.setText(u.utt, u.text);
    if (u.phase === 'start') presence.utteranceStarted(u.utt);
    if (u.phase === 'end') audio?.end(u.utt & 0xffff);
  });
  session.on('audio', (a) => audio?.push(a.utt, a.pcm, a.last));
  session.on('visemes', (v) => stage?.addVisemes(v.utt & 0xffff, v.items));
  session.on('words', (w) => stage?.addWords(w.utt & 0xffff, w.items));
  // A mood or gesture of the brain: with the words it stands before when their voice plays here, else at once.
  session.on('action', (a) => {
    if (a.t !== undefined && voiced && stage) stage.actAt(a.utt & 0xffff, a.t, a.action);
    else act(a.action);
  });
  /** The last mood asked for: a stage still loading shows it once it is there. */
  let mood: TAvatarAction | null = null;
  function act(action: TAvatarAction) {
    if (action.kind === 'mood') mood = action;
    stage?.act(action);
  }
  // Talked over: the voice holds where it is (the mouth rests) until the worker decides.
  session.on('pause', (p) => audio?.pauseUtterance(p.utt & 0xffff));
  session.on('resume', (r) => audio?.resumeUtterance(r.utt & 0xffff));
  session.on('interrupted', (i) => {
    audio?.flush(i.utt & 0xffff);
    stage?.interrupt(i.utt & 0xffff, i.heardMs);
    presence.interrupted(i.utt);
  });
  session.on('state', (state) => presence.setWorkerState(state));
  session.on('transcript', (t) => {
    // Interim results are shown (and passed on) only when the avatar streams transcription.
    const streaming = session.ui?.transcriptionStreaming === true;
    if (t.final) view.confirmUser(t.text, t.id, t.beforeUtt, t.continues === true);
    else if (streaming) view.interimUser(t.text);
    // Typed text is the host's own; speech goes to the host only with the permission bit.
    if (t.id === undefined && session.ui?.canHandleSttResponse && (t.final || streaming) && t.text.trim()) {
      embed.emit('trl-chat', { message: t.text, sttResponse: true, final: t.final });
    }
  });
  session.on('assistant', (a) => {
    clearNotice(LiveCode.toolsStarting);
    // Shown in step with its voice: held (in place, hidden) until its first sample is heard.
    const show = presence.text(a.utt);
    if (!show) view.holdAnswer(a.utt);
    view.assistant(a.utt, a);
    const text = a.text ?? (assistantText.get(a.utt) ?? '') + (a.delta ?? '');
    assistantText.set(a.utt, text.slice(-4000));
    while (assistantText.size > 16) assistantText.delete(assistantText.keys().next().value!);
    stage?.setText(a.utt & 0xffff, text);
    const post = () => {
      embed.emit('avatar-text', { utt: a.utt, ...(a.delta !== undefined ? { delta: a.delta } : {}), ...(a.text !== undefined ? { text: a.text } : {}), final: a.final });
      if (a.final && a.text) embed.emit('trl-chat', { message: a.text, sttResponse: false });
    };
    if (show) post();
    else {
      heldEvents.set(a.utt, [...(heldEvents.get(a.utt) ?? []), post]);
      while (heldEvents.size > 16) heldEvents.delete(heldEvents.keys().next().value!);
    }
  });
  session.on('speaking', (s) => {
    presence.speaking(s.utt, s.speaking);
    view.setSpeaking(s.speaking);
    browserRec?.pause(s.speaking);
    if (s.speaking) embed.emit('speaking-started', { utt: s.utt });
    else embed.emit('speaking-ended', { utt: s.utt, interrupted: s.interrupted });
  });
  session.on('tool', (t) => {
    passingNotice = null;
    view.showNotice(t.status === 'started' ? `Using ${t.name}…` : null);
  });
  session.on('notice', (n) => {
    // A message over the rate (LiveRates): its bubble goes, the notice says why.
    if (n.id !== undefined) view.dropUser(n.id);
    passingNotice = n.code === LiveCode.tooFast || n.code === LiveCode.toolsStarting ? n.code : null;
    view.showNotice(n.message);
  });
  session.on('error', (e) => {
    embed.emit('error', e);
    if (!e.fatal) view.showNotice(e.message);
  });
  session.on('ended', ({ code, message }) => {
    // The page's own figures for this session (ADR 099): on hang-up, pagehide and the worker's end alike.
    if (stage) session.reportFigures(stage.figures.figures());
    audio?.flush();
    embed.emit('websocket-disconnect', { code, message });
    if (code !== LiveCode.hangUp) view.showError(message);
    else view.showNotice(message);
  });

  embed.start();
  // The visitor closes the tab: say goodbye so the session is billed to the second.
  const onPageHide = () => session.hangUp();
  window.addEventListener('pagehide', onPageHide);

  void (async () => {
    let config: TLivePageConfig;
    try {
      config = await session.loadPageConfig();
    } catch (err) {
      const code = ((err as { code?: TLiveCode }).code ?? LiveCode.serverError) as TLiveCode;
      view.setAvatar('Avatar', null);
      view.setConnection('failed');
      refuse(code, LiveMessages[code]);
      embed.emit('auth-fail', { code, message: LiveMessages[code] });
      return;
    }
    pageConfig = config;
    view.setAvatar(config.avatar.name, config.avatar.photoUrl);
    if (!textOnly) void mountStage(config);
    if (config.avatar.tokenRequired && !options.token) refuseWithoutToken();
    else if (options.autoConnect) await connect();
  })();

  /** Draws the avatar (the renderer chunk for its kind); keeps the photo when it cannot. */
  async function mountStage(config: TLivePageConfig) {
    try {
      await drawStage(config);
    } finally {
      faceSettled();
    }
  }

  async function drawStage(config: TLivePageConfig) {
    const { AvatarStage } = await (stageModule ?? import('./render/stage'));
    const s = new AvatarStage({ avatarConfigUrl: config.avatar.avatarConfigUrl, dhType: config.avatar.dhType, photoUrl: config.avatar.photoUrl });
    stage = s;
    s.setPose(presence.state);
    if (mood) s.act(mood);
    if (audio) s.attachAudio(audio);
    view.mountStage(s.root, s.layer);
    const transparent = () => {
      if (s.stageConfig?.background.transparent) document.documentElement.dataset.transparent = 'true';
    };
    s.root.addEventListener('ps-fallback', () => view.unmountStage());
    if (!(await s.load())) {
      transparent();
      view.unmountStage();
      return;
    }
    transparent();
    view.sceneReady();
  }

  /** Hangs up and removes the page's listeners (the chat widget unmounting). */
  const destroy = () => {
    destroyed = true;
    clearTimeout(faceTimer);
    session.hangUp();
    presence.dispose();
    mic?.stop();
    browserRec?.stop();
    audio?.close();
    stage?.dispose();
    embed.stop();
    window.removeEventListener('message', onOAuthMessage);
    window.removeEventListener('pagehide', onPageHide);
    window.removeEventListener('pointerdown', onVisitorAct, true);
    window.removeEventListener('keydown', onVisitorAct, true);
    container.replaceChildren();
  };
  return { session, view, embed, destroy };
}
