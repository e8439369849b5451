// zod/mini: loaded by the avatar page.
import { z } from 'zod/mini';

/**
 * The avatar page's postMessage API for the page that embeds it (iframe), compatible with
 * Trulience's public iframe API so host pages written for it work unchanged:
 *
 *   host → avatar  {eventName:'trl-method-call', eventParams:{method, args, callId}}
 *   avatar → host  {eventName:'trl-method-response', eventParams:{callId, status:'success'|'error', result | error}}
 *   host → avatar  {eventName:'registerTrlEvents', eventParams:{events:[…names]}}   (or method 'registerTrlEvents')
 *   avatar → host  {eventName:<event>, eventParams:{…}}  — only registered events, only to the host's origin
 *
 * Documented for site owners in the portal's Docs page ("Embedding an avatar").
 */
export const EmbedMessages = {
  methodCall: 'trl-method-call',
  methodResponse: 'trl-method-response',
  registerEvents: 'registerTrlEvents',
} as const;

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
  // ours
  'avatar-text',
  'speaking-started',
  'speaking-ended',
  'state',
  'error',
  'mic-error',
] as const;
export type TEmbedEvent = (typeof EmbedEvents)[number];

export const ZEmbedMethodCall = z.object({
  eventName: z.literal('trl-method-call'),
  eventParams: z.object({
    method: z.string().check(z.maxLength(64)),
    args: z.optional(z.array(z.unknown()).check(z.maxLength(8))),
    callId: z.optional(z.union([z.string().check(z.maxLength(128)), z.number()])),
  }),
});
export type TEmbedMethodCall = z.infer<typeof ZEmbedMethodCall>;

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
  'media-connected': { sessionId: string };
  'websocket-connect': { sessionId: string };
  'websocket-disconnect': { code: string; message: string };
  'avatar-text': { utt: number; delta?: string; text?: string; final: boolean };
  'speaking-started': { utt: number };
  'speaking-ended': { utt: number; interrupted: boolean };
  state: { state: 'disconnected' | 'connecting' | 'idle' | 'listening' | 'thinking' | 'speaking' | 'ended' };
  error: { code: string; message: string; fatal: boolean };
  /** The microphone could not be used: the visitor blocked it, none is connected, it is busy, or the page is not https. */
  'mic-error': { reason: 'denied' | 'missing' | 'unavailable' | 'unsupported'; message: string };
}

/**
 * URL parameters of the avatar page: ours (documented in the Embed tab) and Trulience's
 * names, accepted beside them. Booleans are 'true'/'false' (also '1'/'0').
 */
export const AvatarPageParams = {
  autoConnect: ['autoConnect', 'connect'],
  hideFullscreen: ['hideFullscreen', 'hideFS'],
  hideChatInput: ['hideChatInput'],
  hideChatHistory: ['hideChatHistory'],
  /** micOn=true ≡ micOffByDefault=false ≡ micOff=false */
  micOn: ['micOn'],
  micOff: ['micOffByDefault', 'micOff'],
  speakerOff: ['speakerOffByDefault', 'speakerOff'],
  hideMicButton: ['hideMicButton'],
  hideHangUpButton: ['hideHangUpButton'],
  draggable: ['draggable'],
  useCache: ['useCache'],
  token: ['token'],
} as const;
