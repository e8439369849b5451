import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { AudioFrameKind, LiveCode, LiveLimits, LivePaths, LiveProtocol, LiveRates, writeAudioFrame, type TLiveStartAnswer } from '@persona/contract';
import { OFFLINE_VOICES, signTicket, ticketKey, type LiveWorkerHandle, type OfflineVoice } from '@persona/worker';
import { createTestApp, type TestContext } from '../build-app.js';
import { testDriver } from '../db.js';
import { createSignedInUser } from '../factories.js';
import { PageClient, TEST_WORKER_SECRET, startEmbeddedWorker, until } from '../live.js';
import { avatars, liveSessions } from '../../db/schema/index.js';
import { healthWatch, type HealthWatch, type Watched } from './health-watch.js';

/**
 * Issue 16: the live page and the worker under hostile clients. One well-behaved visitor holds a
 * conversation (echo brain) on the embedded worker while each test attacks it from elsewhere; after
 * every attack the visitor is still answered within a bound, the worker still runs, and nothing
 * threw or rejected unhandled. The mechanisms: live/frame-guard.ts and the runtime's page socket
 * (backpressure, hello timeout) in the worker, the admission's per-IP limits in the portal.
 */

/** Short, so that the test of it is quick; above the longest pause of a loaded machine (0.35 s measured), which a page that does say hello must not meet. */
const HELLO_TIMEOUT_MS = 1000;
const MAX_BUFFERED = 256 * 1024;
/** A turn of the well-behaved visitor must be answered within this, whatever the attack. */
const ANSWER_BOUND_MS = 2000;

