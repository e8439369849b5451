import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, type TLiveHistoryEntry } from '@persona/contract';
import { sessionConfig } from '../test/brain-deps.js';
import { OPENAI_REALTIME_KEY, startFakeOpenAiRealtime, type FakeOpenAiRealtime } from '../test/fake-openai-realtime.js';
import { Conversation } from './conversation.js';
import { createRealtimeSession, heardPart, type OperatorRealtime, type RealtimeBrainConfig } from './realtime-session.js';
import { fakePage, finals, framesOf, samplesOf, sendMic, until } from '../test/live-page.js';
import { connectOpenAiRealtime, type RealtimeEvent } from '../providers/realtime/openai.js';

// Issue 15, SpeechToSpeech with OpenAI Realtime: the session path against a local fake of the
// provider's WebSocket protocol — what the page receives and what the provider is sent.

const log = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fake: FakeOpenAiRealtime;
beforeAll(async () => {
  fake = await startFakeOpenAiRealtime();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.knobs = {};
});

const brainFor = (extra: Partial<Extract<RealtimeBrainConfig, { kind: 'realtime' }>> = {}): RealtimeBrainConfig => ({
  kind: 'realtime',
  provider: 'openai',
  url: fake.url,
  apiKey: OPENAI_REALTIME_KEY,
  platform: false,
  model: 'gpt-realtime',
  voice: 'verse',
  instructions: 'You are the harbour guide.',
  greeting: 'Welcome to the harbour.',
  vad: { threshold: 0.6, prefixPaddingMs: 250, silenceDurationMs: 200 },
  ...extra,
});

function openSession(opts: { brain?: RealtimeBrainConfig; sampleRate?: number; allowPrivateUrls?: boolean; operator?: OperatorRealtime; history?: TLiveHistoryEntry[]; resumed?: boolean } = {}) {
  const brain = opts.brain ?? brainFor();
  const allowPrivateUrls = opts.allowPrivateUrls ?? true;
  const histories: TLiveHistoryEntry[][] = [];
  const warnings: { msg: string; data?: object }[] = [];
  const config = sessionConfig(brain, { textOnly: false, allowPrivateUrls, history: opts.history ?? [], resumed: opts.resumed ?? false, avatar: { nlpEngine: 9, setupMode: 2 } });
  const c = new Conversation({
    config,
    brain: null,
    realtime: createRealtimeSession({ brain, allowPrivateUrls, textOnly: false, sampleRate: opts.sampleRate, operator: opts.operator, connectTimeoutMs: 3000 }),
    micOn: true,
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { ...log, warn: (msg, data) => warnings.push({ msg, data }) },
  });
  const page = fakePage();
  c.attach(page);
  return { c, page, histories, warnings };
}

