import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import { sessionConfig } from '../test/brain-deps.js';
import { GEMINI_LIVE_KEY, startFakeGeminiLive, type FakeGeminiLive } from '../test/fake-gemini-live.js';
import { Conversation } from './conversation.js';
import { createRealtimeSession, type RealtimeBrainConfig } from './realtime-session.js';
import { fakePage, finals, framesOf, samplesOf, sendMic, until } from '../test/live-page.js';

// Issue 15, SpeechToSpeech with Gemini Live: the same session path as OpenAI Realtime
// (realtime.test.ts) against a local fake of BidiGenerateContent — what the page receives and
// what Gemini is sent. Tool calls are tested at the wire level (providers/realtime/gemini.test.ts).
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const listening = (page: { frames: TWorkerFrame[] }) => framesOf(page, 'state').some((f) => f.state === 'listening');

let fake: FakeGeminiLive;
beforeAll(async () => {
  fake = await startFakeGeminiLive();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.knobs = {};
});

type GeminiBrain = Extract<RealtimeBrainConfig, { kind: 'realtime' }>;
const brainFor = (extra: Partial<GeminiBrain> = {}): GeminiBrain => ({
  kind: 'realtime',
  provider: 'gemini',
  url: fake.url,
  apiKey: GEMINI_LIVE_KEY,
  platform: false,
  model: 'gemini-2.0-flash-exp',
  voice: 'Puck',
  instructions: 'You are the harbour guide.',
  greeting: 'Welcome to the harbour.',
  vad: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 200 },
  ...extra,
});

function openSession(opts: { brain?: RealtimeBrainConfig; history?: TLiveHistoryEntry[]; resumed?: boolean } = {}) {
  const brain = opts.brain ?? brainFor();
  const histories: TLiveHistoryEntry[][] = [];
  const warnings: { msg: string; data?: object }[] = [];
  const config = sessionConfig(brain, { textOnly: false, allowPrivateUrls: true, history: opts.history ?? [], resumed: opts.resumed ?? false, avatar: { nlpEngine: 9, setupMode: 2 } });
  const c = new Conversation({
    config,
    brain: null,
    realtime: createRealtimeSession({ brain, allowPrivateUrls: true, textOnly: false, connectTimeoutMs: 3000 }),
    micOn: true,
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { info() {}, error() {}, warn: (msg, data) => warnings.push({ msg, data }) },
  });
  const page = fakePage();
  c.attach(page);
  return { c, page, histories, warnings };
}

