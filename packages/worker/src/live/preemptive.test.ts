import { describe, expect, it } from 'vitest';
import { FakeClock } from '../test/fake-clock.js';
import { AudioFrameKind, writeAudioFrame, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import type { Brain } from '../brains/types.js';
import { TURN_DEFAULTS } from '../listening/options.js';
import type { VadStream } from '../listening/vad.js';
import type { SttEngine, SttEvents } from '../providers/stt/types.js';
import { createSpeechPipeline } from '../speech/pipeline.js';
import { sessionConfig } from '../test/brain-deps.js';
import { scriptedTts } from '../test/scripted-tts.js';
import { Conversation, type PageSocket } from './conversation.js';
import { until } from '../test/until.js';

/**
 * Preemptive generation (issue 29, ADR 095): the brain starts on a stable, complete-looking
 * interim transcript; the commit uses that answer when its words are the same and discards it
 * otherwise, before anything of it is spoken, shown or remembered; one per turn. The listener's
 * time is a fake clock: no sleeps decide anything.
 */

const levelVad: VadStream = {
  probability: async (w) => (w.reduce((m, x) => Math.max(m, Math.abs(x)), 0) > 0.05 ? 0.95 : 0.02),
  reset: () => undefined,
};

/** A streaming recogniser the test speaks for: interim words on cue, the final on finalize. */
function streamStt() {
  const state = { events: null as SttEvents | null, final: '' };
  const engine: SttEngine = {
    provider: 'scripted',
    mode: 'stream',
    async open(_o, events) {
      state.events = events;
      return {
        push: () => undefined,
        async finalize() {
          if (state.final) events.onResult({ text: state.final, final: true });
          state.final = '';
        },
        reset: () => undefined,
        close: () => undefined,
      };
    },
  };
  return {
    engine,
    /** The recogniser's interim words so far, and what its final will say. */
    hears(interim: string, final = interim) {
      state.final = final;
      state.events?.onResult({ text: interim, final: false });
    },
  };
}

/** A language model brain: records each call, answers "Answer to <text>." in two pieces, notes aborts. */
function llmBrain(kind = 'llm') {
  const calls: string[] = [];
  const aborted: string[] = [];
  const brain: Brain = {
    kind,
    async *reply(turn) {
      calls.push(turn.text);
      for (const delta of [`Answer to ${turn.text}`, '.']) {
        if (turn.signal.aborted) {
          aborted.push(turn.text);
          return;
        }
        yield { type: 'text', delta };
      }
    },
  };
  return { brain, calls, aborted };
}

function setup(opts: { kind?: string; functions?: boolean } = {}) {
  const clock = new FakeClock(30);
  const stt = streamStt();
  const b = llmBrain(opts.kind);
  const frames: TWorkerFrame[] = [];
  let audio = 0;
  const socket: PageSocket = { send: (d) => void frames.push(JSON.parse(d) as TWorkerFrame), sendBinary: () => void audio++, close: () => undefined, isOpen: true };
  const histories: TLiveHistoryEntry[][] = [];
  const base = sessionConfig({ kind: 'llm', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm', instructions: '', maxTokens: null, platform: false }, { avatar: { wakeUpMessage: '' }, textOnly: false });
  const config = opts.functions ? { ...base, functions: [{ name: 'book', description: 'books', parameters: {}, code: '', needsNetwork: false } as unknown as (typeof base.functions)[number]] } : base;
  const c = new Conversation({
    config,
    brain: b.brain,
    speech: createSpeechPipeline({ tts: scriptedTts({ sampleRate: 16000 }) }),
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { info() {}, warn() {}, error() {} },
    listening: { stt: stt.engine, vad: levelVad, options: TURN_DEFAULTS, clock },
    micOn: true,
  });
  c.attach(socket);
  let seq = 0;
  /** `ms` of mic audio (a tone: speech; zeros: silence), 32 ms at a time on the fake clock. */
  const mic = async (ms: number, speech: boolean) => {
    for (let t = 0; t < ms; t += 32) {
      const pcm = Int16Array.from({ length: 512 }, (_, i) => (speech ? Math.round(8000 * Math.sin(i / 3)) : 0));
      c.onAudio(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: seq++ }, new Uint8Array(pcm.buffer)));
      await clock.advance(32);
    }
  };
  const answers = () => frames.filter((f) => f.type === 'assistant').map((f) => (f as { text?: string; delta?: string }).text ?? (f as { delta: string }).delta);
  return { c, clock, stt, mic, frames, answers, audio: () => audio, histories, ...b };
}

describe('preemptive generation (issue 29)', () => {
  it('uses the early answer when the committed words are the same: one brain call', async () => {
    const t = setup();
    await t.mic(320, true);
    t.stt.hears('Is there a guided tour today', 'is there a guided tour today?');
    await t.mic(128, false);
    // Started on the stable interim words, before the commit: nothing of it out yet.
    expect(t.calls).toEqual(['Is there a guided tour today']);
    expect(t.c.earlyAnswers.started).toBe(1);
    expect(t.answers()).toEqual([]);
    expect(t.audio()).toBe(0);
    await t.mic(320, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.calls).toHaveLength(1);
    expect(t.c.earlyAnswers).toEqual({ started: 1, used: 1, discarded: 0 });
    expect(t.answers().at(-1)).toBe('Answer to Is there a guided tour today.');
    await until(() => t.audio() > 0);
    await t.c.finish('hang-up');
  });

  it('discards the early answer when the committed words differ: nothing of it spoken, shown or remembered', async () => {
    const t = setup();
    await t.mic(320, true);
    t.stt.hears('is there a guide at tour', 'is there a guided tour');
    await t.mic(128, false);
    expect(t.calls).toEqual(['is there a guide at tour']);
    await t.mic(320, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.calls).toEqual(['is there a guide at tour', 'is there a guided tour']);
    expect(t.c.earlyAnswers).toEqual({ started: 1, used: 0, discarded: 1 });
    const shown = t.answers().join(' ');
    expect(shown).toContain('Answer to is there a guided tour');
    expect(shown).not.toContain('guide at tour');
    await until(() => t.histories.length > 0);
    const history = t.histories.at(-1)!.map((h) => h.text).join(' | ');
    expect(history).toBe('is there a guided tour | Answer to is there a guided tour.');
    await t.c.finish('hang-up');
  });

  it('one early run per turn: the visitor going on discards it, and the next pause starts none', async () => {
    const t = setup();
    await t.mic(320, true);
    t.stt.hears('can you help me');
    await t.mic(128, false);
    expect(t.c.earlyAnswers.started).toBe(1);
    // The visitor goes on: the early answer is discarded at once.
    await t.mic(320, true);
    expect(t.c.earlyAnswers.discarded).toBe(1);
    t.stt.hears('can you help me find a product');
    await t.mic(128, false);
    expect(t.c.earlyAnswers.started).toBe(1);
    await t.mic(320, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.calls).toEqual(['can you help me', 'can you help me find a product']);
    expect(t.answers().join(' ')).not.toContain('Answer to can you help me.');
    // The next turn may have its own (once the page has played the answer).
    await until(() => t.frames.filter((f) => f.type === 'state' && (f as { state: string }).state === 'listening').length >= 2);
    const utt = (t.frames.find((f) => f.type === 'assistant' && f.final) as { utt: number }).utt;
    t.c.onMessage(JSON.stringify({ type: 'playback', utt, state: 'ended', playedMs: 0 }));
    await t.mic(320, true);
    t.stt.hears('what time do you open');
    await t.mic(128, false);
    expect(t.c.earlyAnswers.started).toBe(2);
    await t.c.finish('hang-up');
  });

  it('never for brains a discarded call would cost or change: functions, other kinds', async () => {
    for (const t of [setup({ functions: true }), setup({ kind: 'rest' })]) {
      await t.mic(320, true);
      t.stt.hears('what time do you open');
      await t.mic(128, false);
      expect(t.calls).toEqual([]);
      await t.mic(320, false);
      await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
      expect(t.calls).toEqual(['what time do you open']);
      expect(t.c.earlyAnswers.started).toBe(0);
      await t.c.finish('hang-up');
    }
  });
});
