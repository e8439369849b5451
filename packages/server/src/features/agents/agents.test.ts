import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eq } from 'drizzle-orm';
import { AgentApi, AudioFrameKind, LiveCode, LiveMessages, LivePaths, writeAudioFrame, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { PageClient, startEmbeddedWorker, until } from '../../test/live.js';
import { avatars, encryptionKeys, liveSessions } from '../../db/schema/index.js';
import { generateEs256KeyPair, mintAvatarToken, type KeyPairPem } from '../encryption-keys/avatar-token.js';
// The example agent of docs/agent-api.md, run as customers would run it.
import { signAgentToken, startEchoAgent } from '../../../../../docs/examples/echo-agent.mjs';

let t: TestContext;
let base: string;
let worker: LiveWorkerHandle;
const pages: PageClient[] = [];
const closers: (() => void)[] = [];
const quiet = { info() {}, warn() {} };

interface Fixture {
  id: number;
  key: KeyPairPem;
}
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
let other: Awaited<ReturnType<typeof createSignedInUser>>;

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS: 'off' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await createSignedInUser(t.app, t.database);
  other = await createSignedInUser(t.app, t.database);
  worker = await startEmbeddedWorker(t, base);
});
afterAll(async () => {
  for (const c of closers) c();
  for (const p of pages) p.close();
  await worker?.stop();
  await t?.close();
});

/** An avatar of `userId` with engine `nlpEngine` protected by a key of its own. */
async function avatarWithKey(userId: number, nlpEngine = 12, name = 'Agent face'): Promise<Fixture> {
  const key = generateEs256KeyPair();
  const [k] = await t.database.db.insert(encryptionKeys).values({ userId, name: `${name} key`, publicKey: key.publicKey, privateKeySealed: null, isDefault: false }).returning();
  const [a] = await t.database.db
    .insert(avatars)
    .values({ userId, name, nlpEngine, setupMode: 3, config: { wakeUpMessage: 'Hello, I am the agent.', idleTimeout: 300, encKeyId: k!.id } })
    .returning();
  return { id: a!.id, key };
}

async function start(a: Fixture, opts: { voice?: boolean } = {}) {
  const token = mintAvatarToken(a.key.privateKey, { avatarId: a.id, expiresInSeconds: 600 });
  const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: a.id, token } });
  const body = res.json() as TLiveStartAnswer;
  expect(body.status).toBe('OK');
  const p = new PageClient(body, { voice: opts.voice ?? true });
  pages.push(p);
  await p.waitFor('ready');
  return p;
}

/** Opens the dispatch socket with a token: the HTTP status of a refusal, or the open socket and its frames. */
function dispatch(token: string): Promise<{ status: number; ws?: WebSocket; frames: Record<string, unknown>[] }> {
  const url = `${base.replace(/^http/, 'ws')}${AgentApi.dispatchPath}`;
  return new Promise((resolve) => {
    const frames: Record<string, unknown>[] = [];
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, frames }));
    ws.on('error', () => undefined);
    ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as Record<string, unknown>;
      frames.push(f);
      if (f.type === 'welcome') resolve({ status: 101, ws, frames });
    });
    closers.push(() => ws.terminate());
  });
}

/** A hand-written agent's session socket (for frames the echo agent does not send). */
function joinAs(offer: { wsUrl: string; ticket: string }, sampleRate = 16_000) {
  const ws = new WebSocket(offer.wsUrl);
  const frames: Record<string, unknown>[] = [];
  const mic: Buffer[] = [];
  let closeCode: number | null = null;
  ws.on('open', () => ws.send(JSON.stringify({ type: 'agent.hello', protocol: 1, ticket: offer.ticket, sampleRate })));
  ws.on('message', (d, isBinary) => (isBinary ? mic.push(d as Buffer) : frames.push(JSON.parse(String(d)) as Record<string, unknown>)));
  ws.on('close', (code) => (closeCode = code));
  ws.on('error', () => undefined);
  closers.push(() => ws.terminate());
  return { ws, frames, mic, closed: () => closeCode, json: (f: object) => ws.send(JSON.stringify(f)) };
}

