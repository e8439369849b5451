import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import { ELEVENLABS_CONVAI, pcmRate } from '../providers/realtime/elevenlabs.js';
import { sessionConfig } from '../test/brain-deps.js';
import { ELEVENLABS_AGENTS, ELEVENLABS_CONVAI_KEY, startFakeElevenLabsConvAi, type FakeElevenLabsConvAi } from '../test/fake-elevenlabs-convai.js';
import { Conversation } from './conversation.js';
import { createRealtimeSession, type RealtimeBrainConfig } from './realtime-session.js';
import type { RealtimeToolbox } from './realtime-tools.js';
import { fakePage, finals, framesOf, samplesOf, sendMic, until } from '../test/live-page.js';

// Issue 15, None (3rd Party AI) with ElevenLabs Conversational AI (engine 11): the session path
// against a local fake of ElevenLabs' signed-URL endpoint and conversation WebSocket — what the
// page receives, what ElevenLabs is sent, and that the avatar's key stays on the worker.

type ElevenLabsBrain = Extract<RealtimeBrainConfig, { kind: 'elevenlabs' }>;

const log = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const listening = (page: { frames: TWorkerFrame[] }) => framesOf(page, 'state').some((f) => f.state === 'listening');

let fake: FakeElevenLabsConvAi;
beforeAll(async () => {
  fake = await startFakeElevenLabsConvAi();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.knobs = {};
});

const publicAgent = (extra: Partial<ElevenLabsBrain> = {}): ElevenLabsBrain => ({ kind: 'elevenlabs', agentId: ELEVENLABS_AGENTS.public, apiKey: '', isPublic: true, connectionType: 'webrtc', greeting: '', ...extra });
const privateAgent = (extra: Partial<ElevenLabsBrain> = {}): ElevenLabsBrain => ({ kind: 'elevenlabs', agentId: ELEVENLABS_AGENTS.private, apiKey: ELEVENLABS_CONVAI_KEY, isPublic: false, connectionType: 'websocket', greeting: '', ...extra });

function openSession(opts: { brain?: ElevenLabsBrain; sampleRate?: number; history?: TLiveHistoryEntry[]; resumed?: boolean; tools?: RealtimeToolbox; now?: () => number } = {}) {
  const brain = opts.brain ?? publicAgent();
  const histories: TLiveHistoryEntry[][] = [];
  const warnings: { msg: string; data?: object }[] = [];
  const config = sessionConfig(brain, { textOnly: false, allowPrivateUrls: false, history: opts.history ?? [], resumed: opts.resumed ?? false, avatar: { nlpEngine: 11, setupMode: 3 } });
  const c = new Conversation({
    config,
    brain: null,
    realtime: createRealtimeSession({
      brain,
      // The avatar's own URLs may not be private; the operator's ElevenLabs base (here the fake) may.
      allowPrivateUrls: false,
      textOnly: false,
      sampleRate: opts.sampleRate,
      connectTimeoutMs: 3000,
      elevenLabs: { baseUrl: fake.baseUrl, quietMs: 300 },
      tools: opts.tools ?? null,
      now: opts.now,
    }),
    micOn: true,
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { ...log, warn: (msg, data) => warnings.push({ msg, data }) },
  });
  const page = fakePage();
  c.attach(page);
  return { c, page, histories, warnings };
}

