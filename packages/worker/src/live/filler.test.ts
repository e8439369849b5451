import { describe, expect, it } from 'vitest';
import { FillerOptions, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import { TURN_DEFAULTS } from '../listening/options.js';
import type { SttEngine } from '../providers/stt/types.js';
import type { Brain } from '../brains/types.js';
import { createSpeechPipeline, type SpeechEvent, type SpeechTurn, type SpeechTurnMetrics } from '../speech/pipeline.js';
import { fakeTools, sessionConfig, testDeps } from '../test/brain-deps.js';
import { startFakeOpenAi } from '../test/fake-openai.js';
import { createLlmBrain } from '../brains/llm.js';
import { FakeClock } from '../test/fake-clock.js';
import { scriptedTts } from '../test/scripted-tts.js';
import { levelVad, micFeeder } from '../test/spoken-session.js';
import { until } from '../test/until.js';
import { Conversation, type PageSocket } from './conversation.js';
import { FILLER_RECHECK_MS, Fillers, type FillerHost } from './filler.js';

/**
 * Fillers (issue 29, ADR 100): a short line in the avatar's voice when the answer is slow. The
 * filler's timer runs on the worker's fake clock; the brains wait on it too (fixed latencies).
 */

/** A voice the test drives: each `speak` is recorded; `audio(i)` sends its first audio, `end(i)` its end. */
function fakeHost() {
  const clock = new FakeClock(10);
  const emitted: SpeechEvent[] = [];
  const spoken: { text: string; utt: number; onEvent: (ev: SpeechEvent) => void; cancelled: boolean; finish: () => void; signal: AbortSignal }[] = [];
  let quiet = true;
  let utt = 100;
  const host: FillerHost = {
    clock,
    quiet: () => quiet,
    speak(text, onEvent, signal) {
      let finish!: (m: SpeechTurnMetrics) => void;
      const done = new Promise<SpeechTurnMetrics>((r) => (finish = r));
      const entry = { text, utt: ++utt, onEvent, cancelled: false, signal, finish: () => finish({} as SpeechTurnMetrics) };
      const turn = { utt: entry.utt, cancel: () => ((entry.cancelled = true), entry.finish()), done } as unknown as SpeechTurn;
      signal.addEventListener('abort', () => turn.cancel(), { once: true });
      spoken.push(entry);
      return { utt: entry.utt, turn };
    },
    emit: (ev) => void emitted.push(ev),
  };
  const audio = (i: number) => {
    const s = spoken[i]!;
    s.onEvent({ type: 'utterance', utt: s.utt, phase: 'start' });
    s.onEvent({ type: 'audio', utt: s.utt, seq: 0, pcm: new Uint8Array(320), last: false });
  };
  const end = (i: number) => {
    const s = spoken[i]!;
    s.onEvent({ type: 'utterance', utt: s.utt, phase: 'end', durationMs: 900 });
    s.finish();
  };
  return { clock, host, emitted, spoken, audio, end, setQuiet: (q: boolean) => (quiet = q) };
}

const answerAudio = (utt: number): SpeechEvent => ({ type: 'audio', utt, seq: 0, pcm: new Uint8Array(320), last: false });

describe('FillerRun (ADR 100)', () => {
  it('says nothing when the answer starts before 1.5 s', async () => {
    const h = fakeHost();
    const fillers = new Fillers(['One moment.'], h.host);
    const run = fillers.start(new AbortController().signal);
    await h.clock.advance(FillerOptions.afterMs - 1);
    run.answerStarted();
    await h.clock.advance(5_000);
    expect(h.spoken).toEqual([]);
    expect(run.status).toBe('skipped');
    expect(fillers.counts).toEqual({ said: 0, cancelled: 0, skipped: 1 });
  });

  it('says one line at 1.5 s, once, and holds the answer behind it until its end', async () => {
    const h = fakeHost();
    const fillers = new Fillers(['Let me check that.', 'One moment.'], h.host);
    const run = fillers.start(new AbortController().signal);
    await h.clock.advance(FillerOptions.afterMs - 1);
    expect(h.spoken).toEqual([]);
    await h.clock.advance(1);
    expect(h.spoken.map((s) => s.text)).toEqual(['Let me check that.']);
    h.audio(0);
    expect(run.status).toBe('playing');
    // The answer arrives while the filler is being sent: it waits behind it.
    run.answerStarted();
    run.answerEvent({ type: 'utterance', utt: 1, phase: 'start' });
    run.answerEvent(answerAudio(1));
    expect(h.emitted.map((e) => e.utt)).toEqual([101, 101]);
    h.end(0);
    await run.settled;
    expect(h.emitted.map((e) => `${e.utt}:${e.type}`)).toEqual(['101:utterance', '101:audio', '101:utterance', '1:utterance', '1:audio']);
    // Afterwards the answer goes straight on; nothing more is said in this turn.
    run.answerEvent(answerAudio(1));
    expect(h.emitted).toHaveLength(6);
    await h.clock.advance(10_000);
    expect(h.spoken).toHaveLength(1);
    expect(fillers.counts.said).toBe(1);
  });

  it('is cancelled cleanly when the answer arrives while the filler is still being synthesised', async () => {
    const h = fakeHost();
    const fillers = new Fillers(['One moment.'], h.host);
    const run = fillers.start(new AbortController().signal);
    await h.clock.advance(FillerOptions.afterMs);
    expect(h.spoken).toHaveLength(1);
    run.answerStarted();
    expect(h.spoken[0]!.cancelled).toBe(true);
    expect(h.spoken[0]!.signal.aborted).toBe(true);
    expect(run.status).toBe('cancelled');
    // Its voice answering late sends nothing; the answer goes straight to the page.
    h.audio(0);
    run.answerEvent(answerAudio(1));
    expect(h.emitted.map((e) => e.utt)).toEqual([1]);
    expect(fillers.counts).toEqual({ said: 0, cancelled: 1, skipped: 0 });
  });

  it('the answer\u2019s voice arriving first (no text event) cancels it too', async () => {
    const h = fakeHost();
    const run = new Fillers(['One moment.'], h.host).start(new AbortController().signal);
    await h.clock.advance(FillerOptions.afterMs);
    run.answerEvent(answerAudio(1));
    expect(h.spoken[0]!.cancelled).toBe(true);
    expect(h.emitted.map((e) => e.utt)).toEqual([1]);
  });

  it('never over the visitor: it waits until they are quiet, and not at all if the answer comes first', async () => {
    const h = fakeHost();
    const fillers = new Fillers(['One moment.'], h.host);
    h.setQuiet(false);
    const run = fillers.start(new AbortController().signal);
    await h.clock.advance(FillerOptions.afterMs + 3 * FILLER_RECHECK_MS);
    expect(h.spoken).toEqual([]);
    h.setQuiet(true);
    await h.clock.advance(FILLER_RECHECK_MS);
    expect(h.spoken).toHaveLength(1);
    h.audio(0);
    h.end(0);
    await run.settled;

    h.setQuiet(false);
    const next = new Fillers(['One moment.'], h.host).start(new AbortController().signal);
    await h.clock.advance(FillerOptions.afterMs + 2 * FILLER_RECHECK_MS);
    next.answerStarted();
    h.setQuiet(true);
    await h.clock.advance(5_000);
    expect(h.spoken).toHaveLength(1);
    expect(next.status).toBe('skipped');
  });

  it('lines in turn: never the same one twice in a row; a single line not in two turns in a row', async () => {
    const say = async (fillers: Fillers, h: ReturnType<typeof fakeHost>) => {
      const run = fillers.start(new AbortController().signal);
      await h.clock.advance(FillerOptions.afterMs);
      const i = h.spoken.length - 1;
      if (run.status === 'synthesising') {
        h.audio(i);
        h.end(i);
      } else run.answerStarted();
      await run.settled;
      return run.status === 'said' ? h.spoken[i]!.text : null;
    };
    const h = fakeHost();
    const three = new Fillers(['A.', 'B.', 'C.'], h.host);
    const said3 = [];
    for (let i = 0; i < 5; i++) said3.push(await say(three, h));
    expect(said3).toEqual(['A.', 'B.', 'C.', 'A.', 'B.']);
    const h1 = fakeHost();
    const one = new Fillers(['One moment.'], h1.host);
    const said1 = [];
    for (let i = 0; i < 4; i++) said1.push(await say(one, h1));
    expect(said1).toEqual(['One moment.', null, 'One moment.', null]);
  });

  it('an interruption during the filler drops the answer held behind it', async () => {
    const h = fakeHost();
    const turn = new AbortController();
    const run = new Fillers(['One moment.'], h.host).start(turn.signal);
    await h.clock.advance(FillerOptions.afterMs);
    h.audio(0);
    run.answerEvent(answerAudio(1));
    turn.abort();
    await run.settled;
    expect(h.spoken[0]!.cancelled).toBe(true);
    expect(h.emitted.map((e) => e.utt)).toEqual([101, 101]);
  });

  it('off (no lines): nothing, and the answer passes through', async () => {
    const h = fakeHost();
    const run = new Fillers([], h.host).start(new AbortController().signal);
    await h.clock.advance(10_000);
    run.answerEvent(answerAudio(1));
    expect(h.spoken).toEqual([]);
    expect(h.emitted).toHaveLength(1);
  });
});

/** A brain that answers after `thinkMs` on the fake clock (a function call first when `tool`). */
function slowBrain(clock: FakeClock, thinkMs: () => number, tool = false): Brain {
  return {
    kind: 'llm',
    async *reply(turn) {
      if (tool) yield { type: 'tool', name: 'lookup', status: 'started' };
      await new Promise<void>((resolve) => {
        const h = clock.setTimeout(resolve, thinkMs());
        turn.signal.addEventListener('abort', () => (clock.clearTimeout(h), resolve()), { once: true });
      });
      if (turn.signal.aborted) return;
      if (tool) yield { type: 'tool', name: 'lookup', status: 'ok' };
      yield { type: 'text', delta: `The answer to ${turn.text}.` };
    },
  };
}

function session(opts: { fillers?: string[]; thinkMs: () => number; tool?: boolean; ttsDelayMs?: (text: string) => number }) {
  const clock = new FakeClock(30);
  const frames: TWorkerFrame[] = [];
  const audioUtts: number[] = [];
  let c: Conversation | null = null;
  const socket: PageSocket = {
    send: (d) => {
      const f = JSON.parse(d) as TWorkerFrame;
      frames.push(f);
      // The page: an utterance played to its end is reported so (the avatar is silent again).
      if (f.type === 'utterance' && f.phase === 'end') queueMicrotask(() => c?.onMessage(JSON.stringify({ type: 'playback', utt: f.utt, playedMs: 1000, state: 'ended' })));
    },
    sendBinary: (b) => void audioUtts.push(new DataView(b.buffer, b.byteOffset).getUint16(2, true)),
    close: () => undefined,
    isOpen: true,
  };
  const histories: TLiveHistoryEntry[][] = [];
  const tts = scriptedTts({ sampleRate: 16000, ...(opts.ttsDelayMs ? { delayMs: opts.ttsDelayMs } : {}) });
  c = new Conversation({
    config: sessionConfig({ kind: 'llm', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm', instructions: '', maxTokens: null, platform: false }, { avatar: { wakeUpMessage: '', ...(opts.fillers ? { fillers: opts.fillers } : {}) }, textOnly: false }),
    brain: slowBrain(clock, opts.thinkMs, opts.tool),
    speech: createSpeechPipeline({ tts }),
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { info() {}, warn() {}, error() {} },
    clock,
  });
  c.attach(socket);
  const conversation = c;
  const utterances = () => frames.filter((f): f is Extract<TWorkerFrame, { type: 'utterance' }> => f.type === 'utterance').map((f) => `${f.utt}:${f.phase}`);
  const finals = () => frames.filter((f): f is Extract<TWorkerFrame, { type: 'assistant' }> => f.type === 'assistant' && f.final === true);
  /** Asks, and waits until the turn has started (the one before it is over): the brain's wait is on the clock. */
  const ask = async (text: string) => {
    const thinking = () => frames.filter((f) => f.type === 'state' && f.state === 'thinking').length;
    const before = thinking();
    conversation.onMessage(JSON.stringify({ type: 'text', text }));
    await until(() => thinking() > before, 10_000, 'the turn started');
  };
  return { c: conversation, clock, frames, audioUtts, histories, tts, utterances, finals, ask };
}

describe('fillers in a conversation (ADR 100)', () => {
  it('off by default: a 3 s function call is silent until the answer', async () => {
    const s = session({ thinkMs: () => 3000, tool: true });
    await s.ask('when do you open');
    await s.clock.advance(3000);
    await until(() => s.finals().length === 1);
    await until(() => s.utterances().length === 2);
    expect(s.utterances()).toEqual(['1:start', '1:end']);
    expect(s.c.fillerCounts).toEqual({ said: 0, cancelled: 0, skipped: 0 });
    await s.c.finish('hang-up');
  });

  it('on: a 3 s function call → the filler at 1.5 s in the avatar\u2019s voice, then the answer; only the answer is shown and remembered', async () => {
    const s = session({ fillers: ['Let me check that.', 'One moment.'], thinkMs: () => 3000, tool: true });
    await s.ask('when do you open');
    await s.clock.advance(FillerOptions.afterMs - 10);
    expect(s.tts.calls).toEqual([]);
    await s.clock.advance(10);
    await until(() => s.utterances().includes('2:end'), 10_000, 'the filler said');
    expect(s.tts.calls.map((c) => c.text)).toEqual(['Let me check that.']);
    expect(s.audioUtts.every((u) => u === 2)).toBe(true);
    await s.clock.advance(1500);
    await until(() => s.utterances().includes('1:end'), 10_000, 'the answer said');
    // The filler first, then the answer: two utterances, never interleaved.
    expect(s.utterances()).toEqual(['2:start', '2:end', '1:start', '1:end']);
    const firstAnswerAudio = s.audioUtts.indexOf(1);
    expect(s.audioUtts.slice(firstAnswerAudio).every((u) => u === 1)).toBe(true);
    expect(s.finals().map((f) => f.text)).toEqual(['The answer to when do you open.']);
    expect(JSON.stringify(s.frames.filter((f) => f.type === 'assistant'))).not.toContain('check that');
    await until(() => s.histories.length > 0);
    expect(s.histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['user: when do you open', 'assistant: The answer to when do you open.']);
    expect(s.c.fillerCounts.said).toBe(1);
    await s.c.finish('hang-up');
  });

  it('a quick answer (1 s) has none; a slow one (6 s) has one; the next slow turn says the next line', async () => {
    const waits = [1000, 6000, 2500];
    const s = session({ fillers: ['Let me check that.', 'One moment.'], thinkMs: () => waits.shift()! });
    await s.ask('hi');
    await s.clock.advance(1000);
    await until(() => s.finals().length === 1);
    await s.ask('book a table');
    for (let t = 0; t < 6000; t += 500) await s.clock.advance(500);
    await until(() => s.finals().length === 2);
    await s.ask('and tomorrow');
    await s.clock.advance(2500);
    await until(() => s.finals().length === 3);
    await until(() => s.c.fillerCounts.said === 2);
    expect(s.tts.calls.map((c) => c.text)).toEqual(['The answer to hi.', 'Let me check that.', 'The answer to book a table.', 'One moment.', 'The answer to and tomorrow.']);
    await s.c.finish('hang-up');
  });

  it('the answer arriving while the filler is being synthesised cancels it: nothing of it reaches the page', async () => {
    // The voice takes 10 s (real time) for the filler: the answer at 1.6 s comes first.
    const s = session({ fillers: ['One moment.'], thinkMs: () => 1600, ttsDelayMs: (text) => (text === 'One moment.' ? 10_000 : 0) });
    await s.ask('where is the exit');
    await s.clock.advance(FillerOptions.afterMs);
    await until(() => s.tts.calls.length === 1, 10_000, 'the filler asked for');
    await s.clock.advance(100);
    await until(() => s.utterances().includes('1:end'), 10_000, 'the answer said');
    expect(s.tts.calls[0]!.abortedAt).not.toBeNull();
    expect(s.utterances()).toEqual(['1:start', '1:end']);
    expect(s.audioUtts.every((u) => u === 1)).toBe(true);
    expect(s.c.fillerCounts).toEqual({ said: 0, cancelled: 1, skipped: 0 });
    await s.c.finish('hang-up');
  });

  it('the visitor stopping the avatar during the filler stops the turn: nothing of the answer is said or remembered', async () => {
    const s = session({ fillers: ['One moment.'], thinkMs: () => 5000, tool: true });
    await s.ask('what is on today');
    await s.clock.advance(FillerOptions.afterMs);
    await until(() => s.utterances().includes('2:start'), 10_000, 'the filler started');
    s.c.onMessage(JSON.stringify({ type: 'interrupt' }));
    await until(() => s.finals().length === 1, 10_000, 'the turn ended');
    await s.clock.advance(5000);
    expect(s.finals()[0]).toMatchObject({ utt: 1, text: '', interrupted: true });
    expect(s.audioUtts.every((u) => u === 2)).toBe(true);
    await until(() => s.histories.length > 0);
    expect(s.histories.at(-1)!.map((h) => h.role)).toEqual(['user']);
    await s.c.finish('hang-up');
  });
});

describe('fillers through the LLM brain and a slow function (ADR 100)', () => {
  it('the model calls a function that takes 2.5 s: the filler at 1.5 s, then the answer; the model never sees the filler', async () => {
    const fake = await startFakeOpenAi();
    const clock = new FakeClock(30);
    const tools = fakeTools({
      get_weather: {
        description: 'Current weather of a city.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        run: (args) => new Promise<string>((resolve) => clock.setTimeout(() => resolve(JSON.stringify({ city: args.city, celsius: 21 })), 2500)),
      },
    });
    const config = sessionConfig(
      { kind: 'llm', baseUrl: fake.url, apiKey: 'test-key', model: 'fake-model', instructions: 'You are Ava.', maxTokens: null, platform: false },
      { avatar: { wakeUpMessage: '', fillers: ['Let me check that.'] }, textOnly: false, functions: [{ id: 1, name: 'get_weather', code: 'def get_weather(city: str): ...', allowNetwork: false }] },
    );
    const d = testDeps(config, { tools });
    const frames: TWorkerFrame[] = [];
    const histories: TLiveHistoryEntry[][] = [];
    const tts = scriptedTts({ sampleRate: 16000 });
    const c = new Conversation({
      config,
      brain: createLlmBrain(d),
      speech: createSpeechPipeline({ tts }),
      portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
      log: { info() {}, warn() {}, error() {} },
      clock,
    });
    c.attach({ send: (s) => void frames.push(JSON.parse(s) as TWorkerFrame), sendBinary: () => undefined, close: () => undefined, isOpen: true });
    try {
      c.onMessage(JSON.stringify({ type: 'text', text: 'Please call get_weather {"city":"Paris"}' }));
      await until(() => tools.calls.length === 1, 10_000, 'the function called');
      await clock.advance(FillerOptions.afterMs);
      await until(() => frames.some((f) => f.type === 'utterance' && f.phase === 'end'), 10_000, 'the filler said');
      expect(tts.calls.map((t) => t.text)).toEqual(['Let me check that.']);
      await clock.advance(1000);
      await until(() => frames.some((f) => f.type === 'assistant' && f.final), 10_000, 'the answer');
      await until(() => tts.calls.length === 2);
      expect(tts.calls[1]!.text).toBe('The function returned {"city":"Paris","celsius":21}.');
      await until(() => frames.filter((f) => f.type === 'utterance').length === 4);
      const utts = frames.filter((f): f is Extract<TWorkerFrame, { type: 'utterance' }> => f.type === 'utterance');
      expect(utts.map((f) => `${f.utt}:${f.phase}`)).toEqual(['2:start', '2:end', '1:start', '1:end']);
      // The model's second request (with the function's result) has no filler in it.
      expect(JSON.stringify(fake.chatBodies()[1])).not.toContain('Let me check that');
      await until(() => histories.length > 0);
      expect(histories.at(-1)!.map((h) => h.role)).toEqual(['user', 'assistant']);
      expect(JSON.stringify(histories.at(-1))).not.toContain('Let me check that');
    } finally {
      await c.finish('hang-up');
      d.fetch.close();
      await fake.close();
    }
  });
});

describe('fillers and the visitor speaking (ADR 100)', () => {
  it('never over the visitor: while they speak at 1.5 s it waits, and it is said once they have stopped', async () => {
    const clock = new FakeClock(30);
    const frames: TWorkerFrame[] = [];
    const tts = scriptedTts({ sampleRate: 16000 });
    // A recogniser that hears no words: the visitor's sound is no turn of its own.
    const stt: SttEngine = { provider: 'silent', mode: 'stream', open: async () => ({ push: () => undefined, finalize: async () => undefined, reset: () => undefined, close: () => undefined }) };
    const c = new Conversation({
      config: sessionConfig({ kind: 'llm', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm', instructions: '', maxTokens: null, platform: false }, { avatar: { wakeUpMessage: '', fillers: ['One moment.'] }, textOnly: false }),
      brain: slowBrain(clock, () => 6000, true),
      speech: createSpeechPipeline({ tts }),
      portal: { heartbeat: async () => ({ echo: false, end: null }), history: async () => undefined, end: async () => undefined },
      log: { info() {}, warn() {}, error() {} },
      listening: { stt, vad: levelVad, options: TURN_DEFAULTS, clock },
      micOn: true,
    });
    c.attach({ send: (s) => void frames.push(JSON.parse(s) as TWorkerFrame), sendBinary: () => undefined, close: () => undefined, isOpen: true });
    const mic = micFeeder(c, clock);
    try {
      c.onMessage(JSON.stringify({ type: 'text', text: 'book a table' }));
      await until(() => frames.some((f) => f.type === 'state' && f.state === 'thinking'));
      // The visitor talks from 1 s to 3 s of the turn: nothing is said over them.
      await mic(1000, false);
      await mic(2000, true);
      expect(tts.calls).toEqual([]);
      // They stop: once the listener has heard the end of their speech, the filler.
      await mic(1000, false);
      await until(() => tts.calls.length === 1, 10_000, 'the filler after the visitor');
      expect(tts.calls[0]!.text).toBe('One moment.');
    } finally {
      await c.finish('hang-up');
    }
  });
});
