import { AudioFrameKind, writeAudioFrame, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import type { Brain } from '../brains/types.js';
import { TURN_DEFAULTS } from '../listening/options.js';
import type { VadStream } from '../listening/vad.js';
import type { SttEngine, SttEvents } from '../providers/stt/types.js';
import { createSpeechPipeline } from '../speech/pipeline.js';
import { Conversation, type PageSocket } from '../live/conversation.js';
import { sessionConfig } from './brain-deps.js';
import { FakeClock } from './fake-clock.js';
import { scriptedTts } from './scripted-tts.js';

/**
 * A spoken conversation for tests of turn-taking (preemptive generation, continued turns): a
 * level VAD, a streaming recogniser the test speaks for, a language-model brain that records its
 * calls (and may be held), the scripted voice, mic audio on a fake clock.
 */

export const levelVad: VadStream = {
  probability: async (w) => (w.reduce((m, x) => Math.max(m, Math.abs(x)), 0) > 0.05 ? 0.95 : 0.02),
  reset: () => undefined,
};

/** A streaming recogniser the test speaks for: interim words on cue, the final on finalize. */
export function streamStt() {
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

/**
 * A language model brain: records each call, answers "Answer to <text>." in two pieces, notes
 * aborts. `held`: each call waits for `release()` (or its abort) before it answers ('between':
 * after its first piece).
 */
export function llmBrain(kind = 'llm', held: boolean | 'between' = false) {
  const calls: string[] = [];
  const aborted: string[] = [];
  let release!: () => void;
  let gate = held ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  const brain: Brain = {
    kind,
    async *reply(turn) {
      calls.push(turn.text);
      const wait = () => Promise.race([gate, new Promise((r) => turn.signal.addEventListener('abort', r, { once: true }))]);
      if (held !== 'between') await wait();
      for (const [i, delta] of [`Answer to ${turn.text}`, '.'].entries()) {
        if (i === 1 && held === 'between') await wait();
        if (turn.signal.aborted) {
          aborted.push(turn.text);
          return;
        }
        yield { type: 'text', delta };
      }
    },
  };
  return {
    brain,
    calls,
    aborted,
    /** Lets held calls answer (those made from now on answer at once). */
    release() {
      release?.();
      gate = Promise.resolve();
    },
  };
}

export function spokenSession(opts: { kind?: string; functions?: boolean; held?: boolean | 'between'; speakerOn?: boolean } = {}) {
  const clock = new FakeClock(30);
  const stt = streamStt();
  const b = llmBrain(opts.kind, opts.held);
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
    speakerOn: opts.speakerOn ?? true,
  });
  c.attach(socket);
  const mic = micFeeder(c, clock);
  const answers = () => frames.filter((f) => f.type === 'assistant').map((f) => (f as { text?: string; delta?: string }).text ?? (f as { delta: string }).delta);
  return { c, clock, stt, mic, frames, answers, audio: () => audio, histories, ...b };
}

/** Feeds `ms` of mic audio to a conversation (a tone: speech; zeros: silence), 32 ms at a time on the fake clock. */
export function micFeeder(c: Conversation, clock: FakeClock) {
  let seq = 0;
  return async (ms: number, speech: boolean) => {
    for (let t = 0; t < ms; t += 32) {
      const pcm = Int16Array.from({ length: 512 }, (_, i) => (speech ? Math.round(8000 * Math.sin(i / 3)) : 0));
      c.onAudio(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: seq++ }, new Uint8Array(pcm.buffer)));
      await clock.advance(32);
    }
  };
}