describe('None mode with ElevenLabs Conversational AI (local fake of its protocol)', () => {
  it('a public agent: connects by agent id, no key anywhere; its first message greets; typed text is a user_message; the ping is answered', async () => {
    const before = fake.signedUrlRequests.length;
    const { c, page, histories } = openSession();
    expect(page.frames[0]).toMatchObject({ type: 'ready', audioSampleRate: 24_000, listening: true });
    await until(() => finals(page).length === 1, 8000, 'greeting');
    const conn = fake.connections.at(-1)!;
    expect(conn.query.get('agent_id')).toBe(ELEVENLABS_AGENTS.public);
    expect(conn.headers['xi-api-key']).toBeUndefined();
    expect(fake.signedUrlRequests.length).toBe(before);
    // The initiation data goes first, with nothing overridden; the ping is answered with its event id.
    expect(conn.messages[0]).toEqual({ type: 'conversation_initiation_client_data' });
    expect(conn.pongs).toEqual([1]);
    // The agent's first message: one utterance, 16 kHz from ElevenLabs resampled to the page's 24 kHz (4 words × 300 ms).
    expect(finals(page)[0]).toMatchObject({ utt: 1, text: 'Welcome to the harbour.' });
    expect(framesOf(page, 'utterance').map((f) => `${f.utt}:${f.phase}`)).toEqual(['1:start', '1:end']);
    expect(Math.abs(samplesOf(page, 1) - 28_800)).toBeLessThanOrEqual(2);
    expect(page.audio.filter((a) => a.utt === 1).at(-1)).toMatchObject({ last: true, samples: 0 });
    expect(page.audio.filter((a) => a.utt === 1).map((a) => a.seq)).toEqual(page.audio.filter((a) => a.utt === 1).map((_, i) => i));

    c.onMessage(JSON.stringify({ type: 'text', id: 'm1', text: 'where is the ferry' }));
    await until(() => finals(page).length === 2, 8000, 'answer');
    expect(conn.userMessages).toEqual(['where is the ferry']);
    expect(finals(page)[1]).toMatchObject({ utt: 2, text: 'You said where is the ferry.' });
    expect(finals(page)[1]!.interrupted).toBeUndefined();
    expect(Math.abs(samplesOf(page, 2) - 43_200)).toBeLessThanOrEqual(2);
    await until(() => histories.at(-1)?.length === 3);
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['assistant: Welcome to the harbour.', 'user: where is the ferry', 'assistant: You said where is the ferry.']);
    expect(framesOf(page, 'error')).toEqual([]);
    await c.finish(LiveCode.hangUp);
    await until(() => conn.closed);
  });

  it('a private agent through a signed URL fetched with the key — the key never reaches the socket, the page or the log; the visitor speaks: transcript and answer in history, audio at the page’s rate', async () => {
    fake.knobs = { transcripts: ['what time is the last boat'] };
    const { c, page, histories, warnings } = openSession({ brain: privateAgent(), sampleRate: 16_000 });
    expect(page.frames[0]).toMatchObject({ type: 'ready', audioSampleRate: 16_000 });
    await until(() => finals(page).length === 1, 8000, 'greeting');
    expect(fake.signedUrlRequests.at(-1)).toEqual({ agentId: ELEVENLABS_AGENTS.private, key: ELEVENLABS_CONVAI_KEY, status: 200 });
    const conn = fake.connections.at(-1)!;
    expect(conn.query.get('conversation_signature')).toMatch(/^sig_/);
    expect(conn.headers['xi-api-key']).toBeUndefined();
    expect(JSON.stringify(conn.headers)).not.toContain(ELEVENLABS_CONVAI_KEY);

    sendMic(c, 400, true);
    sendMic(c, 400, false);
    await until(() => finals(page).length === 2, 8000, 'spoken answer');
    // 800 ms of 16 kHz mic audio to a 16 kHz agent: as it came (less the resampler's look-ahead).
    expect(conn.inputSamples).toBeGreaterThanOrEqual(12_800 - 32);
    expect(conn.inputSamples).toBeLessThanOrEqual(12_800);
    expect(framesOf(page, 'transcript').filter((f) => f.final)).toEqual([{ type: 'transcript', text: 'what time is the last boat', final: true }]);
    const answer = finals(page)[1]!;
    expect(answer).toMatchObject({ text: 'I heard what time is the last boat.' });
    // 8 words × 300 ms, at the page's 16 kHz.
    expect(Math.abs(samplesOf(page, answer.utt) - 38_400)).toBeLessThanOrEqual(2);
    await until(() => histories.at(-1)?.length === 3);
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['assistant: Welcome to the harbour.', 'user: what time is the last boat', 'assistant: I heard what time is the last boat.']);
    expect(c.metrics).toHaveLength(1);
    expect(c.metrics[0]!.endToEndMs).not.toBeNull();
    await c.finish(LiveCode.hangUp);
    // Nothing sent to the page, nor logged, carries the key.
    expect(page.raw.join('\n')).not.toContain(ELEVENLABS_CONVAI_KEY);
    expect(page.raw.join('\n')).not.toContain('sig_');
    expect(JSON.stringify(warnings)).not.toContain(ELEVENLABS_CONVAI_KEY);
  });

  it('an interruption mid-answer: the avatar stops (interrupted with what was heard), nothing more of that turn plays, history keeps the heard part; the next turn plays', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    fake.knobs = { firstMessage: '', answer: (a) => (a.kind === 'text' ? long : 'ok then'), chunkDelayMs: 15, transcripts: ['stop please'] };
    const { c, page, histories } = openSession();
    await until(() => listening(page));
    await until(() => fake.connections.at(-1)?.pongs.length === 1);
    const conn = fake.connections.at(-1)!;
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me everything' }));
    await until(() => page.audio.length >= 12, 8000, 'audio');
    const utt = page.audio[0]!.utt;
    // 1.2 s of audio sent; the page has played 600 ms of it when the visitor starts talking.
    c.onMessage(JSON.stringify({ type: 'playback', utt, state: 'progress', playedMs: 600 }));
    sendMic(c, 200, true);
    await until(() => framesOf(page, 'interrupted').length === 1, 8000, 'interrupted');
    const interrupted = framesOf(page, 'interrupted')[0]!;
    expect(interrupted.utt).toBe(utt);
    expect(interrupted.heardMs).toBeGreaterThanOrEqual(600);
    expect(interrupted.heardMs).toBeLessThan(900);
    await until(() => finals(page).some((f) => f.utt === utt), 8000, 'final');
    const final = finals(page).find((f) => f.utt === utt)!;
    expect(final.interrupted).toBe(true);
    // 600–900 ms of 300 ms words: the first two or three words (ElevenLabs gave the whole text up front).
    expect(final.text).toMatch(/^word0 word1( word2)?$/);
    expect(framesOf(page, 'utterance').filter((f) => f.utt === utt).map((f) => f.phase)).toEqual(['start']);
    const sentAfter = page.audio.filter((a) => a.utt === utt).length;
    await until(() => conn.turns[0]?.interrupted === true, 8000, 'the fake stopped its turn');
    // The visitor's words, then the agent's next turn (a new event id) plays as a new utterance.
    sendMic(c, 400, false);
    await until(() => finals(page).length === 2, 8000, 'next answer');
    expect(finals(page)[1]).toMatchObject({ text: 'ok then' });
    expect(finals(page)[1]!.utt).not.toBe(utt);
    expect(page.audio.filter((a) => a.utt === utt).length).toBe(sentAfter);
    await until(() => histories.at(-1)?.length === 4);
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}${h.interrupted ? ' (interrupted)' : ''}`)).toEqual([
      'user: tell me everything',
      `assistant: ${final.text} (interrupted)`,
      'user: stop please',
      'assistant: ok then',
    ]);
    await c.finish(LiveCode.hangUp);
  });

  it('the page’s own interrupt: the rest of the agent’s turn is dropped (ElevenLabs is not told, its audio keeps coming)', async () => {
    const long = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
    fake.knobs = { firstMessage: '', answer: () => long, chunkDelayMs: 10 };
    const { c, page } = openSession();
    await until(() => listening(page));
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me everything' }));
    await until(() => page.audio.length >= 5, 8000, 'audio');
    const utt = page.audio[0]!.utt;
    c.onMessage(JSON.stringify({ type: 'interrupt' }));
    await until(() => finals(page).length === 1);
    expect(finals(page)[0]).toMatchObject({ utt, interrupted: true });
    const sent = page.audio.length;
    await sleep(200);
    // The fake went on streaming that turn; none of it reached the page, and no new utterance began.
    expect(fake.connections.at(-1)!.turns.at(-1)).toMatchObject({ interrupted: false });
    expect(page.audio.length).toBe(sent);
    expect(framesOf(page, 'utterance').map((f) => f.phase)).toEqual(['start']);
    await c.finish(LiveCode.hangUp);
  });

  it('client tool calls: one of the avatar’s tools runs and its result goes back; any other is answered with an error at once', async () => {
    fake.knobs = { firstMessage: '' };
    const calls: { name: string; args: string }[] = [];
    const tools: RealtimeToolbox = {
      list: async () => [{ name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      call: async (name, args) => {
        calls.push({ name, args });
        return { ok: true, output: 'sunny and 24 degrees' };
      },
    };
    const withTool = openSession({ tools });
    await until(() => listening(withTool.page));
    withTool.c.onMessage(JSON.stringify({ type: 'text', text: 'what is the weather' }));
    await until(() => finals(withTool.page).some((f) => (f.text ?? '').includes('The tool said')), 8000, 'answer with the result');
    expect(calls).toEqual([{ name: 'get_weather', args: '{"city":"Lisbon"}' }]);
    expect(fake.connections.at(-1)!.toolResults).toEqual([{ tool_call_id: expect.stringMatching(/^toolu_/), result: 'sunny and 24 degrees', is_error: false }]);
    expect(framesOf(withTool.page, 'tool').map((f) => f.status)).toEqual(['started', 'ok']);
    expect(finals(withTool.page).map((f) => f.text).join(' ')).toBe('Let me check. The tool said sunny and 24 degrees.');
    await withTool.c.finish(LiveCode.hangUp);

    const without = openSession();
    await until(() => listening(without.page));
    without.c.onMessage(JSON.stringify({ type: 'text', text: 'what is the weather' }));
    await until(() => finals(without.page).some((f) => (f.text ?? '').includes('could not check')), 8000, 'answer without the tool');
    expect(fake.connections.at(-1)!.toolResults).toEqual([{ tool_call_id: expect.any(String), result: expect.stringContaining('not available'), is_error: true }]);
    expect(framesOf(without.page, 'tool')).toEqual([]);
    await without.c.finish(LiveCode.hangUp);
  });

  it('the wrong key: the signed URL is refused (401) — a provider error frame, the session stays up, the key in no frame or log line', async () => {
    const { c, page, warnings } = openSession({ brain: privateAgent({ apiKey: 'sk_el_wrong_key_456789' }) });
    await until(() => framesOf(page, 'error').length === 1);
    expect(framesOf(page, 'error')[0]).toEqual({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
    expect(warnings[0]?.data).toMatchObject({ provider: ELEVENLABS_CONVAI, status: 401, phase: 'connect', error: expect.stringContaining('Invalid API key') });
    expect(fake.signedUrlRequests.at(-1)).toMatchObject({ status: 401 });
    expect(c.isFinished).toBe(false);
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello?' }));
    await until(() => framesOf(page, 'error').length === 2);
    c.onMessage(JSON.stringify({ type: 'ping', t: 1 }));
    expect(page.frames.at(-1)).toEqual({ type: 'pong', t: 1 });
    expect(page.raw.join('\n') + JSON.stringify(warnings)).not.toContain('sk_el_wrong_key_456789');
    await c.finish(LiveCode.hangUp);
  });

  it('a private agent reached without a signature, and an agent whose audio is not PCM: refused with a clear reason', async () => {
    // What the handshake refusal looks like (public connection to a private agent).
    const refused = openSession({ brain: publicAgent({ agentId: ELEVENLABS_AGENTS.private }) });
    await until(() => framesOf(refused.page, 'error').length === 1);
    expect(refused.warnings[0]?.data).toMatchObject({ provider: ELEVENLABS_CONVAI, status: 403, error: expect.stringContaining('requires authentication') });
    await refused.c.finish(LiveCode.hangUp);

    fake.knobs = { outputFormat: 'ulaw_8000' };
    const ulaw = openSession();
    await until(() => framesOf(ulaw.page, 'error').length === 1);
    expect(ulaw.warnings[0]?.data).toMatchObject({ provider: ELEVENLABS_CONVAI, phase: 'connect', error: expect.stringContaining('output ulaw_8000') });
    expect(ulaw.c.isFinished).toBe(false);
    await until(() => fake.connections.at(-1)!.closed);
    await ulaw.c.finish(LiveCode.hangUp);
    expect([pcmRate('pcm_16000'), pcmRate('pcm_44100'), pcmRate('ulaw_8000'), pcmRate('mp3_44100_128'), pcmRate(undefined)]).toEqual([16_000, 44_100, null, null, null]);
  });

  it('a disconnect mid-answer: the utterance ends with what was sent, an error frame; the visitor’s next words reconnect — the agent hears the conversation so far and does not greet again', async () => {
    fake.knobs = { firstMessage: '' };
    let clock = 0;
    const { c, page } = openSession({ now: () => Date.now() + clock });
    await until(() => listening(page));
    const before = fake.connections.length;
    fake.knobs = { dropAfterChunks: 4, transcripts: ['are you there'] };
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me about the lighthouse' }));
    await until(() => framesOf(page, 'error').length === 1, 8000, 'error frame');
    expect(framesOf(page, 'error')[0]).toMatchObject({ code: LiveCode.providerError, fatal: false });
    const utt = framesOf(page, 'utterance')[0]!.utt;
    expect(framesOf(page, 'utterance').map((f) => f.phase)).toEqual(['start', 'end']);
    // Four 100 ms chunks at 16 kHz, resampled to 24 kHz.
    expect(Math.abs(samplesOf(page, utt) - 9_600)).toBeLessThanOrEqual(16);
    // ConvAI sends an answer's text whole, before its audio: the chat got the words as far as the audio came.
    const cut = { utt: finals(page)[0]!.utt, text: finals(page)[0]!.text ?? '' };
    expect(cut.utt).toBe(utt);
    expect(cut.text).toMatch(/^You said\b/);
    expect('You said tell me about the lighthouse.'.startsWith(cut.text) && cut.text.length < 38).toBe(true);

    // Mic audio reconnects (at most every 5 s: the session's clock is moved on).
    clock += 6000;
    sendMic(c, 20, false);
    await until(() => fake.connections.length === before + 1 && (fake.connections.at(-1)!.turns[0]?.text ?? '') !== '', 8000, 'reconnected, first message streamed');
    const again = fake.connections.at(-1)!;
    expect(again.contextualUpdates).toHaveLength(1);
    expect(again.contextualUpdates[0]).toContain(`Visitor: tell me about the lighthouse\nYou: ${cut.text}`);
    sendMic(c, 400, true);
    sendMic(c, 400, false);
    await until(() => finals(page).length === 2, 8000, 'answer after reconnect');
    expect(again.turns.map((t) => t.text)).toEqual(['Welcome to the harbour.', 'I heard are you there.']);
    // The new conversation's first message was not played again.
    expect(finals(page).map((f) => f.text)).toEqual([cut.text, 'I heard are you there.']);
    expect(framesOf(page, 'utterance').filter((f) => f.phase === 'start')).toHaveLength(2);
    await c.finish(LiveCode.hangUp);
  });

  it('sendMessageToAvatar asks the agent to say the words; the agent ending the call is no error, the next message reconnects', async () => {
    fake.knobs = { firstMessage: '' };
    const { c, page } = openSession();
    await until(() => listening(page));
    const conn = fake.connections.at(-1)!;
    c.onMessage(JSON.stringify({ type: 'text', text: 'The museum closes at six.', speak: true }));
    await until(() => finals(page).length === 1);
    expect(conn.userMessages).toEqual(['Say exactly this to the visitor now, word for word, and nothing else: "The museum closes at six."']);
    // ElevenLabs closes normally (its end-call tool, its time limit): no error frame.
    const before = fake.connections.length;
    conn.socket.close(1000, 'Conversation ended');
    await sleep(100);
    expect(framesOf(page, 'error')).toEqual([]);
    expect(c.isFinished).toBe(false);
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello again' }));
    await until(() => finals(page).some((f) => f.text === 'You said hello again.'), 8000, 'answer after the agent hung up');
    expect(fake.connections.length).toBe(before + 1);
    await c.finish(LiveCode.hangUp);
  });

  it('an unknown private agent: the signed-URL endpoint’s 404 is the reason logged', async () => {
    const { c, page, warnings } = openSession({ brain: privateAgent({ agentId: 'agent_missing_0001' }) });
    await until(() => framesOf(page, 'error').length === 1);
    expect(warnings[0]?.data).toMatchObject({ provider: ELEVENLABS_CONVAI, status: 404, error: expect.stringContaining('not found') });
    await c.finish(LiveCode.hangUp);
  });

  it('a resumed session: the agent is told the conversation so far and its first message is not played', async () => {
    const history: TLiveHistoryEntry[] = [
      { role: 'assistant', text: 'Welcome to the harbour.', at: 1 },
      { role: 'user', text: 'my name is Ada', at: 2 },
    ];
    const { c, page } = openSession({ history, resumed: true });
    await until(() => listening(page));
    await until(() => (fake.connections.at(-1)?.turns.length ?? 0) === 1 && fake.connections.at(-1)!.turns[0]!.text !== '');
    await sleep(200);
    expect(page.audio).toEqual([]);
    expect(finals(page)).toEqual([]);
    expect(fake.connections.at(-1)!.contextualUpdates[0]).toContain('You: Welcome to the harbour.\nVisitor: my name is Ada');
    await c.finish(LiveCode.hangUp);
  });
});
