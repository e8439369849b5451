// zod/mini: loaded by the avatar page.
import { z } from 'zod/mini';
import { ZLiveCode } from './codes.js';
import { ZAvatarAction } from './avatar-actions.js';

/**
 * The page ⇄ worker protocol: one WebSocket per live session, JSON text frames for control and
 * binary frames for audio: the avatar's voice with its visemes, and the visitor's microphone.
 * See docs/decisions/013-live-sessions.md.
 */
export const LiveProtocol = {
  version: 1,
  /** Mic audio the page sends: PCM16LE mono. */
  micSampleRate: 16_000,
  micFrameMs: 20,
  /** Largest JSON frame either side accepts (bytes). */
  maxTextFrame: 16 * 1024,
  /** Largest binary frame (header + PCM). */
  maxBinaryFrame: 64 * 1024,
  /** Binary frame header (8 bytes): kind u8, flags u8, utterance u16 LE, seq u32 LE. */
  binaryHeaderBytes: 8,
  /** The page pings; the worker closes a silent socket after this long. */
  pingIntervalMs: 15_000,
  socketTimeoutMs: 45_000,
  /**
   * The longest the page holds the avatar's voice until its face is drawn (a cold page's stage
   * still loading): the worker counts it before taking a first utterance as heard without reports.
   */
  faceWaitMs: 4000,
  /** WebSocket close codes. */
  close: {
    /** Normal end (bye sent first). */
    ended: 4000,
    /** Ticket refused (invalid, expired, replayed, other worker). */
    ticketRefused: 4001,
    /**
     * Protocol violation: a bad hello, an oversized frame, too many unreadable frames, mic audio
     * far faster than real time (worker/src/live/frame-guard.ts).
     */
    badFrame: 4002,
    /** Worker shutting down: resume elsewhere. */
    goingAway: 4003,
    /** The same session connected again (resume): this socket is stale. */
    replaced: 4009,
  },
} as const;

/** Binary frame kinds (byte 0). */
export const AudioFrameKind = { mic: 1, avatar: 2 } as const;
/** Binary frame flags (byte 1). */
export const AudioFrameFlag = { last: 1 } as const;

export interface AudioFrameHeader {
  kind: number;
  flags: number;
  utterance: number;
  seq: number;
}

export function writeAudioFrame(header: AudioFrameHeader, pcm: Uint8Array): Uint8Array {
  const out = new Uint8Array(LiveProtocol.binaryHeaderBytes + pcm.byteLength);
  const view = new DataView(out.buffer);
  view.setUint8(0, header.kind);
  view.setUint8(1, header.flags);
  view.setUint16(2, header.utterance & 0xffff, true);
  view.setUint32(4, header.seq >>> 0, true);
  out.set(pcm, LiveProtocol.binaryHeaderBytes);
  return out;
}

export function readAudioFrame(frame: Uint8Array): { header: AudioFrameHeader; pcm: Uint8Array } | null {
  if (frame.byteLength < LiveProtocol.binaryHeaderBytes || frame.byteLength > LiveProtocol.maxBinaryFrame) return null;
  if ((frame.byteLength - LiveProtocol.binaryHeaderBytes) % 2 !== 0) return null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const header = { kind: view.getUint8(0), flags: view.getUint8(1), utterance: view.getUint16(2, true), seq: view.getUint32(4, true) };
  if (header.kind !== AudioFrameKind.mic && header.kind !== AudioFrameKind.avatar) return null;
  return { header, pcm: frame.subarray(LiveProtocol.binaryHeaderBytes) };
}

const shortText = z.string().check(z.maxLength(200));

/**
 * Bounds of a turn's detail (ADR 102): what the transcript shows under a turn besides its text.
 * The worker clips to them; the portal refuses more (`bad-frame`).
 */
export const LiveTurnDetailLimits = {
  /** Earlier recognised versions of a spoken turn (the last ones kept). */
  interims: 5,
  /** Function calls of one answer (the first ones kept). */
  calls: 8,
  /** A call's arguments or result, characters. */
  callChars: 2_000,
  /** Knowledge passages given to the model for one answer. */
  passages: 5,
  /** A passage's title, and its snippet, characters. */
  titleChars: 200,
  snippetChars: 300,
  /** Provider failures during one turn. */
  errors: 5,
  /**
   * The details of a whole history, characters of JSON: past it the oldest turns lose their detail
   * (never their text), so a history with its details stays well inside an RPC body (1 MB).
   */
  historyChars: 200_000,
} as const;

const L = LiveTurnDetailLimits;

/** One function (tool) call of an answer: its arguments and what it answered (or its error), clipped. */
export const ZLiveToolCallDetail = z.object({
  name: shortText,
  arguments: z.string().check(z.maxLength(L.callChars)),
  ok: z.boolean(),
  /** The result when ok, else the error; null when the call was refused or never answered. */
  result: z.nullable(z.string().check(z.maxLength(L.callChars))),
});
export type TLiveToolCallDetail = z.infer<typeof ZLiveToolCallDetail>;