let t: TestContext;
let base: string;
let wsUrl: string;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
let embedded: LiveWorkerHandle;
let avatarId: number;
let visitor: PageClient;
let nextIp = 1;
let turn = 0;
const pages: PageClient[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (err: unknown) => unhandled.push(err);
/** The fake VAD's windows: what the worker really spent on mic audio. */
let vadWindows = 0;
/** A voice that speaks at once (flite is slow on a loaded machine): two seconds of tone for any text. */
/**
 * Two seconds of tone, made once: the fake voice runs on the portal's event loop (the embedded
 * worker shares it), so making it per sentence (32 000 callbacks, ~50 ms on a loaded machine) was
 * counted by the health watch as the loop held — the test's own work, not the attack's.
 */
const TONE = Int16Array.from({ length: 32_000 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
const instantVoice: OfflineVoice = {
  voices: OFFLINE_VOICES,
  synthesize: async () => ({ pcm: TONE.slice(), sampleRate: 16_000, phones: [] }),
  warm: async () => undefined,
  close: async () => undefined,
};
/** What the worker logged (a hostile socket must not fill the log). */
const lines: { level: string; msg: string; data?: Record<string, unknown> }[] = [];
const record = (level: string) => (msg: string, data?: object) => void lines.push({ level, msg, data: data as Record<string, unknown> });
/** Health sampled through every attack (issue 26, item 2): the embedded worker shares the portal's event loop. */
let watch: HealthWatch;
let watching: { stop(): Promise<Watched<void>> } | null = null;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  // The portal's periodic sweeps (workers every 5 s, live sessions every 10 s) are left out: on
  // PGlite their queries run on this same loop, in a test process that has run many files before,
  // and one landing inside an attack's second is the likeliest cause of the single samples of
  // 60–130 ms of main-thread CPU CI saw in one attack or another (10 ms here idle). What is
  // watched is the attacks' cost, not the sweeps' (tested in their own files).
  t = await createTestApp({}, { workerTimings: { sweepIntervalMs: 3_600_000 }, liveTimings: { sweepIntervalMs: 3_600_000 } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  wsUrl = `${base.replace(/^http/, 'ws')}${LivePaths.workerSocket}`;
  owner = await createSignedInUser(t.app, t.database);
  embedded = await startEmbeddedWorker(t, base, {
    helloTimeoutMs: HELLO_TIMEOUT_MS,
    maxBufferedBytes: MAX_BUFFERED,
    log: { info: record('info'), warn: record('warn'), error: record('error') },
    tts: { offline: instantVoice },
    // Listening with a counting VAD (never speech) and a recogniser that hears nothing.
    listening: {
      vad: {
        name: 'counting',
        stream: () => ({
          probability: async () => {
            vadWindows++;
            return 0;
          },
          reset: () => undefined,
        }),
        close: async () => undefined,
      },
      offline: { transcribe: async () => '', warm: async () => undefined, close: async () => undefined },
    },
  });
  const [row] = await t.database.db
    .insert(avatars)
    .values({ userId: owner.id, name: 'Ava', nlpEngine: 0, config: { wakeUpMessage: 'Hello!', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } } })
    .returning();
  avatarId = row!.id;
  const first = await admit();
  expect(first.body, JSON.stringify(first.body)).toMatchObject({ status: 'OK' });
  visitor = page(first.body);
  await visitor.waitFor('assistant', (f) => f.final && f.text === 'Hello!');
  // One listening session before anything is watched, taken through what the attacks do once —
  // bad binary frames, mic audio, a stream of short frames that closes it (badFrame) — so that
  // what the first of them in a process pays once (the listening's thread and modules, code run
  // for the first time: 90–170 ms of the loop on CI's fresh clone, in whichever attack came first,
  // 5–20 ms here) is not counted as work proportional to an attack.
  const open = embedded.runtime.sessions();
  const warm = (await hostileSession({ mic: true })).page;
  const pcm = new Uint8Array(640);
  for (const frame of [new Uint8Array(3), writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: 1 }, new Uint8Array(641)), writeAudioFrame({ kind: 9, flags: 0, utterance: 0, seq: 2 }, pcm), writeAudioFrame({ kind: AudioFrameKind.avatar, flags: 0, utterance: 0, seq: 3 }, pcm)]) warm.socket.send(frame);
  await until(() => warm.of('error').length === 4, 20_000, 'an error per bad frame of the warm-up');
  const heard = vadWindows;
  for (const frame of micFrames(400)) warm.socket.send(frame);
  await until(() => vadWindows > heard, 20_000, 'the warm-up session to be heard');
  for (let i = 0; i < 30; i++) warm.socket.send(new Uint8Array(5));
  expect(await warm.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
  for (const end = Date.now() + 5000; embedded.runtime.sessions() > open && Date.now() < end; ) await sleep(50);
  // On PGlite the database runs inside this process, on this loop: its own work (seen in CI as a
  // single sample of 120–130 ms of CPU in one attack or another, a different one each run, with
  // the portal's sweeps off and 10 ms here idle) is not an attack's. There a sample is held at
  // 300 ms of CPU: 200 ms was passed once (209.5 ms, in the replayed-ticket test) in a CI
  // rehearsal on a machine then running a fixed decode 3.5× slower than an hour before, where
  // 120–130 ms of work becomes that. What the watch exists for (a crawl that held the loop for
  // seconds) is far past either bound.
  // On PostgreSQL, 100 ms.
  watch = await healthWatch(base, testDriver === 'postgres' ? {} : { boundMs: 300 });
});

beforeEach(() => {
  watching = watch.start();
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  for (const p of pages) p.close();
  await embedded?.stop();
  await t?.close();
});

/** When the well-behaved visitor last sent a message: it keeps to the message rate (LiveRates). */
let visitorSentAt = 0;

afterEach(async (ctx) => {
  // While the attack ran, no health sample held the loop (security/health-watch.ts).
  const watched = await watching!.stop();
  watching = null;
  console.log(watch.describe(ctx.task.name.slice(0, 60), watched));
  expect(watched.over, watch.describe('attack', watched)).toEqual([]);
  // After every attack: the visitor is answered within the bound, the worker runs, nothing threw.
  const text = `still there? ${++turn}`;
  const wait = visitorSentAt + LiveRates.messageIntervalMs - Date.now();
  if (wait > 0) await sleep(wait);
  const sent = (visitorSentAt = Date.now());
  visitor.text(text, `v${turn}`);
  await visitor.waitFor('assistant', (f) => f.final && f.text === text, ANSWER_BOUND_MS);
  expect(Date.now() - sent).toBeLessThan(ANSWER_BOUND_MS);
  expect(visitor.closeCode).toBeNull();
  expect(embedded.runtime.sessions()).toBeGreaterThanOrEqual(1);
  expect(embedded.id()).not.toBeNull();
  expect(unhandled).toEqual([]);
});

/** Each admission comes from its own address unless the test says otherwise. */
async function admit(ip = `198.51.100.${nextIp++}`) {
  const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId, visitorId: `visitor-${ip.replaceAll(".", "-")}` }, headers: { 'x-forwarded-for': ip }, remoteAddress: ip });
  return { status: res.statusCode, body: res.json() as TLiveStartAnswer };
}

