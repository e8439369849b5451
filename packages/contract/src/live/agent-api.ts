// zod/mini, like the rest of the live contract (the avatar page imports this folder's index).
import { z } from 'zod/mini';
import type { ZLiveHistoryEntry } from './protocol.js';

/**
 * Bring your own agent (None mode, engines Ten and CUSTOM_STT_LLM_TTS; ADR 072): an external agent,
 * authenticated with the avatar's encryption key, keeps a dispatch socket open to the portal
 * (`AgentApi.dispatchPath`), is offered each visitor session of its avatar, joins the session on
 * the worker that runs it, hears the visitor and answers with audio the avatar lip-syncs.
 * Documented for customers in docs/agent-api.md.
 */
export const AgentApi = {
  version: 1,
  /** GET (WebSocket) on the portal: `Authorization: Bearer <agent token>`. */
  dispatchPath: '/api/agent/ws',
  /** The agent token's audience (`aud`); `sub` is the avatar id (a decimal string). */
  audience: 'persona-agent',
  /** An agent token may live at most this long (exp − now, clock skew added). */
  maxTokenSeconds: 3600,
  /** Dispatch sockets per avatar, all portal instances together. */
  maxAgentsPerAvatar: 10,
  /** Largest JSON frame on the dispatch socket. */
  maxDispatchFrame: 1024,
  /** How long a visitor's session waits for the offered agent to join the worker. */
  joinTimeoutMs: 10_000,
  /** Sample rates an agent may declare for its audio (PCM16LE mono). */
  sampleRates: [8000, 16_000, 22_050, 24_000, 44_100, 48_000],
  /** Audio an agent may send ahead of real time (seconds), refilled at `audioRefillFactor` × real time. */
  audioBurstSeconds: 30,
  audioRefillFactor: 3,
  /** JSON frames per second an agent may send on a session socket (burst `jsonBurst`). */
  jsonPerSecond: 50,
  jsonBurst: 200,
  /** `speak` frames waiting for the voice at most (more are refused with an error frame). */
  maxQueuedSpeak: 20,
  /** Characters of an answer's text (longer is cut). */
  maxAnswerChars: 20_000,
  /** Close codes on the agent's session socket (the page's codes where they mean the same). */
  close: {
    ended: 4000,
    ticketRefused: 4001,
    badFrame: 4002,
    goingAway: 4003,
    /** Too much audio or too many frames. */
    rateLimited: 4008,
  },
  /** Close codes on the dispatch socket. */
  dispatchClose: {
    /** The agent token expired: connect again with a new one. */
    tokenExpired: 4001,
    badFrame: 4002,
    /** Too many agents connected for this avatar. */
    tooMany: 4029,
  },
} as const;

// ─── dispatch socket (portal → agent) ───────────────────────────────────────────────────────

export const ZAgentDispatchWelcome = z.object({
  type: z.literal('welcome'),
  protocol: z.literal(1),
  avatarId: z.number(),
  /** When the portal closes this socket (the token's exp, ms since 1970): reconnect before. */
  expiresAt: z.number(),
});
/** A visitor opened a session: join it within `AgentApi.joinTimeoutMs`. */
export const ZAgentDispatchSession = z.object({
  type: z.literal('session'),
  sessionId: z.string(),
  avatarId: z.number(),
  /** The worker's socket; send `agent.hello` with the ticket first. */
  wsUrl: z.string(),
  /** Single use, for that worker and session only, ~60 s. */
  ticket: z.string(),
});
export type TAgentDispatchSession = z.infer<typeof ZAgentDispatchSession>;

// ─── session socket (agent ⇄ worker) ───────────────────────────────────────────────────────

export const ZAgentHello = z.object({
  type: z.literal('agent.hello'),
  protocol: z.literal(1),
  ticket: z.string().check(z.maxLength(2048)),
  /** The rate of the PCM16LE mono audio the agent will send (one of AgentApi.sampleRates). */
  sampleRate: z.number(),
  /** The worker transcribes the visitor with the avatar's speech to text and sends `transcript` frames. */
  transcripts: z.optional(z.boolean()),
});

const shortId = z.string().check(z.minLength(1), z.maxLength(64));

/** What the agent may send on its session socket (JSON; audio is binary). */
export const ZAgentFrame = z.discriminatedUnion('type', [
  /** An answer begins (optional: audio or text without it begins one). */
  z.object({ type: z.literal('response.start'), responseId: z.optional(shortId) }),
  /** Words of the answer, shown with its audio (or alone: a text-only answer). */
  z.object({ type: z.literal('text'), delta: z.string().check(z.maxLength(4000)) }),
  z.object({ type: z.literal('response.end') }),
  /** Words for the avatar to say with its own voice (the avatar's TTS, else the default voice): one answer each, in order. */
  z.object({ type: z.literal('speak'), text: z.string().check(z.minLength(1), z.maxLength(2000)) }),
  /** The visitor's words as the agent's own STT heard them (interim or final). */
  z.object({ type: z.literal('transcript'), text: z.string().check(z.maxLength(2000)), final: z.boolean() }),
  /** Stop the avatar now (the agent's VAD heard the visitor, or it changed its mind). */
  z.object({ type: z.literal('interrupt') }),
  z.object({ type: z.literal('ping'), t: z.optional(z.number()) }),
]);
export type TAgentFrame = z.infer<typeof ZAgentFrame>;

/** What the worker sends the agent (JSON; the visitor's mic audio is binary, 16 kHz). */
export type TAgentServerFrame =
  | { type: 'joined'; sessionId: string; avatarId: number; micSampleRate: number; resumed: boolean }
  /** The conversation so far (a resume): oldest first. */
  | { type: 'history'; entries: z.infer<typeof ZLiveHistoryEntry>[] }
  /** The visitor's words (hello `transcripts: true`): interim hypotheses, then the final text to answer. */
  | { type: 'transcript'; text: string; final: boolean }
  /** The visitor typed this: answer it. */
  | { type: 'user.text'; text: string }
  /** Say exactly this (the greeting, the host page's sendMessageToAvatar). */
  | { type: 'say'; text: string }
  /** The visitor interrupted the answer after hearing `heardMs` of its audio (null: not known). */
  | { type: 'interrupted'; responseId: string | null; heardMs: number | null }
  | { type: 'pong'; t?: number }
  | { type: 'error'; code: string; message: string }
  | { type: 'bye'; reason: string };
