import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { AgentApi, LiveCode } from '@persona/contract';
import { RealtimeNoticeError } from '../providers/realtime/types.js';
import { createAgentBridge } from './agent-bridge.js';
import { agentTicketKey, signTicket, ticketKey } from './tickets.js';

const SECRET = 'bridge-test-secret-0123456789';
const quiet = { info() {}, warn() {}, error() {} };
let wss: WebSocketServer;
let url: string;
let bridge: ReturnType<typeof createAgentBridge>;
let offers: string[] = [];
let offerAnswer = true;

beforeAll(async () => {
  bridge = createAgentBridge({
    key: agentTicketKey(SECRET),
    workerId: () => 7,
    offer: async (sid) => {
      offers.push(sid);
      return offerAnswer;
    },
    log: quiet,
    joinTimeoutMs: 300,
  });
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws) => ws.once('message', (d) => bridge.accept(ws, String(d))));
  await new Promise((r) => wss.once('listening', r));
  url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => wss.close(() => r())));

function agentSocket(ticket: string) {
  const ws = new WebSocket(url);
  const frames: Record<string, unknown>[] = [];
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  ws.on('open', () => ws.send(JSON.stringify({ type: 'agent.hello', protocol: 1, ticket, sampleRate: 16_000 })));
  ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Record<string, unknown>));
  return { ws, frames, closed };
}

describe('agent bridge (worker)', () => {
  it('an agent with a ticket for this worker, session and avatar joins the waiting session', async () => {
    offers = [];
    offerAnswer = true;
    const joining = bridge.forSession('s1', 11, false).join(new AbortController().signal);
    const { ticket } = signTicket(agentTicketKey(SECRET), { sid: 's1', wid: 7, aid: 11 });
    const a = agentSocket(ticket);
    const joined = await joining;
    expect(joined).toMatchObject({ sessionId: 's1', sampleRate: 16_000 });
    expect(offers).toEqual(['s1']);
    await new Promise((r) => setTimeout(r, 50));
    expect(a.frames[0]).toMatchObject({ type: 'joined', sessionId: 's1', avatarId: 11 });
    a.ws.close();
  });

  it('refuses a ticket naming another avatar, another worker, or signed with the page key; times out with a notice error', async () => {
    offerAnswer = true;
    const joining = bridge.forSession('s2', 11, false).join(new AbortController().signal);
    const otherAvatar = agentSocket(signTicket(agentTicketKey(SECRET), { sid: 's2', wid: 7, aid: 12 }).ticket);
    expect(await otherAvatar.closed).toBe(AgentApi.close.ended);
    const otherWorker = agentSocket(signTicket(agentTicketKey(SECRET), { sid: 's2', wid: 8, aid: 11 }).ticket);
    expect(await otherWorker.closed).toBe(AgentApi.close.ticketRefused);
    const pageTicket = agentSocket(signTicket(ticketKey(SECRET), { sid: 's2', wid: 7, aid: 11 }).ticket);
    expect(await pageTicket.closed).toBe(AgentApi.close.ticketRefused);
    const err = await joining.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RealtimeNoticeError);
    expect((err as RealtimeNoticeError).code).toBe(LiveCode.agentNotConnected);
  });

  it('no agent connected: the portal says so and the join fails at once; a bad hello is refused', async () => {
    offerAnswer = false;
    const began = Date.now();
    const err = await bridge.forSession('s3', 11, false).join(new AbortController().signal).catch((e: unknown) => e);
    expect((err as RealtimeNoticeError).code).toBe(LiveCode.agentNotConnected);
    expect(Date.now() - began).toBeLessThan(250);
    const bad = new WebSocket(url);
    bad.on('open', () => bad.send(JSON.stringify({ type: 'agent.hello', protocol: 1, ticket: 'x', sampleRate: 12_345 })));
    expect(await new Promise((r) => bad.on('close', (c) => r(c)))).toBe(AgentApi.close.badFrame);
  });
});
