import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../core/errors.js';
import { GEMINI_LIVE_KEY, GEMINI_PATH, startFakeGeminiLive, type FakeGeminiLive } from '../../test/fake-gemini-live.js';
import { connectGeminiLive, geminiLiveUrl, geminiSchema, geminiSensitivity, type GeminiLiveSettings } from './gemini.js';
import type { RealtimeEvent, RealtimeTool } from './types.js';
import { until } from '../../test/until.js';

// Issue 15, Gemini Live: the client's wire protocol against a local fake of BidiGenerateContent —
// what is sent (setup, audio, turns, tool responses) and which RealtimeEvents come out.

let fake: FakeGeminiLive;
beforeAll(async () => {
  fake = await startFakeGeminiLive();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.knobs = {};
});


const weather: RealtimeTool = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' }, days: { type: ['integer', 'null'] } }, required: ['city'], additionalProperties: false },
};

const settings = (extra: Partial<GeminiLiveSettings> = {}): GeminiLiveSettings => ({
  url: fake.url,
  apiKey: GEMINI_LIVE_KEY,
  model: 'gemini-2.0-flash-exp',
  voice: 'Kore',
  instructions: 'You are the harbour guide.',
  vad: { threshold: 0.7, prefixPaddingMs: 250, silenceDurationMs: 400 },
  allowPrivate: true,
  connectTimeoutMs: 3000,
  ...extra,
});

async function open(extra: Partial<GeminiLiveSettings> = {}) {
  const events: RealtimeEvent[] = [];
  const c = await connectGeminiLive(settings(extra), (ev) => events.push(ev), new AbortController().signal);
  return { c, events, conn: fake.connections.at(-1)! };
}