describe('SpeechToSpeech with Gemini Live (local fake of BidiGenerateContent)', () => {
  it('says the greeting first (24 kHz audio, its words, one utterance), then answers typed text; history both ways', async () => {
    const { c, page, histories } = openSession();
    expect(page.frames[0]).toMatchObject({ type: 'ready', audioSampleRate: 24_000, listening: true });
    await until(() => finals(page).length === 1, 8000, 'greeting');
    const conn = fake.connections.at(-1)!;
    expect(conn.setup).toMatchObject({ model: 'models/gemini-2.0-flash-exp', generationConfig: { speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } } } });
    expect(finals(page)[0]).toMatchObject({ utt: 1, text: 'Welcome to the harbour.' });
    expect(framesOf(page, 'utterance').map((f) => `${f.utt}:${f.phase}`)).toEqual(['1:start', '1:end']);
    expect(samplesOf(page, 1)).toBe(28_800);
    expect(page.audio.filter((a) => a.utt === 1).at(-1)).toMatchObject({ last: true, samples: 0 });

    c.onMessage(JSON.stringify({ type: 'text', id: 'm1', text: 'where is the ferry' }));
    await until(() => finals(page).length === 2, 8000, 'answer');
    expect(conn.turns.filter((t) => t.role === 'user').map((t) => t.text)).toContain('where is the ferry');
    expect(finals(page)[1]).toMatchObject({ utt: 2, text: 'You said where is the ferry.' });
    expect(framesOf(page, 'assistant').filter((f) => f.utt === 2 && !f.final).map((f) => f.delta).join('')).toBe('You said where is the ferry.');
    await until(() => histories.at(-1)?.length === 3);
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['assistant: Welcome to the harbour.', 'user: where is the ferry', 'assistant: You said where is the ferry.']);
    await c.finish(LiveCode.hangUp);
    await until(() => conn.closed);
  });

  it('a spoken turn: 16 kHz mic straight through, the visitor’s transcript and the answer in the chat and history, in order', async () => {
    fake.knobs = { transcripts: ['what time is the last boat'] };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => listening(page));
    const conn = fake.connections.at(-1)!;
    sendMic(c, 400, true);
    sendMic(c, 400, false);
    await until(() => finals(page).length === 1, 8000, 'spoken answer');
    // 800 ms at 16 kHz, no resampling on the way in.
    expect(conn.inputSamples).toBe(12_800);
    expect([...conn.mimeTypes]).toEqual(['audio/pcm;rate=16000']);
    expect(finals(page)[0]).toMatchObject({ text: 'I heard what time is the last boat.' });
    await until(() => framesOf(page, 'transcript').some((f) => f.final));
    const finalTranscripts = framesOf(page, 'transcript').filter((f) => f.final);
    expect(finalTranscripts).toHaveLength(1);
    expect(finalTranscripts[0]).toMatchObject({ type: 'transcript', text: 'what time is the last boat', final: true });
    expect(framesOf(page, 'transcript').filter((f) => !f.final).map((f) => f.text)).toContain('what time is the');
    await until(() => histories.at(-1)?.length === 2);
    // The visitor's words keep their place before the answer, though the last of them came after it began.
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['user: what time is the last boat', 'assistant: I heard what time is the last boat.']);
    await c.finish(LiveCode.hangUp);
  });

  it('barge-in (Gemini’s interrupted): the avatar stops with what was heard, no more audio, history keeps the heard part', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    fake.knobs = { answer: (a) => (a.kind === 'text' ? long : 'ok'), deltaDelayMs: 15 };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => listening(page));
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me everything' }));
    await until(() => page.audio.length >= 12, 8000, 'audio');
    const utt = page.audio[0]!.utt;
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
    expect(final.text).toMatch(/^word0 word1( word2)?$/);
    expect(framesOf(page, 'utterance').filter((f) => f.utt === utt).map((f) => f.phase)).toEqual(['start']);
    const sentAfter = page.audio.filter((a) => a.utt === utt).length;
    await sleep(100);
    expect(page.audio.filter((a) => a.utt === utt).length).toBe(sentAfter);
    await until(() => histories.some((h) => h.some((e) => e.interrupted)));
    expect(histories.at(-1)!.find((e) => e.interrupted)).toMatchObject({ role: 'assistant', text: final.text });
    // Gemini has no truncate or cancel: nothing but setup, audio and turns was sent.
    expect(new Set(fake.connections.at(-1)!.messages.flatMap((m) => Object.keys(m)))).toEqual(new Set(['setup', 'clientContent', 'realtimeInput']));
    await c.finish(LiveCode.hangUp);
  });

  it('a disconnect mid-answer: the utterance ends with what was sent, an error frame, the session survives; the next message reconnects with the history', async () => {
    fake.knobs = { dropAfterChunks: 4 };
    const { c, page, warnings } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => listening(page));
    const before = fake.connections.length;
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me about the lighthouse' }));
    await until(() => framesOf(page, 'error').length === 1, 8000, 'error frame');
    expect(framesOf(page, 'error')[0]).toEqual({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
    expect(warnings[0]?.data).toMatchObject({ provider: 'gemini-live', phase: 'connection' });
    const utt = framesOf(page, 'utterance')[0]!.utt;
    expect(framesOf(page, 'utterance').map((f) => f.phase)).toEqual(['start', 'end']);
    // Four 100 ms chunks: "You" (300 ms) and the start of "said".
    expect(samplesOf(page, utt)).toBe(9_600);
    expect(finals(page)[0]).toMatchObject({ utt, text: 'You said' });
    expect(c.isFinished).toBe(false);
    c.onMessage(JSON.stringify({ type: 'text', text: 'are you there' }));
    await until(() => finals(page).length === 2, 8000, 'answer after reconnect');
    expect(finals(page)[1]).toMatchObject({ text: 'You said are you there.' });
    expect(fake.connections.length).toBe(before + 1);
    // The new connection was given the conversation so far (turnComplete false) before the new message.
    const again = fake.connections.at(-1)!;
    expect(again.messages[1]).toMatchObject({ clientContent: { turnComplete: false } });
    expect(again.turns.map((t) => `${t.role}: ${t.text}`).slice(0, 3)).toEqual(['user: tell me about the lighthouse', 'model: You said', 'user: are you there']);
    await c.finish(LiveCode.hangUp);
  });

  it('the wrong key: Gemini’s refusal reaches the page as an error frame (never the key in the log), the session stays up', async () => {
    const { c, page, warnings } = openSession({ brain: brainFor({ apiKey: 'AIza-wrong-key-for-test' }) });
    await until(() => framesOf(page, 'error').length === 1);
    expect(framesOf(page, 'error')[0]).toEqual({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
    expect(warnings[0]?.data).toMatchObject({ provider: 'gemini-live', phase: 'connect', error: expect.stringContaining('API key not valid') });
    expect(JSON.stringify(warnings)).not.toContain('AIza-wrong-key-for-test');
    expect(c.isFinished).toBe(false);
    c.onMessage(JSON.stringify({ type: 'ping', t: 1 }));
    expect(page.frames.at(-1)).toEqual({ type: 'pong', t: 1 });
    await c.finish(LiveCode.hangUp);
  });

  it('a resumed session does not greet again and gives Gemini the history as turns', async () => {
    const history: TLiveHistoryEntry[] = [
      { role: 'assistant', text: 'Welcome to the harbour.', at: 1 },
      { role: 'user', text: 'my name is Ada', at: 2 },
    ];
    const { c, page } = openSession({ history, resumed: true });
    await until(() => listening(page));
    await sleep(50);
    expect(finals(page)).toEqual([]);
    expect(fake.connections.at(-1)!.turns.map((t) => `${t.role}: ${t.text}`)).toEqual(['model: Welcome to the harbour.', 'user: my name is Ada']);
    await c.finish(LiveCode.hangUp);
  });
});