function page(answer: Pick<TLiveStartAnswer, 'wsUrl' | 'ticket'>, opts?: { hello?: boolean }) {
  const p = new PageClient(answer as TLiveStartAnswer, opts);
  p.open.catch(() => undefined);
  pages.push(p);
  return p;
}

/** A socket to the worker that says nothing yet. */
async function raw() {
  const p = page({ wsUrl, ticket: null } as unknown as TLiveStartAnswer, { hello: false });
  await p.open;
  return p;
}

/** A hostile client with a session of its own (typed chat; `mic` also listens; `voice`: it is spoken to). */
async function hostileSession(opts: { mic?: boolean; voice?: boolean } = {}) {
  const { body } = await admit();
  const p = page(body, { hello: false });
  await p.open;
  p.send({ type: 'hello', protocol: 1, ticket: body.ticket, mic: opts.mic === true, speaker: opts.voice === true, textOnly: opts.mic !== true && opts.voice !== true });
  // Generous: CI runs every project at once on two cores.
  const ready = await p.waitFor('ready', () => true, 15_000);
  if (opts.mic) expect(ready.listening).toBe(true);
  return { page: p, answer: body };
}

/** `ms` of mic audio as 20 ms frames of noise (loud enough that the VAD is asked). */
/**
 * A 364 Hz tone at −21 dBFS, ~2π·700 samples long so that its copies join almost seamlessly: frames
 * are cut from it (a copy each) rather than computed sample by sample — a minute of frames made
 * one sample at a time took ~50 ms of the event loop the health watch measures.
 */
const WAVE = Int16Array.from({ length: 4398 }, (_, s) => Math.round(Math.sin(s / 7) * 3000));
function micFrames(ms: number, start = 0) {
  const samples = (LiveProtocol.micSampleRate * LiveProtocol.micFrameMs) / 1000;
  const frames: Uint8Array[] = [];
  const pcm = new Int16Array(samples);
  for (let i = 0; i < ms / LiveProtocol.micFrameMs; i++) {
    for (let filled = 0, at = ((start + i) * samples) % WAVE.length; filled < samples; at = 0) {
      const piece = WAVE.subarray(at, at + samples - filled);
      pcm.set(piece, filled);
      filled += piece.length;
    }
    frames.push(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: start + i }, new Uint8Array(pcm.buffer.slice(0))));
  }
  return frames;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until a count has not moved for `quietMs` (what was sent has been worked through). */
