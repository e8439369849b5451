import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, type TLiveFunction, type TLiveHistoryEntry, type TLivePassage, type TWorkerFrame } from '@persona/contract';
import type { ToolRunner } from '../core/types.js';
import { createSandboxPool } from '../sandbox/pool.js';
import { createFunctionTools } from '../sandbox/tool-runner.js';
import { sessionConfig, testDeps } from '../test/brain-deps.js';
import { GEMINI_LIVE_KEY, startFakeGeminiLive, type FakeGeminiLive } from '../test/fake-gemini-live.js';
import { Conversation } from './conversation.js';
import { createRealtimeSession, type RealtimeBrainConfig } from './realtime-session.js';
import { createRealtimeToolbox, KNOWLEDGE_TOOL } from './realtime-tools.js';
import { fakePage, finals, framesOf, samplesOf, sendMic, until } from '../test/live-page.js';

// Issue 15, SpeechToSpeech with Gemini Live: the same session path as OpenAI Realtime
// (realtime.test.ts) against a local fake of BidiGenerateContent — what the page receives and
// what Gemini is sent — and the avatar's tools (a linked Python function, the knowledge search)
// called by the model through the whole session: toolCall → the sandbox → toolResponse → the answer.
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

interface ToolsSetup {
  functions: TLiveFunction[];
  runner: ToolRunner | null;
  /** The avatar has knowledge: search_knowledge finds these. */
  passages?: TLivePassage[];
  toolsWaitMs?: number;
}

