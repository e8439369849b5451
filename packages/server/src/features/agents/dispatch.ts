import { randomUUID } from 'node:crypto';
import { AgentApi, type TAgentDispatchSession } from '@persona/contract';

/** A dispatch socket as the registry knows it: an id unique across instances, and its avatar. */
export interface AgentLinkRef {
  linkId: string;
  avatarId: number;
}

/** Sends an offer on one of this instance's own dispatch sockets: false when it is not here (or no longer open). */
export type DeliverLocally = (linkId: string, frame: TAgentDispatchSession) => boolean;

/**
 * Which instance holds which agents' dispatch sockets, per avatar, and the way an offer reaches
 * the chosen one (ADR 072). Without REDIS_URL there is one instance and this is its
 * memory; with it, Redis keeps the entries (refreshed by a heartbeat, so a killed instance's
 * expire) and carries offers to the holding instance over pub/sub (features/agents/redis-dispatch.ts).
 */
export interface AgentDispatch {
  readonly kind: 'memory' | 'redis';
  /** This instance, as the holder of its own dispatch sockets. */
  readonly instanceId: string;
  /** How this instance hands an offer to one of its own sockets (the agents service sets it once). */
  serve(deliver: DeliverLocally): void;
  /** Registers a dispatch socket held here; false when its avatar already has `AgentApi.maxAgentsPerAvatar` (all instances). */
  add(link: AgentLinkRef): Promise<boolean>;
  /** Forgets a dispatch socket at once (it closed). */
  remove(link: AgentLinkRef): Promise<void>;
  /**
   * Offers a session to one connected agent of its avatar, on whichever instance holds it: the
   * agent with the fewest offers so far (ties: the one connected first). Entries found dead on
   * the way are removed and the next agent is tried. False: no agent of the avatar took it.
   */
  offer(frame: TAgentDispatchSession): Promise<boolean>;
  /** Dispatch sockets open for an avatar, on every instance. */
  count(avatarId: number): Promise<number>;
  /** Forgets this instance's entries and stops listening. */
  close(): Promise<void>;
}

/** The one-instance registry: this process's memory. */
export function createMemoryAgentDispatch(): AgentDispatch {
  const byAvatar = new Map<number, Map<string, { offers: number }>>();
  let deliver: DeliverLocally = () => false;
  const forget = ({ linkId, avatarId }: AgentLinkRef) => {
    const links = byAvatar.get(avatarId);
    links?.delete(linkId);
    if (links?.size === 0) byAvatar.delete(avatarId);
  };
  return {
    kind: 'memory',
    instanceId: randomUUID(),
    serve: (fn) => void (deliver = fn),
    async add({ linkId, avatarId }) {
      const links = byAvatar.get(avatarId) ?? new Map<string, { offers: number }>();
      if (links.size >= AgentApi.maxAgentsPerAvatar) return false;
      links.set(linkId, { offers: 0 });
      byAvatar.set(avatarId, links);
      return true;
    },
    remove: async (link) => forget(link),
    async offer(frame) {
      for (;;) {
        const links = [...(byAvatar.get(frame.avatarId) ?? [])];
        if (links.length === 0) return false;
        // Maps keep insertion order: among equals the first connected wins.
        const [linkId, entry] = links.reduce((a, b) => (b[1].offers < a[1].offers ? b : a));
        entry.offers++;
        if (deliver(linkId, frame)) return true;
        forget({ linkId, avatarId: frame.avatarId });
      }
    },
    count: async (avatarId) => byAvatar.get(avatarId)?.size ?? 0,
    async close() {
      byAvatar.clear();
    },
  };
}