async function settled(count: () => number, quietMs = 300, boundMs = 20_000) {
  const end = Date.now() + boundMs;
  let last = count();
  let since = Date.now();
  while (Date.now() < end) {
    await sleep(20);
    if (count() !== last) {
      last = count();
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
  }
}
const fatalBadFrame = (p: PageClient) => p.of('error').find((e) => e.fatal && e.code === LiveCode.badFrame);

describe('hostile clients: the live page and the worker', () => {
  it('malformed JSON and frames of the wrong shape: a non-fatal error each, the session goes on; a stream of them closes the socket (badFrame)', async () => {
    const { page: p } = await hostileSession();
    for (const junk of ['not json', '{"type":', '[]', 'null', '{"type":"text"}', '{"type":"text","text":""}', '{"type":"text","text":42}', '{"type":"launch-missiles"}', `{"type":"text","text":"${'x'.repeat(LiveLimits.textMax + 1)}"}`]) p.socket.send(junk);
    await until(() => p.of('error').length === 9, 20_000, 'nine errors');
    expect(p.of('error').every((e) => e.code === LiveCode.badFrame && !e.fatal)).toBe(true);
    // The hostile session itself still works: the errors were not fatal.
    p.text('fine now', 'h1');
    await p.waitFor('assistant', (f) => f.final && f.text === 'fine now');
    for (let i = 0; i < 30; i++) p.socket.send(`{garbage ${i}`);
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    expect(fatalBadFrame(p)).toBeDefined();
  });

  it('hello: not JSON, the wrong shape, binary, no ticket → badFrame; a forged, foreign-key, other-worker or expired ticket → ticketRefused', async () => {
    const expectClosed = async (first: string | Uint8Array, code: number) => {
      const p = await raw();
      p.socket.send(first);
      expect(await p.waitClosed(20_000)).toBe(code);
      expect(p.of('error')[0]).toMatchObject({ code: code === LiveProtocol.close.badFrame ? LiveCode.badFrame : LiveCode.ticketInvalid, fatal: true });
    };
    const hello = (ticket?: string) => JSON.stringify({ type: 'hello', protocol: 1, mic: false, speaker: false, ...(ticket !== undefined ? { ticket } : {}) });
    await expectClosed('hello?', LiveProtocol.close.badFrame);
    await expectClosed('{"type":"text","text":"hi"}', LiveProtocol.close.badFrame);
    await expectClosed(new Uint8Array(16), LiveProtocol.close.badFrame);
    await expectClosed(hello(), LiveProtocol.close.badFrame);
    await expectClosed(hello('x'.repeat(4000)), LiveProtocol.close.badFrame);

    // Tickets: a real admission's claims, signed wrongly or for the wrong worker or time.
    const { body } = await admit();
    const [claimsPart] = body.ticket!.split('.');
    const claims = JSON.parse(Buffer.from(claimsPart!, 'base64url').toString()) as { sid: string; wid: number; aid: number };
    const key = ticketKey(TEST_WORKER_SECRET);
    await expectClosed(hello('garbage'), LiveProtocol.close.ticketRefused);
    await expectClosed(hello(`${claimsPart}.${'A'.repeat(43)}`), LiveProtocol.close.ticketRefused);
    await expectClosed(hello(signTicket(ticketKey('another-secret-0123456789'), claims).ticket), LiveProtocol.close.ticketRefused);
    await expectClosed(hello(signTicket(key, { ...claims, wid: claims.wid + 1000 }).ticket), LiveProtocol.close.ticketRefused);
    await expectClosed(hello(signTicket(key, claims, Date.now() - (LiveLimits.ticketTtlSeconds + 5) * 1000).ticket), LiveProtocol.close.ticketRefused);
    // None of them claimed the session: its own ticket still opens it.
    const owner = page(body);
    await owner.waitFor('ready');
    owner.send({ type: 'bye' });
    expect(await owner.waitClosed()).toBe(LiveProtocol.close.ended);
  });

  it('a replayed ticket is refused (ticketRefused) and does not take over the session it was issued for', async () => {
    const { page: first, answer } = await hostileSession();
    for (let i = 0; i < 3; i++) {
      const replay = page(answer);
      expect(await replay.waitClosed(20_000)).toBe(LiveProtocol.close.ticketRefused);
      expect(replay.of('error')[0]).toMatchObject({ code: LiveCode.ticketInvalid, fatal: true });
    }
    // The first socket was not replaced and still talks.
    first.text('mine', 'r1');
    await first.waitFor('assistant', (f) => f.final && f.text === 'mine');
    expect(first.closeCode).toBeNull();
    // Nor after it closed: the ticket is spent.
    first.send({ type: 'bye' });
    await first.waitClosed();
    expect(await page(answer).waitClosed(20_000)).toBe(LiveProtocol.close.ticketRefused);
  });

  it('binary frames with bad headers (short, odd PCM, unknown kind, the avatar\u2019s kind): a non-fatal error each; a stream of them closes the socket', async () => {
    const { page: p } = await hostileSession({ mic: true });
    const pcm = new Uint8Array(640);
    const odd = writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: 1 }, new Uint8Array(641));
    const bad = [new Uint8Array(3), odd, writeAudioFrame({ kind: 9, flags: 0, utterance: 0, seq: 2 }, pcm), writeAudioFrame({ kind: AudioFrameKind.avatar, flags: 0, utterance: 0, seq: 3 }, pcm)];
    for (const frame of bad) p.socket.send(frame);
    await until(() => p.of('error').length === bad.length, 20_000, 'an error per bad frame');
    expect(p.of('error').every((e) => e.code === LiveCode.badFrame && !e.fatal)).toBe(true);
    // A good mic frame is still taken.
    const before = vadWindows;
    for (const frame of micFrames(200)) p.socket.send(frame);
    await until(() => vadWindows > before, 20_000, 'the VAD to hear the mic');
    for (let i = 0; i < 30; i++) p.socket.send(new Uint8Array(5));
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    expect(fatalBadFrame(p)).toBeDefined();
  });

  it('oversized frames: text over maxTextFrame and binary over maxBinaryFrame close the socket (badFrame), before and after hello; beyond the portal\u2019s payload limit ws closes it (1009)', async () => {
    const beforeHello = await raw();
    beforeHello.socket.send('x'.repeat(LiveProtocol.maxTextFrame + 1));
    expect(await beforeHello.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);

    const text = (await hostileSession()).page;
    text.socket.send(JSON.stringify({ type: 'text', text: 'y'.repeat(LiveProtocol.maxTextFrame) }));
    expect(await text.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    expect(fatalBadFrame(text)).toBeDefined();

    const binary = (await hostileSession({ mic: true })).page;
    binary.socket.send(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: 0 }, new Uint8Array(LiveProtocol.maxBinaryFrame)));
    expect(await binary.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);

    const huge = (await hostileSession()).page;
    huge.socket.send(Buffer.alloc(2 * 1024 * 1024, 0x61));
    expect(await huge.waitClosed(20_000)).toBe(1009);
  });

  it('mic audio faster than real time: 10 s sent in 100 ms is paced (the VAD sees about the burst), a sustained flood closes the socket (badFrame)', async () => {
    const { page: p } = await hostileSession({ mic: true });
    const before = vadWindows;
    const started = Date.now();
    /**
     * Windows of 32 ms the guard may let through by now: a 2 s burst plus 1.25× the real time
     * since the first frame (the real time, not the 100 ms meant: a loaded machine takes longer
     * over the sends, and the guard rightly refills meanwhile), and a few windows of rounding.
     */
    const allowed = () => (2000 + 1.25 * (Date.now() - started)) / 32 + 4;
    const tenSeconds = micFrames(10_000);
    for (let batch = 0; batch < 5; batch++) {
      for (const frame of tenSeconds.slice(batch * 100, (batch + 1) * 100)) p.socket.send(frame);
      await sleep(20);
    }
    // The VAD hears about the burst (events, however slow the machine), then nothing more comes.
    await until(() => vadWindows - before > 30, 20_000, 'the VAD to hear the burst');
    await settled(() => vadWindows);
    const windows = vadWindows - before;
    // 10 s is 312 windows of 32 ms: far fewer went through.
    expect(windows).toBeGreaterThan(30);
    expect(windows).toBeLessThan(Math.min(allowed(), 312));
    expect(p.closeCode).toBeNull();
    // Still a session: typed text is answered.
    p.text('and now?', 'm1');
    await p.waitFor('assistant', (f) => f.final && f.text === 'and now?');
    // A minute of audio in a moment: no longer a page, a flood.
    const minute = micFrames(60_000, tenSeconds.length);
    for (let i = 0; i < minute.length && p.socket.readyState === p.socket.OPEN; i++) p.socket.send(minute[i]!);
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    expect(fatalBadFrame(p)).toBeDefined();
    await settled(() => vadWindows);
    expect(vadWindows - before).toBeLessThan(allowed());
  });

  it('mic frames each longer than the 2 s burst close the socket at the first (before: dropped one by one, never closed — 327 MB read); a judged socket is not read again', async () => {
    const { page: p, answer } = await hostileSession({ mic: true });
    const before = vadWindows;
    const longest = writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: 0 }, new Uint8Array(LiveProtocol.maxBinaryFrame - LiveProtocol.binaryHeaderBytes));
    for (let i = 0; i < 200 && p.socket.readyState === p.socket.OPEN; i++) p.socket.send(longest);
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    expect(fatalBadFrame(p)).toBeDefined();
    expect(vadWindows).toBe(before);
    // Whatever else it had sent, one line about it.
    const said = lines.filter((l) => l.msg === 'a page broke the protocol: socket closed' && l.data?.sessionId === answer.sessionId);
    expect(said).toEqual([expect.objectContaining({ level: 'warn', data: expect.objectContaining({ reason: 'mic frame longer than the protocol allows' }) })]);
  });

  it('a socket that keeps sending after it was judged (thousands of bad frames): closed at the limit, one warning line, not one per frame', async () => {
    const { page: p, answer } = await hostileSession({ mic: true });
    for (let i = 0; i < 5000; i++) p.socket.send(new Uint8Array(5));
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    const about = lines.filter((l) => l.data?.sessionId === answer.sessionId && l.level !== 'info');
    expect(about.map((l) => l.msg)).toEqual(['a page broke the protocol: socket closed']);
  });

  it('JSON frames faster than the protocol allows (a ping flood): dropped unread past the burst, then the socket is closed (badFrame)', async () => {
    const { page: p } = await hostileSession();
    for (let i = 0; i < 3000 && p.socket.readyState === p.socket.OPEN; i++) p.send({ type: 'ping', t: i });
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.badFrame);
    // The burst and what the pace refilled while they came; never one pong per ping.
    expect(p.of('pong').length).toBeGreaterThanOrEqual(LiveRates.frameBurst);
    expect(p.of('pong').length).toBeLessThan(LiveRates.frameBurst + 100);
  });

  it('typed messages faster than the rate (issue 26: 200 became 200 model calls): the burst is answered, each refused one gets a notice, then the session is ended and cannot be resumed', async () => {
    const { page: p, answer } = await hostileSession();
    for (let i = 0; i < 200 && p.socket.readyState === p.socket.OPEN; i++) p.text(`buy ${i}`, `b${i}`);
    expect(await p.waitClosed(20_000)).toBe(LiveProtocol.close.ended);
    expect(p.of('bye')).toEqual([expect.objectContaining({ code: LiveCode.tooManyMessages })]);
    // Answered (the echo brain: each answer is one model call with a model): the burst and what refilled meanwhile.
    const answered = p.answers().filter((a) => a.startsWith('buy '));
    expect(answered.length).toBeLessThanOrEqual(LiveRates.messageBurst + 2);
    expect(p.of('notice').filter((n) => n.code === LiveCode.tooFast).length).toBeGreaterThanOrEqual(LiveRates.maxRefusedMessages);
    // The worker tells the portal the session ended after it closed the page's socket: the resume
    // is refused once that report is in (on a slow machine it arrived after the close was seen).
    const resume = () => t.app.inject({ method: 'POST', url: LivePaths.resume, payload: { sessionId: answer.sessionId, resumeToken: answer.resumeToken } });
    let resumed = await resume();
    for (const until = Date.now() + 15_000; resumed.json().status === 'OK' && Date.now() < until; resumed = await resume()) await new Promise((r) => setTimeout(r, 100));
    expect(resumed.json()).toMatchObject({ status: 'FAIL', code: LiveCode.sessionNotFound });
  });

  it('resumes of one session, from any number of addresses: LiveRates.resumesPerSessionPerMinute a minute, then rate-limited (each resume opens the conversation again on a worker)', async () => {
    const { answer } = await hostileSession();
    const codes: number[] = [];
    for (let i = 0; i < LiveRates.resumesPerSessionPerMinute + 2; i++) {
      const ip = `192.0.2.${100 + i}`;
      const res = await t.app.inject({ method: 'POST', url: LivePaths.resume, payload: { sessionId: answer.sessionId, resumeToken: answer.resumeToken }, headers: { 'x-forwarded-for': ip }, remoteAddress: ip });
      codes.push(res.statusCode);
      if (res.statusCode === 429) expect(res.json()).toMatchObject({ status: 'FAIL', code: LiveCode.rateLimited });
    }
    expect(codes).toEqual([...Array.from({ length: LiveRates.resumesPerSessionPerMinute }, () => 200), 429, 429]);
  });

  it('a flood of admissions from one IP: LiveLimits.maxSessionsPerIp open sessions, then ip-concurrency (429), then the rate limit; other addresses are admitted', async () => {
    const ip = '203.0.113.66';
    const answers = [];
    for (let i = 0; i < 40; i++) answers.push(await admit(ip));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(LiveLimits.maxSessionsPerIp);
    expect(answers.slice(0, LiveLimits.maxSessionsPerIp).every((a) => a.status === 200)).toBe(true);
    const refused = answers.slice(LiveLimits.maxSessionsPerIp);
    expect(refused.every((a) => a.status === 429)).toBe(true);
    expect(refused.filter((a) => a.body.status === 'FAIL' && a.body.code === LiveCode.ipConcurrency).length).toBeGreaterThan(0);
    // The route's rate limit (30 a minute) answers the rest before any work is done.
    expect(refused.at(-1)!.body).not.toMatchObject({ code: LiveCode.ipConcurrency });
    // Refusals store nothing: only the admitted sessions exist for that address.
    expect(await t.database.db.select().from(liveSessions).where(eq(liveSessions.clientIp, ip))).toHaveLength(LiveLimits.maxSessionsPerIp);
    // Another address is not affected.
    const other = await admit();
    expect(other.status).toBe(200);
    const p = page(other.body);
    await p.waitFor('ready');
    p.send({ type: 'bye' });
    await p.waitClosed();
  });

  it('sockets that never say hello are closed after the hello timeout (badFrame) and hold nothing', async () => {
    const sessions = embedded.runtime.sessions();
    // Sixty sockets, ten at a time (each ten open before the next): their hello timeouts then end
    // in six bursts, not in one timer tick. All sixty in one tick once held one sample of the
    // loaded CI machine for 130 ms of main-thread CPU (10 ms here idle) — the test's own clients
    // and the closes sharing the process the watch samples; an attacker's sockets do not arrive
    // in one microsecond either.
    const idle: Awaited<ReturnType<typeof raw>>[] = [];
    for (let i = 0; i < 6; i++) idle.push(...(await Promise.all(Array.from({ length: 10 }, () => raw()))));
    await Promise.all(idle.map((p) => p.waitClosed(HELLO_TIMEOUT_MS + 20_000)));
    expect(idle.every((p) => p.closeCode === LiveProtocol.close.badFrame)).toBe(true);
    expect(embedded.runtime.sessions()).toBe(sessions);
  });

  it('a page that never reads: the worker does not queue for it without bound, its socket is dropped past the limit', async () => {
    const { page: p } = await hostileSession({ voice: true });
    const sessions = embedded.runtime.sessions();
    p.socket.pause();
    // Within the message rate: each long line is said back (minutes of audio, megabytes), far past the kernel's buffers.
    const line = 'The quick brown fox jumps over the lazy dog. '.repeat(44).slice(0, LiveLimits.textMax);
    for (let i = 0; i < LiveRates.messageBurst; i++) p.text(line, `f${i}`);
    await until(() => embedded.runtime.sessions() === sessions - 1, 20_000, 'the silent page to be dropped');
    // Dropped, not closed by a frame rule: reading again, the page finds its connection cut (no close frame).
    p.socket.resume();
    expect(await p.waitClosed(20_000)).toBe(1006);
    expect(fatalBadFrame(p)).toBeUndefined();
  });
});