describe('Gemini Live client (wire protocol)', () => {
  it('sends setup first — model, audio out with the voice, instructions, tools as function declarations, VAD, both transcriptions — and resolves on setupComplete', async () => {
    const { c, conn } = await open({ tools: [weather] });
    expect(conn.query.get('key')).toBe(GEMINI_LIVE_KEY);
    expect(conn.messages[0]).toEqual({
      setup: {
        model: 'models/gemini-2.0-flash-exp',
        generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
        systemInstruction: { parts: [{ text: 'You are the harbour guide.' }] },
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                description: 'The weather in a city.',
                // additionalProperties is refused by Gemini's schema; a nullable type is spelled its way.
                parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer', nullable: true } }, required: ['city'] },
              },
            ],
          },
        ],
        realtimeInputConfig: {
          automaticActivityDetection: { disabled: false, startOfSpeechSensitivity: 'START_SENSITIVITY_LOW', endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH', prefixPaddingMs: 250, silenceDurationMs: 400 },
          activityHandling: 'START_OF_ACTIVITY_INTERRUPTS',
        },
        inputAudioTranscription: {},
        outputAudioTranscription: {},
      },
    });
    expect(c.inputSampleRate).toBe(16_000);
    expect(c.outputSampleRate).toBe(24_000);
    c.close();
  });

  it('without tools no tools field; text-only asks for TEXT and no voice', async () => {
    const { c, conn } = await open({ textOnly: true });
    const setup = conn.messages[0]!.setup as Record<string, unknown>;
    expect(setup.tools).toBeUndefined();
    expect(setup.generationConfig).toEqual({ responseModalities: ['TEXT'] });
    expect(setup.outputAudioTranscription).toBeUndefined();
    c.close();
  });

  it('mic audio as realtimeInput.audio at 16 kHz; typed text, the greeting and the history as clientContent turns', async () => {
    const { c, conn, events } = await open();
    c.seedHistory([
      { role: 'assistant', text: 'Welcome.', at: 1 },
      { role: 'user', text: '', at: 2 },
      { role: 'user', text: 'my name is Ada', at: 3 },
    ]);
    c.appendAudio(new Int16Array(320));
    c.say('Welcome to the harbour.');
    await until(() => events.some((e) => e.type === 'response-done'), 5000, 'greeting');
    c.sendUserText('where is the ferry');
    await until(() => events.filter((e) => e.type === 'response-done').length === 2, 5000, 'answer');
    const sent = conn.messages.slice(1);
    expect(sent[0]).toEqual({ clientContent: { turns: [{ role: 'model', parts: [{ text: 'Welcome.' }] }, { role: 'user', parts: [{ text: 'my name is Ada' }] }], turnComplete: false } });
    expect(sent[1]).toEqual({ realtimeInput: { audio: { mimeType: 'audio/pcm;rate=16000', data: Buffer.alloc(640).toString('base64') } } });
    expect(sent[2]).toEqual({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'Say exactly this to the visitor now, word for word, and nothing else: "Welcome to the harbour."' }] }], turnComplete: true } });
    expect(sent[3]).toEqual({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'where is the ferry' }] }], turnComplete: true } });
    // Each model turn: response-start, 24 kHz audio and transcript under our ids, response-done.
    const first = events.filter((e) => 'responseId' in e && e.responseId === 'gemini-turn-1');
    expect(first[0]).toEqual({ type: 'response-start', responseId: 'gemini-turn-1' });
    expect(first.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Welcome to the harbour.');
    expect(first.filter((e) => e.type === 'audio').reduce((n, e) => n + (e as { pcm: Int16Array }).pcm.length, 0)).toBe(4 * 7200);
    expect(first.at(-1)).toEqual({ type: 'response-done', responseId: 'gemini-turn-1', status: 'completed', error: null });
    c.close();
    expect(events.at(-1)).toEqual({ type: 'closed', error: null });
  });

  it('a tool call: tool-call event, the result as toolResponse.functionResponses with the call’s id; the model goes on', async () => {
    fake.knobs = { toolCall: { name: 'get_weather', args: { city: 'Oslo' } } };
    const { c, conn, events } = await open({ tools: [weather] });
    c.sendUserText('weather in Oslo?');
    await until(() => events.some((e) => e.type === 'tool-call'));
    const call = events.find((e) => e.type === 'tool-call') as Extract<RealtimeEvent, { type: 'tool-call' }>;
    expect(call).toEqual({ type: 'tool-call', callId: 'function-call-1', name: 'get_weather', args: '{"city":"Oslo"}' });
    c.toolResult(call.callId, call.name, 'sunny, 21 degrees');
    await until(() => events.some((e) => e.type === 'response-done'));
    expect(conn.messages.at(-1)).toEqual({ toolResponse: { functionResponses: [{ id: 'function-call-1', name: 'get_weather', response: { output: 'sunny, 21 degrees' } }] } });
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('The tool said "sunny, 21 degrees"');
    // A JSON object result is the response itself.
    fake.knobs = { toolCall: { name: 'get_weather', args: {} } };
    c.sendUserText('and tomorrow?');
    await until(() => events.filter((e) => e.type === 'tool-call').length === 2);
    c.toolResult('function-call-2', 'get_weather', '{"output":"rain"}');
    await until(() => conn.toolResponses.length === 2);
    expect(conn.toolResponses[1]).toEqual({ id: 'function-call-2', name: 'get_weather', response: { output: 'rain' } });
    c.close();
  });

  it('a cancelled tool call gets no toolResponse', async () => {
    fake.knobs = { toolCall: { name: 'get_weather', args: { city: 'Oslo' } }, cancelToolCall: true };
    const { c, conn, events } = await open({ tools: [weather] });
    c.sendUserText('weather?');
    await until(() => events.some((e) => e.type === 'tool-call'));
    await new Promise((r) => setTimeout(r, 50));
    c.toolResult('function-call-1', 'get_weather', 'late');
    await new Promise((r) => setTimeout(r, 30));
    expect(conn.messages.some((m) => 'toolResponse' in m)).toBe(false);
    c.close();
  });

  it('barge-in: interrupted → speech-started and the answer cancelled; its late leftovers are dropped', async () => {
    const long = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
    fake.knobs = { answer: () => long, deltaDelayMs: 10, transcripts: ['stop please'] };
    const { c, events } = await open({ vad: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 100 } });
    c.sendUserText('tell me everything');
    await until(() => events.filter((e) => e.type === 'audio').length >= 3);
    const loud = Int16Array.from({ length: 320 }, (_, i) => Math.round(9000 * Math.sin(i / 3)));
    c.appendAudio(loud);
    await until(() => events.some((e) => e.type === 'speech-started'));
    const at = events.findIndex((e) => e.type === 'speech-started');
    expect(events[at + 1]).toEqual({ type: 'response-done', responseId: 'gemini-turn-1', status: 'cancelled', error: null });
    // The visitor's words, then the answer to them as a new turn.
    for (let i = 0; i < 8; i++) c.appendAudio(new Int16Array(320));
    await until(() => events.some((e) => e.type === 'response-done' && e.responseId === 'gemini-turn-2'), 5000, 'second answer');
    const user = events.filter((e) => e.type === 'user-transcript' || e.type === 'user-item');
    expect(user[0]).toEqual({ type: 'user-item', itemId: 'gemini-user-1' });
    expect(user.at(-1)).toEqual({ type: 'user-transcript', itemId: 'gemini-user-1', text: 'stop please', final: true });
    expect(events.filter((e) => e.type === 'response-start').map((e) => (e as { responseId: string }).responseId)).toEqual(['gemini-turn-1', 'gemini-turn-2']);
    c.close();
  });

  it('goAway: the connection hands over between answers — closed without an error', async () => {
    fake.knobs = { goAwayAfterMs: 2000 };
    const { c, events } = await open();
    c.sendUserText('hi');
    await until(() => events.some((e) => e.type === 'closed'));
    expect(events.at(-1)).toEqual({ type: 'closed', error: null });
    // The answer in progress was finished first.
    expect(events.filter((e) => e.type === 'response-done')).toHaveLength(1);
    c.close();
  });

  it('a wrong key: the close (1007) rejects with a ProviderError that never shows the key', async () => {
    const err = await connectGeminiLive(settings({ apiKey: 'AIza-wrong-key-0000' }), () => undefined, new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).provider).toBe('gemini-live');
    expect((err as Error).message).toContain('1007 API key not valid');
    expect((err as Error).message).not.toContain('AIza-wrong-key-0000');
    // A refused handshake (wrong path) carries the HTTP status.
    const refused = await connectGeminiLive(settings({ url: `${fake.url.replace(/\/ws$/, '')}/v1/nothing/BidiGenerateContent` }), () => undefined, new AbortController().signal).catch((e: unknown) => e);
    expect(refused).toMatchObject({ provider: 'gemini-live', status: 404 });
    expect((refused as Error).message).not.toContain(GEMINI_LIVE_KEY);
  });

  it('a dropped socket mid-answer: closed with an error', async () => {
    fake.knobs = { dropAfterChunks: 2 };
    const { c, events } = await open();
    c.sendUserText('hello');
    await until(() => events.some((e) => e.type === 'closed'));
    const closed = events.at(-1) as Extract<RealtimeEvent, { type: 'closed' }>;
    expect(closed.error).toBeInstanceOf(ProviderError);
    expect(closed.error!.message).toContain('the connection closed (1006');
    c.close();
  });
});