const sessionOffers = (frames: Record<string, unknown>[]) => frames.filter((f) => f.type === 'session') as unknown as { sessionId: string; wsUrl: string; ticket: string; avatarId: number }[];

describe('bring your own agent (engines Ten and Custom STT/LLM/TTS)', () => {
  it('the example agent joins a visitor’s session: greeting, typed text answered with audio the page plays, history kept, mic audio reaches the agent', async () => {
    const a = await avatarWithKey(owner.id, 12);
    const agent = startEchoAgent({ portalUrl: base, avatarId: a.id, privateKeyPem: a.key.privateKey, log: quiet });
    closers.push(() => agent.close());
    await agent.welcomed;
    expect(t.app.agents.connected(a.id)).toBe(1);

    const p = await start(a);
    const ready = p.of('ready')[0]!;
    expect(ready.audioSampleRate).toBe(24_000);
    // The wake-up message, said by the agent.
    const greeting = await p.waitFor('assistant', (f) => f.final && f.text === 'Hello, I am the agent.');
    expect(agent.stats.joined).toBe(1);

    p.text('Is anyone there?');
    const answer = await p.waitFor('assistant', (f) => f.final && f.text === 'You said: Is anyone there?');
    expect(answer.utt).not.toBe(greeting.utt);
    expect(agent.stats.heard).toEqual(['Is anyone there?']);
    // One utterance: start, audio frames of that utterance (resampled 16 → 24 kHz), the last frame, end.
    await p.waitFor('utterance', (f) => f.utt === answer.utt && f.phase === 'end');
    expect(p.of('utterance').filter((f) => f.utt === answer.utt).map((f) => f.phase)).toEqual(['start', 'end']);
    const frames = p.audio.filter((b) => b[0] === AudioFrameKind.avatar && b.readUInt16LE(2) === answer.utt);
    const samples = frames.reduce((n, b) => n + (b.length - 8) / 2, 0);
    // "You said: Is anyone there?" = 26 characters × 60 ms of tone at 16 kHz, played at 24 kHz.
    expect(samples).toBeGreaterThan(24_000 * 1.5);
    expect(frames.at(-1)![1]).toBe(1); // the last frame is flagged

    // The visitor's microphone goes to the agent (16 kHz, the page's header).
    p.send({ type: 'mic', enabled: true });
    for (let seq = 0; seq < 10; seq++) p.socket.send(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq }, new Uint8Array(640)));
    await until(() => agent.stats.micFrames >= 10, 5000, 'mic frames at the agent');

    // The history (on the portal) has both sides.
    await until(async () => {
      const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.avatarId, a.id));
      return (row?.history ?? []).some((h) => h.role === 'assistant' && h.text === 'You said: Is anyone there?');
    });
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.avatarId, a.id));
    expect(row!.history.map((h) => [h.role, h.text])).toEqual([
      ['assistant', 'Hello, I am the agent.'],
      ['user', 'Is anyone there?'],
      ['assistant', 'You said: Is anyone there?'],
    ]);
    p.send({ type: 'bye' });
  });

  it('without a connected agent the visitor is told so, and the session stays up', async () => {
    const a = await avatarWithKey(owner.id, 8, 'TEN face');
    const p = await start(a, { voice: false });
    expect(await p.waitFor('notice')).toEqual({ type: 'notice', code: LiveCode.agentNotConnected, message: LiveMessages['agent-not-connected'] });
    expect(p.of('error')).toEqual([]);
    // An agent connecting later is offered the session at the visitor's next message.
    const agent = startEchoAgent({ portalUrl: base, avatarId: a.id, privateKeyPem: a.key.privateKey, log: quiet });
    closers.push(() => agent.close());
    await agent.welcomed;
    p.text('Now?');
    await p.waitFor('assistant', (f) => f.final && f.text === 'You said: Now?');
    p.send({ type: 'bye' });
  });

  it('agent tokens: only the avatar’s own key, aud persona-agent, at most an hour; never a visitor token; engine checked', async () => {
    const a = await avatarWithKey(owner.id, 12, 'Mine');
    const b = await avatarWithKey(owner.id, 12, 'Also mine');
    const foreign = await avatarWithKey(other.id, 12, 'Theirs');
    const llm = await avatarWithKey(owner.id, 10, 'Not an agent avatar');

    expect((await dispatch(signAgentToken(a.key.privateKey, a.id))).status).toBe(101);
    // A's key for B, another account's key for A, a key for an avatar that does not exist.
    expect((await dispatch(signAgentToken(a.key.privateKey, b.id))).status).toBe(401);
    expect((await dispatch(signAgentToken(foreign.key.privateKey, a.id))).status).toBe(401);
    expect((await dispatch(signAgentToken(a.key.privateKey, 999_999))).status).toBe(401);
    // The visitor's avatar token (no aud) is not an agent token.
    expect((await dispatch(mintAvatarToken(a.key.privateKey, { avatarId: a.id, expiresInSeconds: 600 }))).status).toBe(401);
    // Longer than an hour, already expired, no token.
    expect((await dispatch(signAgentToken(a.key.privateKey, a.id, 2 * 3600))).status).toBe(401);
    expect((await dispatch(signAgentToken(a.key.privateKey, a.id, -120))).status).toBe(401);
    expect((await dispatch('')).status).toBe(401);
    expect((await dispatch(signAgentToken(llm.key.privateKey, llm.id))).status).toBe(403);
  });

  it('object ownership: an agent of avatar A is never offered, and cannot join, sessions of avatar B; tickets are single-use and not page tickets', async () => {
    const a = await avatarWithKey(owner.id, 12, 'A');
    const b = await avatarWithKey(owner.id, 12, 'B');
    const agentA = await dispatch(signAgentToken(a.key.privateKey, a.id));
    expect(agentA.status).toBe(101);

    // B's visitor: nobody of B is connected; A's agent hears nothing of it.
    const pb = await start(b, { voice: false });
    await pb.waitFor('notice', (f) => f.code === LiveCode.agentNotConnected);
    expect(sessionOffers(agentA.frames)).toEqual([]);

    // A's visitor: A's agent is offered that session only.
    const pa = await start(a, { voice: false });
    await until(() => sessionOffers(agentA.frames).length === 1);
    const offer = sessionOffers(agentA.frames)[0]!;
    expect(offer.avatarId).toBe(a.id);
    // The agent ticket is not a page ticket.
    const answer = { status: 'OK', sessionId: offer.sessionId, wsUrl: offer.wsUrl, ticket: offer.ticket } as TLiveStartAnswer;
    const impostor = new PageClient(answer, { voice: false });
    pages.push(impostor);
    expect((await impostor.waitFor('error')).code).toBe(LiveCode.ticketInvalid);

    const s = joinAs(offer);
    await until(() => s.frames.some((f) => f.type === 'joined'));
    expect(s.frames.find((f) => f.type === 'joined')).toMatchObject({ sessionId: offer.sessionId, avatarId: a.id, micSampleRate: 16_000 });
    expect(s.frames.find((f) => f.type === 'say')).toEqual({ type: 'say', text: 'Hello, I am the agent.' });
    // The same ticket again (replay) is refused.
    const replay = joinAs(offer);
    await until(() => replay.closed() !== null);
    expect(replay.closed()).toBe(AgentApi.close.ticketRefused);
    // A page ticket is not an agent ticket.
    const pageTicket = (await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: b.id, token: mintAvatarToken(b.key.privateKey, { avatarId: b.id, expiresInSeconds: 600 }) } })).json() as TLiveStartAnswer;
    const wrong = joinAs({ wsUrl: pageTicket.wsUrl!, ticket: pageTicket.ticket! });
    await until(() => wrong.closed() !== null);
    expect(wrong.closed()).toBe(AgentApi.close.ticketRefused);
    pa.send({ type: 'bye' });
    pb.send({ type: 'bye' });
  });

  it('a hand-written agent: transcripts into the history, a text-only answer, text spoken with the avatar’s voice, interrupt, and bounded frames', async () => {
    const a = await avatarWithKey(owner.id, 12, 'Raw');
    const agent = await dispatch(signAgentToken(a.key.privateKey, a.id));
    const p = await start(a);
    await until(() => sessionOffers(agent.frames).length === 1);
    const s = joinAs(sessionOffers(agent.frames)[0]!, 24_000);
    await until(() => s.frames.some((f) => f.type === 'say'));

    // The visitor's words as the agent's STT heard them.
    s.json({ type: 'transcript', text: 'What is', final: false });
    s.json({ type: 'transcript', text: 'What is the time?', final: true });
    await p.waitFor('transcript', (f) => f.final && f.text === 'What is the time?');
    expect(p.of('transcript').filter((f) => !f.final).map((f) => f.text)).toContain('What is');
    // A text-only answer: shown, no audio.
    s.json({ type: 'response.start', responseId: 'x1' });
    s.json({ type: 'text', delta: 'It is ' });
    s.json({ type: 'text', delta: 'noon.' });
    s.json({ type: 'response.end' });
    await p.waitFor('assistant', (f) => f.final && f.text === 'It is noon.');

    // Text to be spoken: the avatar's voice (here the offline voice) says it, as one utterance.
    s.json({ type: 'speak', text: 'Hello there.' });
    const spoken = await p.waitFor('assistant', (f) => f.final && f.text === 'Hello there.', 20_000);
    await p.waitFor('utterance', (f) => f.utt === spoken.utt && f.phase === 'end');
    const voiced = p.audio.filter((b) => b[0] === AudioFrameKind.avatar && b.readUInt16LE(2) === spoken.utt).reduce((n, b) => n + (b.length - 8) / 2, 0);
    expect(voiced).toBeGreaterThan(24_000 * 0.3); // at least 0.3 s of speech at the page's 24 kHz

    // A long answer with audio, then the agent interrupts it: the page is told, the agent hears what was heard.
    s.json({ type: 'response.start', responseId: 'x2' });
    s.json({ type: 'text', delta: 'A very long story begins here and goes on.' });
    const pcm = new Uint8Array(24_000 * 2); // 1 s at 24 kHz
    for (let i = 0; i < 3; i++) s.ws.send(writeAudioFrame({ kind: AudioFrameKind.avatar, flags: 0, utterance: 0, seq: i }, pcm), { binary: true });
    const started = await p.waitFor('utterance', (f) => f.phase === 'start' && f.utt > spoken.utt);
    p.send({ type: 'playback', utt: started.utt, state: 'progress', playedMs: 500 });
    await new Promise((r) => setTimeout(r, 100));
    s.json({ type: 'interrupt' });
    const cut = await p.waitFor('interrupted', (f) => f.utt === started.utt);
    expect(cut.heardMs).toBeGreaterThanOrEqual(500);
    await until(() => s.frames.some((f) => f.type === 'interrupted'));
    expect(s.frames.find((f) => f.type === 'interrupted')).toMatchObject({ responseId: 'x2' });
    await p.waitFor('assistant', (f) => f.final && f.utt === started.utt && f.interrupted === true);

    // Bounds: an unknown frame closes the agent's socket; the visitor is told the agent left.
    s.json({ type: 'shout', text: 'x' });
    await until(() => s.closed() !== null);
    expect(s.closed()).toBe(AgentApi.close.badFrame);
    await p.waitFor('error', (f) => f.code === LiveCode.providerError);
    p.send({ type: 'bye' });
  });

  it('audio far ahead of real time closes the agent’s socket', async () => {
    const a = await avatarWithKey(owner.id, 12, 'Flood');
    const agent = await dispatch(signAgentToken(a.key.privateKey, a.id));
    await start(a, { voice: false });
    await until(() => sessionOffers(agent.frames).length === 1);
    const s = joinAs(sessionOffers(agent.frames)[0]!, 8000);
    await until(() => s.frames.some((f) => f.type === 'joined'));
    // 8 kHz: 30 s of burst = 240k samples; 64 KB frames carry ~32k samples each.
    const pcm = new Uint8Array(64 * 1024 - 8);
    for (let i = 0; i < 12 && s.ws.readyState === WebSocket.OPEN; i++) s.ws.send(writeAudioFrame({ kind: AudioFrameKind.avatar, flags: 0, utterance: 0, seq: i }, pcm), { binary: true });
    await until(() => s.closed() !== null);
    expect(s.closed()).toBe(AgentApi.close.rateLimited);
  });
});
