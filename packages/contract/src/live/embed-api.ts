// zod/mini: loaded by the avatar page.
import { z } from 'zod/mini';

/**
 * The avatar page's postMessage API for the page that embeds it (iframe), compatible with
 * Trulience's public iframe API so host pages written for it work unchanged:
 *
 *   host → avatar  {eventName:'trl-method-call', eventParams:{method, args, callId}}
 *   avatar → host  {eventName:'trl-method-response', eventParams:{callId, status:'success'|'error', result | error}}
 *   host → avatar  {eventName:'registerTrlEvents', eventParams:{events:[…names]}}   (or method 'registerTrlEvents',
 *                  or the URL parameter registerTrlEvents=name,name,… as Trulience's iframe app takes it)
 *   avatar → host  {eventName:<event>, eventParams:{…}}  — only registered events, only to the host's origin
 *   host → avatar  {command:<EmbedCommands name>, message}  — Trulience's deprecated messages, still accepted
 *
 * Documented for site owners in the portal's Docs page ("Embedding an avatar").
 */
export const EmbedMessages = {
  methodCall: 'trl-method-call',
  methodResponse: 'trl-method-response',
  registerEvents: 'registerTrlEvents',
} as const;

/**
 * Trulience's deprecated host messages ({command, message}; `trl-method-call` in this form carries
 * method, args and callId beside `command`), and the method each one is.
 */
export const EmbedCommands = {
  'trl-chat-send': 'sendMessage',
  'trl-chat': 'sendMessage',
  'trl-avatar-chat-send': 'sendMessageToAvatar',
  'trl-avatar-chat': 'sendMessageToAvatar',
  'trl-mic-set': 'setMicEnabled',
  'trl-mic-status': 'setMicEnabled',
  'trl-speaker-set': 'setSpeakerEnabled',
  'trl-set-speaker-status': 'setSpeakerEnabled',
  'end-call': 'disconnect',
} as const satisfies Record<string, TEmbedMethod>;

/** Methods a host page may call. Trulience's names first, then ours. */
export const EmbedMethods = [
  'sendMessage',
  'sendMessageToAvatar',
  'setMicEnabled',
  'toggleMic',
  'isMicEnabled',
  'setSpeakerEnabled',
  'toggleSpeaker',
  'isSpeakerEnabled',
  'registerTrlEvents',
  // ours
  'connect',
  'disconnect',
  'getState',
  /** (mood, intensity?) — one of AvatarMoods, intensity 0–1: the face holds it until the next one. */
  'setMood',
  /** (gesture) — one of AvatarGestures, played once. */
  'playGesture',
] as const;
export type TEmbedMethod = (typeof EmbedMethods)[number];

/** Events a host page may register for. Trulience's names first, then ours. */
export const EmbedEvents = [
  'auth-success',
  'auth-fail',
  'trl-chat',
  'mic-update',
  'speaker-update',
  'media-connected',
  'websocket-connect',
  'websocket-disconnect',
  /** {permissionGranted}: the browser granted the microphone, or the visitor refused it. */
  'mic-access',
  // ours
  'avatar-text',
  'speaking-started',
  'speaking-ended',
  'state',
  'error',
  'mic-error',
] as const;
export type TEmbedEvent = (typeof EmbedEvents)[number];

/**
 * The avatar as the visitor experiences it, in one vocabulary: the page's header, `getState()`
 * and the `state` event all say one of these (live-client/avatar-state.ts decides which).
 * `speaking` is what is heard: from the first sample of an answer's voice played to its last;
 * `thinking` covers an answer on its way that is not heard yet (its voice still loading or being
 * made); `connecting` includes reconnecting; `ended` includes a refused start.
 */
export const AvatarStates = ['disconnected', 'connecting', 'idle', 'listening', 'thinking', 'speaking', 'ended'] as const;
export type TAvatarState = (typeof AvatarStates)[number];