describe('Gemini Live settings', () => {
  it('derives the BidiGenerateContent URL from the base URL, the key as ?key=', () => {
    expect(geminiLiveUrl('wss://generativelanguage.googleapis.com/ws', 'k1')).toBe(`wss://generativelanguage.googleapis.com${GEMINI_PATH}?key=k1`);
    expect(geminiLiveUrl('wss://generativelanguage.googleapis.com', 'k1')).toBe(`wss://generativelanguage.googleapis.com${GEMINI_PATH}?key=k1`);
    expect(geminiLiveUrl(`https://generativelanguage.googleapis.com${GEMINI_PATH}?key=old`, 'k/2')).toBe(`https://generativelanguage.googleapis.com${GEMINI_PATH}?key=k%2F2`);
  });

  it('maps the VAD threshold to Gemini’s start/end sensitivities (0.5: Gemini’s defaults)', () => {
    expect(geminiSensitivity(0.8)).toEqual({ startOfSpeechSensitivity: 'START_SENSITIVITY_LOW', endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH' });
    expect(geminiSensitivity(0.2)).toEqual({ startOfSpeechSensitivity: 'START_SENSITIVITY_HIGH', endOfSpeechSensitivity: 'END_SENSITIVITY_LOW' });
    expect(geminiSensitivity(0.5)).toEqual({});
  });

  it('reduces JSON Schema to Gemini’s subset, nested', () => {
    expect(geminiSchema({ $schema: 'x', type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { a: { type: 'number' } }, additionalProperties: false } } } })).toEqual({
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'object', properties: { a: { type: 'number' } } } } },
    });
  });
});
