import type { WebSocket } from 'ws';
import { AgentApi, NlpEngine, type TAgentDispatchSession } from '@persona/contract';
import { signTicket } from '@persona/worker';
import { agentTokenAvatar, verifyAgentToken } from './agent-token.js';

interface AgentLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface AgentsDeps {
  /** The avatar's owner, the public key of its encryption key (null: it has none) and its engine; null: no such avatar. */
  avatarAuth(avatarId: number): Promise<{ ownerUserId: number; publicKey: string | null; nlpEngine: number } | null>;
  /** The socket address a worker advertised (its agents join there); null: unknown. */
  workerUrl(workerId: number): Promise<string | null>;
  /** The agent-ticket key (worker tickets.ts agentTicketKey). */
  ticketKey: Buffer;
  log: AgentLogger;
  now?: () => Date;
}

export type AgentAuth = { ok: true; avatarId: number; ownerUserId: number; exp: number } | { ok: false; status: 401 | 403; message: string; reason: string };

interface AgentLink {
  socket: WebSocket;
  avatarId: number;
  offers: number;
}

/** Engines whose avatars are served by an external agent. */
const AGENT_ENGINES: readonly number[] = [NlpEngine.Ten, NlpEngine.CUSTOM_STT_LLM_TTS];

/**
 * Bring your own agent, the portal's part (ADR 072): authenticates agents (an ES256 token signed
 * with the avatar's encryption key), keeps their dispatch sockets per avatar and offers each
 * session of that avatar to one of them, with an agent ticket for the worker that runs it.
 * The registry is this process's memory: a session is offered by the instance its worker is
 * connected to, so agents and workers must meet on one instance until issue 16 moves it to Redis.
 */
export function createAgentsService(deps: AgentsDeps) {
  const now = deps.now ?? (() => new Date());
  const byAvatar = new Map<number, Set<AgentLink>>();

  const send = (socket: WebSocket, frame: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };

  return {
    /** Checks `Authorization: Bearer <agent token>` (before the socket is upgraded). */
    async authenticate(authorization: string | undefined): Promise<AgentAuth> {
      const refused = (reason: string, status: 401 | 403 = 401, message = 'Invalid agent token'): AgentAuth => ({ ok: false, status, message, reason });
      const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
      if (!token) return refused('missing');
      const avatarId = agentTokenAvatar(token);
      if (avatarId === null) return refused('malformed');
      const avatar = await deps.avatarAuth(avatarId);
      // The same answer for "no such avatar" and "no key": nothing about other accounts' avatars leaks.
      if (!avatar?.publicKey) return refused('no-key');
      const verdict = verifyAgentToken(token, { publicKey: avatar.publicKey, avatarId, now: now() });
      if (!verdict.ok) return refused(verdict.reason);
      if (!AGENT_ENGINES.includes(avatar.nlpEngine)) return refused('engine', 403, 'This avatar does not use an external agent (engine Ten or Custom STT/LLM/TTS)');
      return { ok: true, avatarId, ownerUserId: avatar.ownerUserId, exp: verdict.exp };
    },

    /** An authenticated dispatch socket: kept until it closes or its token expires. */
    attach(socket: WebSocket, auth: Extract<AgentAuth, { ok: true }>) {
      const links = byAvatar.get(auth.avatarId) ?? new Set<AgentLink>();
      if (links.size >= AgentApi.maxAgentsPerAvatar) {
        socket.close(AgentApi.dispatchClose.tooMany, 'too many agents for this avatar');
        return;
      }
      byAvatar.set(auth.avatarId, links);
      const link: AgentLink = { socket, avatarId: auth.avatarId, offers: 0 };
      links.add(link);
      const expiresAt = auth.exp * 1000;
      const expiry = setTimeout(() => socket.close(AgentApi.dispatchClose.tokenExpired, 'agent token expired'), Math.max(0, expiresAt - now().getTime()));
      expiry.unref();
      let window = 0;
      let count = 0;
      socket.on('message', (data, isBinary) => {
        const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : Buffer.isBuffer(data) ? data.length : data.byteLength;
        const second = Math.floor(Date.now() / 1000);
        if (second !== window) [window, count] = [second, 0];
        if (isBinary || size > AgentApi.maxDispatchFrame || ++count > 20) return socket.close(AgentApi.dispatchClose.badFrame, 'bad frame');
        let frame: { type?: unknown; t?: unknown } | null = null;
        try {
          frame = JSON.parse(String(data)) as { type?: unknown; t?: unknown };
        } catch {
          frame = null;
        }
        if (frame?.type === 'ping') send(socket, { type: 'pong', ...(typeof frame.t === 'number' ? { t: frame.t } : {}) });
        else socket.close(AgentApi.dispatchClose.badFrame, 'bad frame');
      });
      socket.on('close', () => {
        clearTimeout(expiry);
        links.delete(link);
        if (links.size === 0 && byAvatar.get(auth.avatarId) === links) byAvatar.delete(auth.avatarId);
      });
      socket.on('error', () => undefined);
      send(socket, { type: 'welcome', protocol: AgentApi.version, avatarId: auth.avatarId, expiresAt });
      deps.log.info({ avatarId: auth.avatarId, agents: links.size }, 'agent connected');
    },

    /**
     * Offers a session to an agent of its avatar (the one with the fewest offers so far): a ticket
     * for that worker and session only. False when no agent of this avatar is connected here.
     */
    async offer(input: { sessionId: string; avatarId: number; workerId: number }): Promise<boolean> {
      const open = [...(byAvatar.get(input.avatarId) ?? [])].filter((l) => l.socket.readyState === l.socket.OPEN);
      if (open.length === 0) return false;
      const wsUrl = await deps.workerUrl(input.workerId);
      if (!wsUrl) return false;
      const link = open.reduce((a, b) => (b.offers < a.offers ? b : a));
      link.offers++;
      const { ticket } = signTicket(deps.ticketKey, { sid: input.sessionId, wid: input.workerId, aid: input.avatarId }, now().getTime());
      const frame: TAgentDispatchSession = { type: 'session', sessionId: input.sessionId, avatarId: input.avatarId, wsUrl, ticket };
      send(link.socket, frame);
      deps.log.info({ avatarId: input.avatarId, sessionId: input.sessionId, workerId: input.workerId }, 'session offered to an agent');
      return true;
    },

    /** Dispatch sockets open for an avatar (this instance). */
    connected: (avatarId: number) => byAvatar.get(avatarId)?.size ?? 0,

    close() {
      for (const links of byAvatar.values()) for (const l of links) l.socket.close(1001, 'server shutting down');
      byAvatar.clear();
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