/** A knowledge passage the answer was given: where it came from and its opening. */
export const ZLivePassageUsed = z.object({
  title: z.string().check(z.maxLength(L.titleChars)),
  snippet: z.string().check(z.maxLength(L.snippetChars)),
});
export type TLivePassageUsed = z.infer<typeof ZLivePassageUsed>;

/** A provider failure during the turn: which provider, and its code (a LiveCode or the provider's status). */
export const ZLiveTurnError = z.object({
  provider: z.string().check(z.minLength(1), z.maxLength(64)),
  code: z.string().check(z.minLength(1), z.maxLength(64)),
  phase: z.optional(z.string().check(z.maxLength(32))),
});
export type TLiveTurnError = z.infer<typeof ZLiveTurnError>;

/** What the transcript shows under a turn (ADR 102); absent when there is nothing. Never sent to the page. */
export const ZLiveTurnDetail = z.object({
  /** A spoken visitor turn: earlier versions of the recognised text, oldest first (corrections). */
  interims: z.optional(z.array(z.string().check(z.maxLength(2_000))).check(z.maxLength(L.interims))),
  /** An interrupted answer: ms of its voice played, and the whole answer's length in characters. */
  heardMs: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(3_600_000))),
  fullChars: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1_000_000))),
  calls: z.optional(z.array(ZLiveToolCallDetail).check(z.maxLength(L.calls))),
  passages: z.optional(z.array(ZLivePassageUsed).check(z.maxLength(L.passages))),
  errors: z.optional(z.array(ZLiveTurnError).check(z.maxLength(L.errors))),
});
export type TLiveTurnDetail = z.infer<typeof ZLiveTurnDetail>;

/** One turn of the conversation as both sides keep it. */
export const ZLiveHistoryEntry = z.object({
  role: z.enum(['user', 'assistant']),
  text: z.string().check(z.maxLength(20_000)),
  /** ms since 1970. */
  at: z.number(),
  /** Assistant turns cut off by the visitor keep only what was heard. */
  interrupted: z.optional(z.boolean()),
  /** The transcript's detail of the turn (ADR 102): kept by the worker and the portal, never sent to the page. */
  detail: z.optional(ZLiveTurnDetail),
});
export type TLiveHistoryEntry = z.infer<typeof ZLiveHistoryEntry>;

export const ZLiveState = z.enum(['idle', 'listening', 'thinking', 'speaking']);
export type TLiveState = z.infer<typeof ZLiveState>;

// ─── page → worker ─────────────────────────────────────────────────────────────────────────

export const ZPageHello = z.object({
  type: z.literal('hello'),
  protocol: z.literal(1),
  ticket: z.string().check(z.maxLength(2048)),
  mic: z.boolean(),
  speaker: z.boolean(),
  /** Text-only client (chat widget): the worker sends no audio. */
  textOnly: z.optional(z.boolean()),
});
export const ZPageText = z.object({
  type: z.literal('text'),
  /** Client id echoed in the transcript so the page can match its optimistic bubble. */
  id: z.optional(shortText),
  text: z.string().check(z.minLength(1), z.maxLength(2000)),
  /** sendMessageToAvatar: the avatar says this text itself instead of answering it. */
  speak: z.optional(z.boolean()),
});
export const ZPageMic = z.object({ type: z.literal('mic'), enabled: z.boolean() });
export const ZPageSpeaker = z.object({ type: z.literal('speaker'), enabled: z.boolean() });
export const ZPageInterrupt = z.object({ type: z.literal('interrupt') });
/** Playback progress of an avatar utterance as the visitor actually heard it. */
export const ZPagePlayback = z.object({
  type: z.literal('playback'),
  utt: z.number(),
  state: z.enum(['started', 'progress', 'ended']),
  playedMs: z.number(),
  /**
   * The mic frames the page had sent when it made this report (its next mic `seq`): the worker's
   * echo canceller places the avatar's voice in the mic's own time with it, whatever the network
   * or the worker's load did to when the frames arrive (ADR 103). Optional: older pages.
   */
  micSeq: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(0xffffffff))),
});
export const ZPagePing = z.object({ type: z.literal('ping'), t: z.number() });
export const ZPageBye = z.object({ type: z.literal('bye') });

export const ZPageFrame = z.discriminatedUnion('type', [ZPageHello, ZPageText, ZPageMic, ZPageSpeaker, ZPageInterrupt, ZPagePlayback, ZPagePing, ZPageBye]);
export type TPageFrame = z.infer<typeof ZPageFrame>;

// ─── worker → page ─────────────────────────────────────────────────────────────────────────