function openSession(opts: { brain?: RealtimeBrainConfig; history?: TLiveHistoryEntry[]; resumed?: boolean; tools?: ToolsSetup } = {}) {
  const brain = opts.brain ?? brainFor();
  const histories: TLiveHistoryEntry[][] = [];
  const warnings: { msg: string; data?: object }[] = [];
  const t = opts.tools;
  const config = sessionConfig(brain, {
    textOnly: false,
    allowPrivateUrls: true,
    history: opts.history ?? [],
    resumed: opts.resumed ?? false,
    functions: t?.functions ?? [],
    avatar: { nlpEngine: 9, setupMode: 2, hasKnowledge: t?.passages !== undefined },
  });
  const deps = testDeps(config, { tools: t?.runner ?? null, passages: t?.passages });
  const c = new Conversation({
    config,
    brain: null,
    realtime: createRealtimeSession({ brain, allowPrivateUrls: true, textOnly: false, connectTimeoutMs: 3000, tools: t ? createRealtimeToolbox(deps, { toolsWaitMs: t.toolsWaitMs }) : null }),
    micOn: true,
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { info() {}, error() {}, warn: (msg, data) => warnings.push({ msg, data }) },
  });
  const page = fakePage();
  c.attach(page);
  return { c, page, histories, warnings, deps };
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

describe('Gemini Live tools through a live session (the page, the worker, the fake BidiGenerateContent)', () => {
  const toolFrames = (page: { frames: TWorkerFrame[] }) => framesOf(page, 'tool').map((f) => `${f.name}:${f.status}`);
  const stub = (name: string): TLiveFunction => ({ id: 1, name: `${name}.py`, code: '', allowNetwork: false });
  /** A function that runs until it is aborted (the signal it was given is kept). */
  const pendingRunner = (name: string) => {
    const seen: { signal: AbortSignal | null } = { signal: null };
    const runner: ToolRunner = {
      tools: async () => [{ name, description: 'Finds a free berth.', parameters: { type: 'object', properties: {} } }],
      call: (_name, _args, signal) => {
        seen.signal = signal;
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, error: 'aborted' }), { once: true }));
      },
    };
    return { runner, seen };
  };

  it('a linked Python function (the real sandbox) and search_knowledge: toolCall → tool frames → toolResponse → the model’s answer aloud', { timeout: 180_000 }, async () => {
    const pool = createSandboxPool({ size: 1, timeoutMs: 8000, log: { warn: () => {}, error: () => {} } });
    try {
      const code = `def share_fare(total: float, people: int = 1) -> dict:
    """Split a ferry fare between travellers.

    Args:
        total: The fare for the whole group.
        people: How many travellers share it.
    """
    return {"each": round(total / max(1, int(people)), 2)}
`;
      const functions: TLiveFunction[] = [{ id: 1, name: 'share_fare.py', code, allowNetwork: false }];
      const runner = createFunctionTools({ pool, functions, isolationKey: 'user:7', log: { info() {}, warn() {}, error() {} } });
      const passages: TLivePassage[] = [{ text: 'The ferry to Ushant leaves at 9:30 from quay 2.', source: 'Timetable 2026.pdf', collectionId: 1, itemId: 3 }];
      const { c, page, histories, deps } = openSession({ brain: brainFor({ greeting: '' }), tools: { functions, runner, passages, toolsWaitMs: 120_000 } });
      await until(() => listening(page), 150_000, 'listening');
      const conn = fake.connections.at(-1)!;
      // Both tools declared in setup, their schemas in Gemini's OpenAPI subset.
      const declared = (conn.setup!.tools as { functionDeclarations: { name: string; parameters: Record<string, unknown> }[] }[])[0]!.functionDeclarations;
      expect(declared.map((d) => d.name)).toEqual([KNOWLEDGE_TOOL, 'share_fare']);
      expect(declared[1]!.parameters).toMatchObject({ type: 'object', required: ['total'], properties: { total: { type: 'number' }, people: { type: 'integer' } } });
      expect(JSON.stringify(declared)).not.toMatch(/additionalProperties|\$schema/);

      // A typed question: the model calls the Python function.
      fake.knobs = { toolCall: { name: 'share_fare', args: { total: 90, people: 4 } } };
      c.onMessage(JSON.stringify({ type: 'text', text: 'we are four, the fare is 90' }));
      await until(() => finals(page).length === 1, 30_000, 'answer made from the function');
      expect(toolFrames(page)).toEqual(['share_fare:started', 'share_fare:ok']);
      // Gemini Live's BidiGenerateContentToolResponse: the call's id and name, the result as a JSON object.
      const responses = conn.messages.filter((m) => 'toolResponse' in m);
      expect(responses).toEqual([{ toolResponse: { functionResponses: [{ id: 'function-call-1', name: 'share_fare', response: { each: 22.5 } }] } }]);
      const first = finals(page)[0]!;
      expect(first).toMatchObject({ text: 'The tool said {"each":22.5}' });
      expect(first.interrupted).toBeUndefined();
      // The follow-up is spoken: one utterance, 4 words × 300 ms of 24 kHz audio, after the tool's frames.
      expect(framesOf(page, 'utterance').filter((f) => f.utt === first.utt).map((f) => f.phase)).toEqual(['start', 'end']);
      expect(samplesOf(page, first.utt)).toBe(28_800);
      const at = (pred: (f: TWorkerFrame) => boolean) => page.frames.findIndex(pred);
      expect(at((f) => f.type === 'tool' && f.status === 'ok')).toBeLessThan(at((f) => f.type === 'utterance' && f.utt === first.utt));

      // A spoken question: the model searches the knowledge base.
      fake.knobs = {
        transcripts: ['when does the ferry to Ushant leave'],
        toolCall: { name: KNOWLEDGE_TOOL, args: { query: 'ferry to Ushant' } },
        answer: (a) => (a.kind === 'tool' ? 'According to the timetable it leaves at 9:30.' : undefined),
      };
      sendMic(c, 400, true);
      sendMic(c, 400, false);
      await until(() => finals(page).length === 2, 30_000, 'answer made from the passages');
      expect(deps.knowledgeQueries).toEqual(['ferry to Ushant']);
      expect(conn.toolResponses[1]).toEqual({
        id: 'function-call-2',
        name: KNOWLEDGE_TOOL,
        response: { passages: [{ source: 'Timetable 2026.pdf', text: 'The ferry to Ushant leaves at 9:30 from quay 2.' }] },
      });
      expect(toolFrames(page)).toEqual(['share_fare:started', 'share_fare:ok', `${KNOWLEDGE_TOOL}:started`, `${KNOWLEDGE_TOOL}:ok`]);
      const second = finals(page)[1]!;
      expect(second).toMatchObject({ text: 'According to the timetable it leaves at 9:30.' });
      expect(samplesOf(page, second.utt)).toBe(8 * 7_200);
      await until(() => histories.at(-1)?.length === 4);
      expect(histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual([
        'user: we are four, the fare is 90',
        'assistant: The tool said {"each":22.5}',
        'user: when does the ferry to Ushant leave',
        'assistant: According to the timetable it leaves at 9:30.',
      ]);
      await until(() => framesOf(page, 'state').at(-1)?.state === 'listening');
      await c.finish(LiveCode.hangUp);
    } finally {
      await pool.close();
    }
  });

  it('barge-in while a call is pending: Gemini withdraws it, the running function is aborted, no toolResponse; the visitor’s new turn is answered', async () => {
    const { runner, seen } = pendingRunner('find_berth');
    fake.knobs = { toolCall: { name: 'find_berth', args: {} }, transcripts: ['never mind'] };
    const { c, page } = openSession({ brain: brainFor({ greeting: '' }), tools: { functions: [stub('find_berth')], runner } });
    await until(() => listening(page));
    const conn = fake.connections.at(-1)!;
    c.onMessage(JSON.stringify({ type: 'text', text: 'find me a berth' }));
    await until(() => seen.signal !== null, 8000, 'function called');
    expect(toolFrames(page)).toEqual(['find_berth:started']);
    expect(framesOf(page, 'state').at(-1)?.state).toBe('thinking');
    sendMic(c, 200, true);
    await until(() => seen.signal!.aborted, 8000, 'aborted');
    expect(toolFrames(page)).toEqual(['find_berth:started', 'find_berth:error']);
    sendMic(c, 400, false);
    await until(() => finals(page).length === 1, 8000, 'the new turn answered');
    expect(finals(page)[0]).toMatchObject({ text: 'I heard never mind.' });
    expect(conn.messages.some((m) => 'toolResponse' in m)).toBe(false);
    await c.finish(LiveCode.hangUp);
  });

  it('a call Gemini withdraws by itself (toolCallCancellation) stops the function too; the session goes on', async () => {
    const { runner, seen } = pendingRunner('find_berth');
    fake.knobs = { toolCall: { name: 'find_berth', args: {} }, cancelToolCall: true };
    const { c, page } = openSession({ brain: brainFor({ greeting: '' }), tools: { functions: [stub('find_berth')], runner } });
    await until(() => listening(page));
    const conn = fake.connections.at(-1)!;
    c.onMessage(JSON.stringify({ type: 'text', text: 'find me a berth' }));
    await until(() => toolFrames(page).length === 2, 8000, 'tool frames');
    expect(seen.signal?.aborted).toBe(true);
    expect(toolFrames(page)).toEqual(['find_berth:started', 'find_berth:error']);
    await until(() => framesOf(page, 'state').at(-1)?.state === 'listening');
    expect(conn.messages.some((m) => 'toolResponse' in m)).toBe(false);
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello' }));
    await until(() => finals(page).length === 1);
    expect(finals(page)[0]).toMatchObject({ text: 'You said hello.' });
    await c.finish(LiveCode.hangUp);
  });
});
