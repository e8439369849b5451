import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFrameKind, readAudioFrame, writeAudioFrame, type TWorkerFrame } from '@persona/contract';
import { bytesToSamples, resample } from '../core/audio.js';
import { TURN_DEFAULTS } from '../listening/options.js';
import { sharedSileroVad, type VadModel } from '../listening/vad.js';
import type { SttEngine } from '../providers/stt/types.js';
import { createOfflineTts, createOfflineVoice, type OfflineVoice } from '../speech/offline-voice.js';
import { createSpeechPipeline } from '../speech/pipeline.js';
import { sessionConfig } from '../test/brain-deps.js';
import { until } from '../test/until.js';
import { Conversation, type PageSocket } from './conversation.js';

/**
 * The conversation cancels its avatar's echo (ADR 103): the audio it sends to the page is the
 * reference, the page's `playback` reports place it. A page that plays what it is sent, holds it
 * on `pause`, and a mic that hears the speaker 50 ms later at −10 dB, through the real Silero VAD.
 */
const WAKE = 'Hello and welcome. The museum opens at nine in the morning and closes at five in the evening, every day except Monday.';

const log = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A recogniser that hears no words (a pause over the avatar then resumes it). */
const deaf: SttEngine = {
  provider: 'scripted',
  mode: 'batch',
  async open(_o, events) {
    return { push: () => undefined, finalize: async () => events.onResult({ text: '', final: true }), reset: () => undefined, close: () => undefined };
  },
};

let voice: OfflineVoice;
let vad: VadModel;
beforeAll(async () => {
  voice = createOfflineVoice({ threads: 1 });
  [vad] = await Promise.all([sharedSileroVad(), voice.warm()]);
}, 60_000);
afterAll(async () => {
  await voice?.close();
});

async function wakeUpOverSpeakers(echoCancel: boolean) {
  const frames: TWorkerFrame[] = [];
  const sent: Int16Array[] = [];
  let closed = false;
  const socket: PageSocket = {
    send: (data) => void frames.push(JSON.parse(data) as TWorkerFrame),
    sendBinary: (data) => {
      const f = readAudioFrame(data);
      if (f && f.header.kind === AudioFrameKind.avatar && f.pcm.byteLength > 0) sent.push(bytesToSamples(f.pcm));
    },
    close: () => void (closed = true),
    get isOpen() {
      return !closed;
    },
  };
  const c = new Conversation({
    config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: WAKE }, textOnly: false }),
    brain: null,
    speech: createSpeechPipeline({ tts: createOfflineTts(voice) }),
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async () => undefined, end: async () => undefined },
    log,
    listening: { stt: deaf, vad: vad.stream(), options: TURN_DEFAULTS, echoCancel },
    micOn: true,
  });
  c.attach(socket);
  // The whole wake-up message sent; the page then plays it (16 kHz here), 20 ms a frame.
  await until(() => frames.some((f) => f.type === 'utterance' && f.phase === 'end'), 30_000);
  const start = frames.find((f) => f.type === 'utterance' && f.phase === 'start') as { utt: number };
  const rate = (frames.find((f) => f.type === 'ready') as { audioSampleRate: number }).audioSampleRate;
  const total = sent.reduce((n, p) => n + p.length, 0);
  const joined = new Int16Array(total);
  let o = 0;
  for (const p of sent) joined.set(p, (o += p.length) - p.length);
  const voiceAt16k = resample(joined, rate, 16_000);
  const delay = 800; // 50 ms
  const speaker = new Float32Array(voiceAt16k.length + 64_000);
  let played = 0;
  let seq = 0;
  let held = () => {
    const last = frames.filter((f) => f.type === 'pause' || f.type === 'resume').at(-1);
    return last?.type === 'pause';
  };
  for (let t = 0; t + 320 <= speaker.length; t += 320) {
    const paused = held();
    const frame = new Int16Array(320);
    for (let i = 0; i < 320; i++) {
      speaker[t + i] = !paused && played + i < voiceAt16k.length ? voiceAt16k[played + i]! : 0;
      frame[i] = Math.round((t + i >= delay ? speaker[t + i - delay]! * 0.316 : 0) + (((t + i) * 7919) % 67) - 33);
    }
    if (!paused) played = Math.min(voiceAt16k.length, played + 320);
    const state = played >= voiceAt16k.length ? 'ended' : 'progress';
    c.onMessage(JSON.stringify({ type: 'playback', utt: start.utt, state, playedMs: (played * 1000) / 16_000 }));
    c.onAudio(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: seq++ }, new Uint8Array(frame.buffer)));
    // Real time: the VAD thread drops what waits for it longer than half a second.
    await sleep(20);
    if (state === 'ended' && t > voiceAt16k.length + 32_000) break;
  }
  held = () => false;
  await sleep(300);
  await c.finish('hang-up');
  return { pauses: frames.filter((f) => f.type === 'pause').length, interrupts: frames.filter((f) => f.type === 'interrupted').length, seconds: voiceAt16k.length / 16_000 };
}

describe("the conversation cancels its avatar's echo (the audio sent, placed by the page's playback)", () => {
  it('over speakers: the wake-up message never pauses itself with the canceller (without it: printed)', async () => {
    const without = await wakeUpOverSpeakers(false);
    const withIt = await wakeUpOverSpeakers(true);
    console.info(`wake-up message (${without.seconds.toFixed(1)} s) over speakers: ${without.pauses} pauses without the canceller, ${withIt.pauses} with it`);
    // The control (15–17 pauses on a quiet machine) is printed, not asserted: this test runs in
    // real time, and on a loaded CI run the VAD thread shed its windows (0 pauses without the
    // canceller). listening/echo.test.ts asserts the control on a fake clock.
    expect(withIt.pauses).toBeLessThanOrEqual(1);
    expect(withIt.interrupts).toBe(0);
  }, 120_000);
});