export const ZWorkerReady = z.object({
  type: z.literal('ready'),
  sessionId: z.string(),
  /** The conversation so far (non-empty after a resume). */
  history: z.array(ZLiveHistoryEntry),
  /** Sample rate of avatar audio frames (PCM16LE mono); 0 = this session sends no audio. */
  audioSampleRate: z.number(),
  /** The brain answers in echo-back mode (new avatars, or over the daily limit). */
  echo: z.boolean(),
  resumed: z.boolean(),
  /**
   * The worker listens to this session's microphone frames (VAD + speech to text are available).
   * Absent or false: the page does not offer the microphone (typed chat only).
   */
  listening: z.optional(z.boolean()),
});
export const ZWorkerStateFrame = z.object({ type: z.literal('state'), state: ZLiveState });
/** What the visitor said (typed text is confirmed final at once; speech streams interim). */
export const ZWorkerTranscript = z.object({
  type: z.literal('transcript'),
  id: z.optional(shortText),
  text: z.string(),
  final: z.boolean(),
  /**
   * The turn came before the answer with this utterance number (a speech-to-speech model answers
   * before its transcript of the question is ready): the page shows it above that answer.
   */
  beforeUtt: z.optional(z.number()),
  /**
   * A final spoken turn that continues the visitor's previous one (they had only paused; its
   * answer was withdrawn before a word was heard): the page shows it in place of that turn.
   */
  continues: z.optional(z.boolean()),
});
/** The avatar's answer, streamed: deltas, then one final frame with the whole text. */
export const ZWorkerAssistant = z.object({
  type: z.literal('assistant'),
  utt: z.number(),
  delta: z.optional(z.string()),
  text: z.optional(z.string()),
  final: z.boolean(),
  interrupted: z.optional(z.boolean()),
});
/** An avatar utterance starts/ends (audio follows between them on binary frames). */
export const ZWorkerUtterance = z.object({ type: z.literal('utterance'), utt: z.number(), phase: z.enum(['start', 'end']), text: z.optional(z.string()) });
/** Viseme timeline for an utterance: times in ms from its first audio sample. */
export const ZWorkerVisemes = z.object({
  type: z.literal('visemes'),
  utt: z.number(),
  items: z.array(z.object({ t: z.number(), v: z.string(), d: z.optional(z.number()) })),
});
export const ZWorkerWords = z.object({
  type: z.literal('words'),
  utt: z.number(),
  items: z.array(z.object({ t: z.number(), d: z.number(), w: z.string() })),
});
/**
 * Something the avatar does beside its words (a mood, a gesture: avatar-actions.ts). `t`: ms from
 * the first sample of utterance `utt` (as visemes), the moment the words after it start; the page
 * does it when its player reaches that point. Absent: at once (no voice for this utterance).
 * `source`: a tag the brain wrote, or the worker's own cue from the text's tone.
 */
export const ZWorkerAction = z.object({
  type: z.literal('action'),
  utt: z.number(),
  t: z.optional(z.number()),
  action: ZAvatarAction,
  source: z.enum(['tag', 'cue']),
});
export const ZWorkerInterrupted = z.object({ type: z.literal('interrupted'), utt: z.number(), heardMs: z.number() });
/**
 * The visitor started speaking over the avatar: hold the utterance's playback where it is (audio
 * keeps arriving and is queued). `resume` follows when no words came (a cough, its own echo),
 * `interrupted` when it was a real interruption (then flush).
 */
export const ZWorkerPause = z.object({ type: z.literal('pause'), utt: z.number() });
export const ZWorkerResume = z.object({ type: z.literal('resume'), utt: z.number() });
/** A function (tool) call, for the page's status line. */
export const ZWorkerTool = z.object({ type: z.literal('tool'), name: z.string(), status: z.enum(['started', 'ok', 'error']) });
/** Something the visitor should know that does not end the session (daily limit → echo…). */
export const ZWorkerNotice = z.object({
  type: z.literal('notice'),
  code: ZLiveCode,
  message: z.string(),
  /** too-fast: the client id of the message that was not taken (the page drops its bubble). */
  id: z.optional(shortText),
});
export const ZWorkerError = z.object({ type: z.literal('error'), code: ZLiveCode, message: z.string(), fatal: z.boolean() });
/** The session is over: the socket closes next with LiveProtocol.close.ended. */
export const ZWorkerBye = z.object({ type: z.literal('bye'), code: ZLiveCode, message: z.string() });
export const ZWorkerPong = z.object({ type: z.literal('pong'), t: z.number() });

export const ZWorkerFrame = z.discriminatedUnion('type', [
  ZWorkerReady,
  ZWorkerStateFrame,
  ZWorkerTranscript,
  ZWorkerAssistant,
  ZWorkerUtterance,
  ZWorkerVisemes,
  ZWorkerWords,
  ZWorkerAction,
  ZWorkerInterrupted,
  ZWorkerPause,
  ZWorkerResume,
  ZWorkerTool,
  ZWorkerNotice,
  ZWorkerError,
  ZWorkerBye,
  ZWorkerPong,
]);
export type TWorkerFrame = z.infer<typeof ZWorkerFrame>;