export const ZEmbedMethodCall = z.object({
  eventName: z.literal('trl-method-call'),
  eventParams: z.object({
    method: z.string().check(z.maxLength(64)),
    args: z.optional(z.array(z.unknown()).check(z.maxLength(8))),
    callId: z.optional(z.union([z.string().check(z.maxLength(128)), z.number()])),
  }),
});
export type TEmbedMethodCall = z.infer<typeof ZEmbedMethodCall>;

export const ZEmbedCommand = z.object({
  command: z.string().check(z.maxLength(64)),
  message: z.optional(z.unknown()),
  method: z.optional(z.string().check(z.maxLength(64))),
  args: z.optional(z.array(z.unknown()).check(z.maxLength(8))),
  callId: z.optional(z.union([z.string().check(z.maxLength(128)), z.number()])),
});
export type TEmbedCommand = z.infer<typeof ZEmbedCommand>;

export const ZEmbedRegister = z.object({
  eventName: z.literal('registerTrlEvents'),
  eventParams: z.optional(z.object({ events: z.optional(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(64))) })),
});

export interface TEmbedMethodResponse {
  eventName: 'trl-method-response';
  eventParams: { callId: string | number | undefined; status: 'success' | 'error'; result?: unknown; error?: string };
}

/** Payloads of the events (eventParams). */
export interface TEmbedEventParams {
  'auth-success': { sessionId: string };
  'auth-fail': { code: string; message: string; failReason?: number };
  /** A chat line: `sttResponse` true when it is what the visitor said (needs permission bit 2 for speech). */
  'trl-chat': { message: string; sttResponse: boolean; final?: boolean };
  'mic-update': { enabled: boolean };
  'speaker-update': { enabled: boolean };
  'mic-access': { permissionGranted: boolean };
  'media-connected': { sessionId: string };
  'websocket-connect': { sessionId: string };
  'websocket-disconnect': { code: string; message: string };
  'avatar-text': { utt: number; delta?: string; text?: string; final: boolean };
  'speaking-started': { utt: number };
  'speaking-ended': { utt: number; interrupted: boolean };
  state: { state: TAvatarState };
  error: { code: string; message: string; fatal: boolean };
  /** The microphone could not be used: the visitor blocked it, none is connected, it is busy, or the page is not https. */
  'mic-error': { reason: 'denied' | 'missing' | 'unavailable' | 'unsupported'; message: string };
}

/**
 * URL parameters of the avatar page: ours (documented in the Embed tab) and the names of
 * Trulience's avatar page and iframe app (connect, hideFS, micOffByDefault, disableMic,
 * showFullscreenAvatar, registerTrlEvents…), accepted beside them. Booleans are 'true'/'false'
 * (also '1'/'0'). Trulience's cosmetic ones (loadingBarColor, avatarBackgroundColor, sdkURL,
 * lsloglevel) are ignored.
 */
export const AvatarPageParams = {
  autoConnect: ['autoConnect', 'connect'],
  hideFullscreen: ['hideFullscreen', 'hideFS'],
  hideChatInput: ['hideChatInput'],
  hideChatHistory: ['hideChatHistory'],
  /** The conversation panel starts open (else the visitor opens it with the Chat button). */
  chatOpen: ['chatOpen'],
  /** micOn=true ≡ micOffByDefault=false ≡ micOff=false ≡ disableMic=false */
  micOn: ['micOn'],
  micOff: ['micOffByDefault', 'micOff', 'disableMic'],
  speakerOff: ['speakerOffByDefault', 'speakerOff'],
  hideMicButton: ['hideMicButton'],
  hideSpeakerButton: ['hideSpeakerButton'],
  hideHangUpButton: ['hideHangUpButton'],
  /** Only the avatar: every control hidden unless its own parameter says otherwise. */
  showFullscreenAvatar: ['showFullscreenAvatar'],
  /** The events to post to the host page, comma-separated (as a registerTrlEvents message would). */
  registerEvents: ['registerTrlEvents'],
  draggable: ['draggable'],
  useCache: ['useCache'],
  token: ['token'],
} as const;
