// A conversation while the portal cannot answer its calls (its database or Redis restarting,
// ADR 078): the visitor keeps talking; heartbeats are tried again until they pass, and the
// history the portal missed is sent once it answers again.
import { describe, expect, it } from 'vitest';
import { LiveCode, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import { RpcError } from '../agent.js';
import type { Brain } from '../brains/types.js';
import { sessionConfig } from '../test/brain-deps.js';
import { Conversation, type PageSocket } from './conversation.js';
import { until } from '../test/until.js';

function fakeSocket() {
  const frames: TWorkerFrame[] = [];
  let closed: number | null = null;
  const socket: PageSocket & { frames: TWorkerFrame[]; closed: () => number | null } = {
    frames,
    closed: () => closed,
    send: (data) => frames.push(JSON.parse(data) as TWorkerFrame),
    close: (code) => (closed = code),
    get isOpen() {
      return closed === null;
    },
  };
  return socket;
}

/** The portal's side of the RPC: while `isDown`, every call fails the way the agent reports it. */
function flakyPortal() {
  const state = { isDown: false, heartbeats: { ok: 0, failed: 0 }, stored: [] as TLiveHistoryEntry[][], historyFailures: 0, ends: [] as string[] };
  return {
    state,
    link: {
      heartbeat: async () => {
        if (state.isDown) {
          state.heartbeats.failed++;
          throw new RpcError(LiveCode.serverError);
        }
        state.heartbeats.ok++;
        return { echo: false, end: null };
      },
      history: async (h: TLiveHistoryEntry[]) => {
        if (state.isDown) {
          state.historyFailures++;
          throw new RpcError('timeout');
        }
        state.stored.push(h);
      },
      end: async (code: string) => void state.ends.push(code),
    },
  };
}

const echoing: Brain = {
  kind: 'test',
  async *reply(turn) {
    yield { type: 'text', delta: `you said: ${turn.text}` };
  },
};

describe('a conversation while the portal cannot answer', () => {
  it('keeps answering; failed heartbeats are retried; the missed history is stored once the portal is back', async () => {
    const portal = flakyPortal();
    const warnings: string[] = [];
    const c = new Conversation({
      config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }),
      brain: echoing,
      portal: portal.link,
      log: { info() {}, warn: (msg) => warnings.push(msg), error() {} },
      heartbeatMs: 25,
    });
    const s = fakeSocket();
    c.attach(s);
    const finals = () => s.frames.filter((f) => f.type === 'assistant' && f.final).map((f) => (f as { text: string }).text);
    c.onMessage(JSON.stringify({ type: 'text', text: 'before' }));
    await until(() => finals().length === 1 && portal.state.stored.length > 0, 10_000, 'the first answer and its history');

    portal.state.isDown = true;
    c.onMessage(JSON.stringify({ type: 'text', text: 'during' }));
    await until(() => finals().length === 2, 10_000, 'an answer during the outage');
    await until(() => portal.state.heartbeats.failed >= 3 && portal.state.historyFailures >= 1, 10_000, 'failed heartbeats and a failed history store');
    expect(finals()).toEqual(['you said: before', 'you said: during']);
    expect(s.closed()).toBeNull();
    expect(s.frames.some((f) => f.type === 'bye' || (f.type === 'error' && f.fatal))).toBe(false);
    expect(warnings).toContain('heartbeat failed');

    const storedBefore = portal.state.stored.length;
    portal.state.isDown = false;
    await until(() => portal.state.heartbeats.ok > 0, 10_000, 'a heartbeat after the outage');
    // Nothing was said since: the history goes again only because its last store failed.
    await until(() => portal.state.stored.length > storedBefore, 10_000, 'the history stored again');
    expect(portal.state.stored.at(-1)!.map((e) => e.text)).toEqual(['before', 'you said: before', 'during', 'you said: during']);
    c.onMessage(JSON.stringify({ type: 'text', text: 'after' }));
    await until(() => finals().length === 3, 10_000, 'an answer after the outage');
    expect(s.closed()).toBeNull();
    await c.finish(LiveCode.hangUp);
    expect(portal.state.ends).toEqual([LiveCode.hangUp]);
  });
});