describe('SpeechToSpeech with OpenAI Realtime (local fake of its WebSocket protocol)', () => {
  it('configures the session, says the greeting and answers typed text: utterance frames, 24 kHz PCM, text, history both ways', async () => {
    const { c, page, histories } = openSession();
    expect(page.frames[0]).toMatchObject({ type: 'ready', audioSampleRate: 24_000, listening: true });
    await until(() => finals(page).length === 1, 8000, 'greeting');
    const conn = fake.connections.at(-1)!;
    expect(conn.headers.authorization).toBe(`Bearer ${OPENAI_REALTIME_KEY}`);
    expect(conn.query.get('model')).toBe('gpt-realtime');
    expect(conn.session).toMatchObject({
      type: 'realtime',
      model: 'gpt-realtime',
      instructions: 'You are the harbour guide.',
      output_modalities: ['audio'],
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24_000 }, turn_detection: { type: 'server_vad', threshold: 0.6, prefix_padding_ms: 250, silence_duration_ms: 200, interrupt_response: true } },
        output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'verse' },
      },
    });
    // The greeting: said first, as utterance 1 (4 words × 300 ms of the fake's audio).
    expect(finals(page)[0]).toMatchObject({ utt: 1, text: 'Welcome to the harbour.' });
    expect(framesOf(page, 'utterance').map((f) => `${f.utt}:${f.phase}`)).toEqual(['1:start', '1:end']);
    expect(samplesOf(page, 1)).toBe(28_800);
    expect(page.audio.filter((a) => a.utt === 1).at(-1)).toMatchObject({ last: true, samples: 0 });
    expect(page.audio.filter((a) => a.utt === 1).map((a) => a.seq)).toEqual(page.audio.filter((a) => a.utt === 1).map((_, i) => i));

    c.onMessage(JSON.stringify({ type: 'text', id: 'm1', text: 'where is the ferry' }));
    await until(() => finals(page).length === 2, 8000, 'answer');
    expect(framesOf(page, 'transcript')).toContainEqual({ type: 'transcript', id: 'm1', text: 'where is the ferry', final: true });
    expect(conn.items.filter((i) => i.role === 'user').map((i) => i.text)).toEqual(['where is the ferry']);
    const answer = finals(page)[1]!;
    expect(answer).toMatchObject({ utt: 2, text: 'You said where is the ferry.' });
    expect(framesOf(page, 'assistant').filter((f) => f.utt === 2 && !f.final).map((f) => f.delta).join('')).toBe('You said where is the ferry.');
    expect(samplesOf(page, 2)).toBe(43_200);
    await until(() => histories.at(-1)?.length === 3);
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['assistant: Welcome to the harbour.', 'user: where is the ferry', 'assistant: You said where is the ferry.']);
    await c.finish(LiveCode.hangUp);
    await until(() => conn.closed);
  });

  it('a spoken turn: 16 kHz mic resampled to 24 kHz for the provider, its answer resampled to the page’s 16 kHz, the transcript in the chat and history', async () => {
    fake.knobs = { transcripts: ['what time is the last boat'] };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }), sampleRate: 16_000 });
    expect(page.frames[0]).toMatchObject({ type: 'ready', audioSampleRate: 16_000 });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
    const conn = fake.connections.at(-1)!;
    sendMic(c, 400, true);
    sendMic(c, 400, false);
    await until(() => finals(page).length === 1, 8000, 'spoken answer');
    // 800 ms of mic audio: 19,200 samples at 24 kHz (less the resampler's 16-sample look-ahead).
    expect(conn.inputSamples).toBeGreaterThanOrEqual(19_200 - 32);
    expect(conn.inputSamples).toBeLessThanOrEqual(19_200);
    expect(conn.events.filter((e) => e.type === 'input_audio_buffer.append').length).toBe(40);
    expect(finals(page)[0]).toMatchObject({ text: 'I heard what time is the last boat.' });
    const utt = finals(page)[0]!.utt;
    // 8 words × 300 ms at the page's 16 kHz.
    expect(Math.abs(samplesOf(page, utt) - 38_400)).toBeLessThanOrEqual(2);
    await until(() => framesOf(page, 'transcript').some((f) => f.final));
    // Transcribed after the answer began: the page is told to show it above that answer.
    expect(framesOf(page, 'transcript').filter((f) => f.final)).toEqual([{ type: 'transcript', text: 'what time is the last boat', final: true, beforeUtt: utt }]);
    expect(framesOf(page, 'transcript').filter((f) => !f.final).length).toBeGreaterThan(0);
    await until(() => histories.at(-1)?.length === 2);
    // The visitor's words keep their place before the answer, though they were transcribed after it began.
    expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['user: what time is the last boat', 'assistant: I heard what time is the last boat.']);
    // A delta that the final text completes is no correction (ADR 102).
    expect(histories.at(-1)![0]!.detail).toBeUndefined();
    expect(c.metrics).toHaveLength(1);
    expect(c.metrics[0]!.endToEndMs).not.toBeNull();
    await c.finish(LiveCode.hangUp);
  });

  it('input transcription deltas the final text changed are the spoken turn’s corrections (ADR 102)', async () => {
    fake.knobs = { transcripts: ['what time is the last boat'], transcriptDeltas: ['what time is the lust', ' bot'] };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
    sendMic(c, 400, true);
    sendMic(c, 400, false);
    await until(() => histories.at(-1)?.[0]?.text === 'what time is the last boat', 8000, 'the question');
    expect(framesOf(page, 'transcript').filter((f) => !f.final).map((f) => f.text)).toEqual(['what time is the lust', 'what time is the lust bot']);
    expect(histories.at(-1)![0]!.detail).toEqual({ interims: ['what time is the lust', 'what time is the lust bot'] });
    await c.finish(LiveCode.hangUp);
  });

  it('barge-in mid-answer: the avatar stops (interrupted with what was heard), the provider’s item is truncated there, history keeps the heard part', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    fake.knobs = { answer: (a) => (a.kind === 'text' ? long : 'ok'), deltaDelayMs: 15 };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
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
    await until(() => conn.truncations.length === 1, 8000, 'truncate');
    expect(conn.truncations[0]).toMatchObject({ content_index: 0, audio_end_ms: interrupted.heardMs });
    await until(() => finals(page).some((f) => f.utt === utt), 8000, 'final');
    const final = finals(page).find((f) => f.utt === utt)!;
    expect(final.interrupted).toBe(true);
    // 600–900 ms of 300 ms words: the first two or three words, never the whole answer.
    expect(final.text).toMatch(/^word0 word1( word2)?$/);
    expect(framesOf(page, 'utterance').filter((f) => f.utt === utt).map((f) => f.phase)).toEqual(['start']);
    const sentAfter = page.audio.length;
    await sleep(100);
    expect(page.audio.length).toBe(sentAfter);
    await until(() => histories.some((h) => h.some((e) => e.interrupted)));
    expect(histories.at(-1)!.at(-1)).toMatchObject({ role: 'assistant', text: final.text, interrupted: true });
    // The transcript's detail (ADR 102): how much was heard, of how long an answer (what had come of it).
    const detail = histories.at(-1)!.at(-1)!.detail!;
    expect(detail.heardMs).toBe(interrupted.heardMs);
    expect(detail.fullChars).toBeGreaterThan(final.text!.length);
    expect(detail.fullChars).toBeLessThanOrEqual(long.length);
    await c.finish(LiveCode.hangUp);
  });

  it('barge-in after the answer was streamed whole (its voice still playing): the page is sent the heard part, marked interrupted', async () => {
    const long = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
    fake.knobs = { answer: (a) => (a.kind === 'text' ? long : 'ok'), deltaDelayMs: 1 };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me everything' }));
    await until(() => finals(page).length === 1, 8000, 'the whole answer');
    const whole = finals(page)[0]!;
    expect(whole).toMatchObject({ text: long });
    expect(whole.interrupted).toBeUndefined();
    // 6 s of voice sent at once; the page has played 700 ms of it when the visitor talks.
    c.onMessage(JSON.stringify({ type: 'playback', utt: whole.utt, state: 'progress', playedMs: 700 }));
    sendMic(c, 200, true);
    await until(() => finals(page).length === 2, 8000, 'the correction');
    expect(framesOf(page, 'interrupted')).toHaveLength(1);
    const corrected = finals(page)[1]!;
    expect(corrected).toMatchObject({ utt: whole.utt, interrupted: true });
    expect(corrected.text).toMatch(/^word0 word1( word2)?$/);
    await until(() => histories.some((h) => h.some((e) => e.interrupted)));
    expect(histories.at(-1)!.at(-1)).toMatchObject({ role: 'assistant', text: corrected.text, interrupted: true });
    expect(histories.at(-1)!.at(-1)!.detail).toEqual({ heardMs: framesOf(page, 'interrupted')[0]!.heardMs, fullChars: long.length });
    await c.finish(LiveCode.hangUp);
  });

  it('a provider error: the apology and a non-fatal error frame, the conversation goes on (beta event names accepted)', async () => {
    fake.knobs = { failNextAnswer: { code: 'server_error', message: 'The server had an error while processing your request.' }, betaNames: true };
    const { c, page, warnings, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello' }));
    await until(() => finals(page).length === 1);
    expect(finals(page)[0]).toMatchObject({ text: LiveMessages['provider-error'] });
    // The transcript shows the failure with its answer: the provider and a code, never the message (ADR 102).
    await until(() => histories.at(-1)?.length === 2);
    expect(histories.at(-1)!.map((e) => e.detail)).toEqual([undefined, { errors: [{ provider: 'openai-realtime', code: 'failed', phase: 'reply' }] }]);
    expect(JSON.stringify(histories.at(-1))).not.toContain('server_error');
    expect(framesOf(page, 'error')).toEqual([{ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false }]);
    expect(warnings[0]?.data).toMatchObject({ provider: 'openai-realtime', phase: 'reply', error: expect.stringContaining('server_error') });
    c.onMessage(JSON.stringify({ type: 'text', text: 'again' }));
    await until(() => finals(page).length === 2);
    expect(finals(page)[1]).toMatchObject({ text: 'You said again.' });
    expect(samplesOf(page, finals(page)[1]!.utt)).toBe(21_600);
    await c.finish(LiveCode.hangUp);
  });

  it('a disconnect mid-answer: the utterance ends with what was sent, an error frame; the next message reconnects with the history', async () => {
    fake.knobs = { dropAfterDeltas: 4 };
    const { c, page, histories } = openSession({ brain: brainFor({ greeting: '' }) });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
    const before = fake.connections.length;
    c.onMessage(JSON.stringify({ type: 'text', text: 'tell me about the lighthouse' }));
    await until(() => framesOf(page, 'error').length === 1, 8000, 'error frame');
    expect(framesOf(page, 'error')[0]).toMatchObject({ code: LiveCode.providerError, fatal: false });
    const utt = framesOf(page, 'utterance')[0]!.utt;
    expect(framesOf(page, 'utterance').map((f) => f.phase)).toEqual(['start', 'end']);
    // Four 100 ms deltas: "You" (300 ms) and the start of "said".
    expect(samplesOf(page, utt)).toBe(9_600);
    expect(finals(page)[0]).toMatchObject({ utt, text: 'You said' });
    // The loss is shown with the answer it cut short.
    await until(() => histories.at(-1)?.at(-1)?.detail !== undefined, 8000, 'the answer’s detail');
    expect(histories.at(-1)!.at(-1)).toMatchObject({ role: 'assistant', text: 'You said', detail: { errors: [{ provider: 'openai-realtime', code: 'failed', phase: 'connection' }] } });
    c.onMessage(JSON.stringify({ type: 'text', text: 'are you there' }));
    await until(() => finals(page).length === 2, 8000, 'answer after reconnect');
    expect(fake.connections.length).toBe(before + 1);
    // The new connection was given the conversation so far before the new message.
    expect(fake.connections.at(-1)!.items.map((i) => `${i.role}: ${i.text}`).slice(0, 3)).toEqual(['user: tell me about the lighthouse', 'assistant: You said', 'user: are you there']);
    await c.finish(LiveCode.hangUp);
  });

  it('the wrong key: the provider’s refusal reaches the page as an error frame, the session stays up', async () => {
    const { c, page, warnings, histories } = openSession({ brain: brainFor({ apiKey: 'sk-wrong-key' }) });
    await until(() => framesOf(page, 'error').length === 1);
    expect(framesOf(page, 'error')[0]).toEqual({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
    expect(warnings[0]?.data).toMatchObject({ provider: 'openai-realtime', status: 401, phase: 'connect', error: expect.stringContaining('invalid_api_key') });
    expect(c.isFinished).toBe(false);
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello?' }));
    await until(() => framesOf(page, 'error').length === 2);
    // Both refusals go with the visitor's unanswered question: the one before it (between turns) and its own.
    const refused = { provider: 'openai-realtime', code: 'http-401', phase: 'connect' };
    await until(() => histories.at(-1)?.[0]?.detail?.errors?.length === 2, 8000, 'the question’s errors');
    expect(histories.at(-1)).toEqual([{ role: 'user', text: 'hello?', at: expect.any(Number), detail: { errors: [refused, refused] } }]);
    c.onMessage(JSON.stringify({ type: 'ping', t: 1 }));
    expect(page.frames.at(-1)).toEqual({ type: 'pong', t: 1 });
    await c.finish(LiveCode.hangUp);
  });

  it('a user-supplied realtime URL on a private address is refused unless the portal allows private URLs', async () => {
    const before = fake.connections.length;
    const { c, page, warnings } = openSession({ allowPrivateUrls: false });
    await until(() => framesOf(page, 'error').length === 1);
    expect(fake.connections.length).toBe(before);
    expect(warnings[0]?.data).toMatchObject({ phase: 'connect', error: expect.stringContaining('not a public address') });
    await c.finish(LiveCode.hangUp);
  });

  it('the product’s realtime: without the operator key a clear notice and no connection; with it, the operator’s key is used', async () => {
    const before = fake.connections.length;
    const platform = brainFor({ platform: true, url: '', apiKey: '' });
    const none = openSession({ brain: platform, allowPrivateUrls: false });
    await until(() => framesOf(none.page, 'notice').length === 1);
    expect(none.page.frames[0]).toMatchObject({ type: 'ready', listening: false });
    expect(framesOf(none.page, 'notice')[0]).toEqual({ type: 'notice', code: LiveCode.platformNotConfigured, message: LiveMessages['platform-not-configured'] });
    none.c.onMessage(JSON.stringify({ type: 'text', text: 'hello' }));
    expect(finals(none.page)[0]).toMatchObject({ text: LiveMessages['platform-not-configured'] });
    expect(fake.connections.length).toBe(before);
    await none.c.finish(LiveCode.hangUp);

    // The operator's URL may be private (its own network), whatever the avatar's rule.
    const withKey = openSession({ brain: platform, allowPrivateUrls: false, operator: { apiKey: OPENAI_REALTIME_KEY, url: fake.url } });
    await until(() => finals(withKey.page).length === 1);
    expect(fake.connections.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_REALTIME_KEY}`);
    await withKey.c.finish(LiveCode.hangUp);
  });

  it('a resumed session does not greet again and gives the model the history', async () => {
    const history: TLiveHistoryEntry[] = [
      { role: 'assistant', text: 'Welcome to the harbour.', at: 1 },
      { role: 'user', text: 'my name is Ada', at: 2 },
    ];
    const { c, page } = openSession({ history, resumed: true });
    await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'));
    await sleep(50);
    expect(finals(page)).toEqual([]);
    expect(fake.connections.at(-1)!.items.map((i) => `${i.role}: ${i.text}`)).toEqual(['assistant: Welcome to the harbour.', 'user: my name is Ada']);
    await c.finish(LiveCode.hangUp);
  });
});

describe('cancelling an answer (OpenAI Realtime connection)', () => {
  it('cancels the answer it saw start, by id: the answer the server VAD began for the visitor’s next turn goes on', async () => {
    fake.knobs = { transcripts: ['one', 'two'], deltaDelayMs: 20 };
    const events: RealtimeEvent[] = [];
    const lifetime = new AbortController();
    const vad = { threshold: 0.6, prefixPaddingMs: 250, silenceDurationMs: 200 };
    const live = await connectOpenAiRealtime({ url: fake.url, apiKey: OPENAI_REALTIME_KEY, model: 'gpt-realtime', voice: 'verse', instructions: '', vad, allowPrivate: true }, (ev) => events.push(ev), lifetime.signal);
    const conn = fake.connections.at(-1)!;
    await until(() => conn.session !== null, 8000, 'session.update');
    const speak = (loud: boolean, ms: number) => live.appendAudio(Int16Array.from({ length: (ms * 24_000) / 1000 }, (_, i) => (loud ? Math.round(9000 * Math.sin(i / 3)) : 0)));
    // The visitor's first turn: the server's answer to it starts.
    speak(true, 200);
    speak(false, 400);
    await until(() => events.some((e) => e.type === 'response-start'), 8000, 'first answer');
    const first = events.find((e) => e.type === 'response-start')!;
    // The visitor talks again and stops; the server cancels the first answer itself and begins the
    // second, before our own cancel (for the first, which we still think is running) arrives.
    speak(true, 200);
    speak(false, 400);
    live.cancelResponse();
    await until(() => events.filter((e) => e.type === 'response-done').length === 2, 8000, 'both answers done');
    const done = events.filter((e): e is Extract<RealtimeEvent, { type: 'response-done' }> => e.type === 'response-done');
    expect(done[0]).toMatchObject({ responseId: (first as { responseId: string }).responseId, status: 'cancelled' });
    expect(done[1]!.status).toBe('completed');
    expect(conn.events.filter((e) => e.type === 'response.cancel')).toEqual([{ type: 'response.cancel', response_id: (first as { responseId: string }).responseId }]);
    // The server's "nothing to cancel" for the first answer is a race, not an error.
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    live.close();
  });
});

describe('what was heard of a realtime answer', () => {
  it('is cut by the share of audio heard, at the end of a word', () => {
    expect(heardPart('one two three four', 500, 1000)).toBe('one two three');
    expect(heardPart('one two three four', 300, 1000)).toBe('one two');
    expect(heardPart('one two three four', 0, 1000)).toBe('');
    expect(heardPart('one two three four', 1200, 1000)).toBe('one two three four');
  });
});
