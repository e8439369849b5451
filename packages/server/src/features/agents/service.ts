import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { AgentApi, NlpEngine, type TAgentDispatchSession } from '@persona/contract';
import { signTicket } from '@persona/worker';
import { agentTokenAvatar, verifyAgentToken } from './agent-token.js';
import { createMemoryAgentDispatch, type AgentDispatch } from './dispatch.js';

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
  /** Which instance holds which agents (Redis with REDIS_URL); defaults to this process's memory. */
  dispatch?: AgentDispatch;
  log: AgentLogger;
  now?: () => Date;
}

export type AgentAuth = { ok: true; avatarId: number; ownerUserId: number; exp: number } | { ok: false; status: 401 | 403; message: string; reason: string };

interface AgentLink {
  socket: WebSocket;
  avatarId: number;
}

/** Close code of a dispatch socket that could not be registered (Redis unreachable): connect again later. */
const TRY_AGAIN_LATER = 1013;

/** Engines whose avatars are served by an external agent. */
const AGENT_ENGINES: readonly number[] = [NlpEngine.Ten, NlpEngine.CUSTOM_STT_LLM_TTS];

/**
 * Bring your own agent, the portal's part (ADR 072): authenticates agents (an ES256 token signed
 * with the avatar's encryption key), keeps their dispatch sockets per avatar and offers each
 * session of that avatar to one of them, with an agent ticket for the worker that runs it.
 * The sockets are this instance's; which instance holds which agents is the dispatch registry's
 * (Redis with several instances), so the instance a worker asks reaches an agent
 * connected to any other.
 */
export function createAgentsService(deps: AgentsDeps) {
  const now = deps.now ?? (() => new Date());
  const dispatch = deps.dispatch ?? createMemoryAgentDispatch();
  /** This instance's dispatch sockets, by link id. */
  const links = new Map<string, AgentLink>();

  const connectedHere = (avatarId: number) => {
    let n = 0;
    for (const l of links.values()) if (l.avatarId === avatarId) n++;
    return n;
  };
  const send = (socket: WebSocket, frame: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };
  // An offer for a socket of this instance (chosen here or by another instance): only to an open
  // socket of the session's own avatar.
  dispatch.serve((linkId, frame) => {
    const link = links.get(linkId);
    if (!link || link.avatarId !== frame.avatarId || link.socket.readyState !== link.socket.OPEN) return false;
    send(link.socket, frame);
    return true;
  });

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

    /**
     * An authenticated dispatch socket: registered (at most `AgentApi.maxAgentsPerAvatar` per
     * avatar on all instances), welcomed, and kept until it closes or its token expires.
     */
    async attach(socket: WebSocket, auth: Extract<AgentAuth, { ok: true }>): Promise<void> {
      const ref = { linkId: randomUUID(), avatarId: auth.avatarId };
      const link: AgentLink = { socket, avatarId: auth.avatarId };
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
      let isClosed = false;
      socket.on('close', () => {
        isClosed = true;
        clearTimeout(expiry);
        // Gone at once: no offer is sent its way any more, on any instance.
        if (links.delete(ref.linkId)) dispatch.remove(ref).catch((err: unknown) => deps.log.warn({ err, avatarId: ref.avatarId }, 'agent not removed from the dispatch registry'));
      });
      socket.on('error', () => undefined);

      let isAdmitted: boolean;
      try {
        isAdmitted = await dispatch.add(ref);
      } catch (err) {
        deps.log.warn({ err, avatarId: auth.avatarId }, 'agent dispatch registry unavailable');
        socket.close(TRY_AGAIN_LATER, 'try again later');
        return;
      }
      if (!isAdmitted) {
        socket.close(AgentApi.dispatchClose.tooMany, 'too many agents for this avatar');
        return;
      }
      if (isClosed) {
        await dispatch.remove(ref).catch(() => undefined);
        return;
      }
      links.set(ref.linkId, link);
      send(socket, { type: 'welcome', protocol: AgentApi.version, avatarId: auth.avatarId, expiresAt });
      deps.log.info({ avatarId: auth.avatarId, agentsHere: connectedHere(auth.avatarId) }, 'agent connected');
    },

    /**
     * Offers a session to an agent of its avatar (the one with the fewest offers so far, on
     * whichever instance it is connected): a ticket for that worker and session only. False when
     * no agent of this avatar is connected anywhere (or the registry cannot be reached).
     */
    async offer(input: { sessionId: string; avatarId: number; workerId: number }): Promise<boolean> {
      const wsUrl = await deps.workerUrl(input.workerId);
      if (!wsUrl) return false;
      const { ticket } = signTicket(deps.ticketKey, { sid: input.sessionId, wid: input.workerId, aid: input.avatarId }, now().getTime());
      const frame: TAgentDispatchSession = { type: 'session', sessionId: input.sessionId, avatarId: input.avatarId, wsUrl, ticket };
      let isOffered: boolean;
      try {
        isOffered = await dispatch.offer(frame);
      } catch (err) {
        deps.log.warn({ err, avatarId: input.avatarId, sessionId: input.sessionId }, 'agent dispatch registry unavailable');
        return false;
      }
      if (isOffered) deps.log.info({ avatarId: input.avatarId, sessionId: input.sessionId, workerId: input.workerId }, 'session offered to an agent');
      return isOffered;
    },

    /** Dispatch sockets open for an avatar on this instance. */
    connected: connectedHere,

    /** Dispatch sockets open for an avatar on every instance. */
    connectedEverywhere: (avatarId: number) => dispatch.count(avatarId),

    /** Where the registry lives: 'redis' with REDIS_URL (shared by the instances), else 'memory'. */
    dispatchKind: dispatch.kind,

    async close() {
      const open = [...links.values()];
      links.clear();
      for (const l of open) l.socket.close(1001, 'server shutting down');
      await dispatch.close();
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
