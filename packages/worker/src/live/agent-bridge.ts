import WebSocket from 'ws';
import { AgentApi, LiveCode, LiveMessages, LiveProtocol, ZAgentHello, type TAgentServerFrame } from '@persona/contract';
import type { WorkerLogger } from '../agent.js';
import { RealtimeNoticeError } from '../providers/realtime/types.js';
import type { TtsEngine } from '../providers/tts/types.js';
import type { ConversationListening } from '../listening/turns.js';
import { createTicketVerifier } from './tickets.js';

export const EXTERNAL_AGENT = 'external-agent';

/** An agent that joined a session: its socket (past the hello) and the rate of its audio. */
export interface JoinedAgent {
  socket: WebSocket;
  sampleRate: number;
  sessionId: string;
  /** The agent asked for the worker's transcripts of the visitor. */
  transcripts: boolean;
}

/** How one session's connector gets its agent: offered by the portal, joined here. */
export interface AgentJoiner {
  join(signal: AbortSignal): Promise<JoinedAgent>;
  /** The avatar's voice for the agent's `speak` frames (made on first use; null: none here). */
  voice?: () => TtsEngine | null;
  /** The avatar's VAD and speech to text, for agents that ask for transcripts (null: none here). */
  listening?: () => ConversationListening | null;
}

export interface AgentBridgeOptions {
  /** The agent-ticket key (tickets.ts agentTicketKey), or where to read it (given at registration). */
  key: Buffer | (() => Buffer | null);
  workerId: () => number | null;
  /** Asks the portal to offer the session to an agent of its avatar (rpc agent.offer). */
  offer: (sessionId: string) => Promise<boolean>;
  log: WorkerLogger;
  joinTimeoutMs?: number;
}

interface Waiter {
  avatarId: number;
  resumed: boolean;
  resolve: (agent: JoinedAgent) => void;
}

const sendJson = (ws: WebSocket, frame: TAgentServerFrame) => {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
};

/** Closes an agent socket with an error frame first. */
export function refuseAgent(ws: WebSocket, code: string, message: string, closeCode: number) {
  sendJson(ws, { type: 'error', code, message });
  if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(closeCode, code);
}

/**
 * The worker's end of the agent API (ADR 072). A session of an `agent` brain asks the portal to
 * offer it (`agent.offer`); the portal hands a connected agent of that avatar this worker's
 * socket address and an agent ticket; the agent opens the socket and says `agent.hello` with it
 * (the runtime routes that first frame here). The ticket must be for this worker, unexpired,
 * unused, and name a session waiting here for an agent of the same avatar.
 */
export function createAgentBridge(opts: AgentBridgeOptions) {
  const verifier = createTicketVerifier(opts.key, { workerId: opts.workerId });
  const waiting = new Map<string, Waiter>();
  const joinTimeoutMs = opts.joinTimeoutMs ?? AgentApi.joinTimeoutMs;

  const notConnected = (why: string) => new RealtimeNoticeError(EXTERNAL_AGENT, LiveCode.agentNotConnected, why);

  return {
    /** True when a first frame is an agent's hello (not a page's). */
    isAgentHello(raw: string): boolean {
      return raw.includes('"agent.hello"');
    },

    /** The joiner of one session (its avatar is what an agent's ticket must name). */
    forSession(sessionId: string, avatarId: number, resumed: boolean, extras: Pick<AgentJoiner, 'voice' | 'listening'> = {}): AgentJoiner {
      return {
        ...extras,
        async join(signal) {
          if (signal.aborted) throw notConnected('the session ended');
          if (waiting.has(sessionId)) throw notConnected('an agent is already being waited for');
          let timer: NodeJS.Timeout | undefined;
          let onAbort: (() => void) | undefined;
          let mine: Waiter | undefined;
          const joined = new Promise<JoinedAgent>((resolve, reject) => {
            mine = { avatarId, resumed, resolve };
            waiting.set(sessionId, mine);
            timer = setTimeout(() => reject(notConnected('the agent did not join in time')), joinTimeoutMs);
            onAbort = () => reject(notConnected('the session ended'));
            signal.addEventListener('abort', onAbort, { once: true });
          });
          // A rejection while the offer is still being asked must not count as unhandled.
          joined.catch(() => undefined);
          try {
            const offered = await opts.offer(sessionId);
            if (!offered) throw notConnected('no agent is connected for the avatar');
            return await joined;
          } finally {
            clearTimeout(timer);
            if (onAbort) signal.removeEventListener('abort', onAbort);
            if (waiting.get(sessionId) === mine) waiting.delete(sessionId);
          }
        },
      };
    },

    /** An agent's first frame (`agent.hello`); the socket is its from now on or closed. */
    accept(ws: WebSocket, raw: string) {
      let hello;
      try {
        const parsed = ZAgentHello.safeParse(JSON.parse(raw));
        hello = parsed.success ? parsed.data : null;
      } catch {
        hello = null;
      }
      if (!hello || !(AgentApi.sampleRates as readonly number[]).includes(hello.sampleRate)) {
        return refuseAgent(ws, LiveCode.badFrame, `agent.hello needs protocol 1, a ticket and a sampleRate of ${AgentApi.sampleRates.join(', ')}`, AgentApi.close.badFrame);
      }
      const check = verifier.verify(hello.ticket);
      if (!check.ok) {
        opts.log.warn('agent ticket refused', { reason: check.reason });
        return refuseAgent(ws, LiveCode.ticketInvalid, LiveMessages['ticket-invalid'], AgentApi.close.ticketRefused);
      }
      const waiter = waiting.get(check.claims.sid);
      // Object ownership: the ticket's avatar must be the session's (a ticket names both).
      if (!waiter || waiter.avatarId !== check.claims.aid) {
        opts.log.warn('agent joined a session that does not wait for it', { sessionId: check.claims.sid });
        return refuseAgent(ws, LiveCode.sessionNotFound, LiveMessages['session-not-found'], AgentApi.close.ended);
      }
      waiting.delete(check.claims.sid);
      sendJson(ws, { type: 'joined', sessionId: check.claims.sid, avatarId: check.claims.aid, micSampleRate: LiveProtocol.micSampleRate, resumed: waiter.resumed });
      opts.log.info('agent joined a live session', { sessionId: check.claims.sid, avatarId: check.claims.aid, sampleRate: hello.sampleRate });
      waiter.resolve({ socket: ws, sampleRate: hello.sampleRate, sessionId: check.claims.sid, transcripts: hello.transcripts === true });
    },
  };
}

export type AgentBridge = ReturnType<typeof createAgentBridge>;
