// Noise suppression of the visitor's audio (issue 29 "not hearing the room", ADR 096):
// `npm run bench -- noise`. Never part of the test suite.
//
// 1. Cost: RNNoise (`@echogarden/rnnoise-wasm`, 16 → 48 → 16 kHz with the worker's resampler) per
//    10 ms of a session's audio — CPU µs on one core (process.cpuUsage: every thread) over 60 s of
//    audio fed in 20 ms frames as the page sends them, one message to the thread per frame, and
//    the DSP alone (all frames in one message) —, the Silero VAD's cost per 10 ms beside it, and
//    the memory of one more session's state (RNNoise state + buffers in the thread's heap).
// 2. Capacity: N sessions at once in real time (a 20 ms frame per session every 20 ms, speech in
//    noise so that the VAD is asked every window), each its own Listener (the worker's code:
//    denoiser → 32 ms windows → Silero VAD in its thread, batched across sessions) with a
//    recogniser that does nothing (the offline recogniser's processes are counted elsewhere);
//    suppression off and on. Figures: the process's CPU over the run (all threads, in cores), the
//    main thread's event-loop utilisation, and the lag from a frame's arrival to its VAD verdict.
//    The machine is shared: its load average is printed with the figures.
// 3. False turns: five minutes each of babble (six espeak-ng talkers mixed; and two talkers, a
//    conversation at the next table), street-like noise
//    (traffic rumble, passing vehicles, two horns) and fan noise (low-passed pink noise, hum,
//    blade flutter) — all synthesised here, seeded; no downloaded audio — at a realistic level
//    (−35 dBFS RMS; speech into a browser mic with its gain control sits near −20 dBFS: ~15 dB SNR)
//    and a loud one (−25 dBFS: ~5 dB SNR), through the listener with the Silero VAD and the
//    offline recogniser, the default turn options (the Advanced tab's defaults), suppression off
//    and on. Counted: speech starts (the VAD opened a segment: over the avatar this pauses it) and
//    committed turns (a non-empty transcript: the avatar would answer it). Target ≤ 1 false turn
//    per five minutes. The listener's clock is the audio's (20 ms per frame), and the feed waits
//    while the recogniser works, as if it answered at once.
// 4. The visitor in the room: six espeak-ng questions at −20 dBFS, 2.5 s apart, over each noise at
//    −35 dBFS (and in a quiet room), suppression off and on: how many still end and commit.
// 3 and 4 run with the room gate (listening/room-gate.ts) off and at its default margin
// (NOISE_GATES=0,12), in the same run.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { percentile, round, workerDist } from './support.mjs';

const RATE = 16_000;

/** Seeded PRNG (mulberry32), so every run makes the same noise. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const unitRms = (x) => {
  let s = 0;
  for (const v of x) s += v * v;
  const rms = Math.sqrt(s / x.length) || 1;
  for (let i = 0; i < x.length; i++) x[i] /= rms;
  return x;
};

/** Pink noise (Paul Kellet's filter over white noise), unit RMS. */
export function pink(length, seed) {
  const r = rng(seed);
  const out = new Float64Array(length);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0;
  for (let i = 0; i < length; i++) {
    const w = r() * 2 - 1;
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
  }
  return unitRms(out);
}

/** One-pole low-pass at `hz`, in place. */
function lowPass(x, hz) {
  const a = Math.exp((-2 * Math.PI * hz) / RATE);
  let y = 0;
  for (let i = 0; i < x.length; i++) x[i] = y = (1 - a) * x[i] + a * y;
  return x;
}

/** Fan: low-passed pink noise, mains hum (100 Hz and harmonics) and a blade flutter, unit RMS. */
export function fan(length, seed) {
  const x = lowPass(pink(length, seed), 1200);
  unitRms(x);
  for (let i = 0; i < length; i++) {
    const t = i / RATE;
    const flutter = 1 + 0.15 * Math.sin(2 * Math.PI * 23 * t);
    x[i] = x[i] * flutter + 0.15 * Math.sin(2 * Math.PI * 100 * t) + 0.08 * Math.sin(2 * Math.PI * 200 * t) + 0.04 * Math.sin(2 * Math.PI * 300 * t);
  }
  return unitRms(x);
}

/**
 * Street: a traffic rumble (low-passed brown-ish noise), vehicles passing every 4–10 s (pink noise
 * swelling over 3–6 s, up to +10 dB), and a two-tone horn (0.5 s) twice in five minutes; unit RMS.
 */
export function street(length, seed) {
  const r = rng(seed);
  const rumble = lowPass(lowPass(pink(length, seed + 1), 300), 300);
  unitRms(rumble);
  const cars = pink(length, seed + 2);
  lowPass(cars, 3000);
  unitRms(cars);
  const env = new Float64Array(length);
  for (let at = Math.floor(r() * 4 * RATE); at < length; at += Math.floor((4 + r() * 6) * RATE)) {
    const dur = Math.floor((3 + r() * 3) * RATE);
    const peak = 10 ** ((r() * 10) / 20);
    for (let i = 0; i < dur && at + i < length; i++) env[at + i] += peak * Math.sin((Math.PI * i) / dur) ** 2;
  }
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) out[i] = rumble[i] + 0.7 * cars[i] * env[i];
  for (const at of [0.3, 0.75].map((f) => Math.floor(f * length))) {
    for (let i = 0; i < 0.5 * RATE && at + i < length; i++) {
      const t = i / RATE;
      out[at + i] += 1.5 * (Math.sign(Math.sin(2 * Math.PI * 420 * t)) + Math.sign(Math.sin(2 * Math.PI * 520 * t))) * 0.5;
    }
  }
  return unitRms(out);
}

const BABBLE_TEXT = [
  'I told him we would meet at the station but he never came and I waited for an hour in the rain.',
  'The new restaurant on the high street is always full, you have to book a table weeks ahead.',
  'She said the report was due on Friday, so we stayed late every night this week to finish it.',
  'Have you seen the match last night? It went to penalties and the keeper saved three of them.',
  'My grandmother grew tomatoes, beans and potatoes in her garden, and we ate them all summer.',
  'If the bus is late again tomorrow I will take my bike, it is faster anyway when the roads are busy.',
  'They moved to a bigger flat near the river, with two bedrooms and a small balcony over the water.',
  'We could go to the cinema or stay in and cook something, I do not mind, whatever you prefer.',
];
const TALKERS = [
  { voice: 'en-us', rate: 165 },
  { voice: 'en-gb', rate: 175 },
  { voice: 'en+f3', rate: 160 },
  { voice: 'en+m3', rate: 185 },
  { voice: 'en+f2', rate: 170 },
  { voice: 'en+m7', rate: 155 },
];

/**
 * Babble: six (or `talkers`) espeak-ng talkers, each saying the texts above in its own order, looped to `length`
 * and started at its own offset, each at the same loudness, summed; unit RMS. Null without espeak-ng.
 */
export async function babble(length, seed, talkers = TALKERS.length) {
  if (spawnSync('espeak-ng', ['--version']).status !== 0) return null;
  const audio = await import(workerDist('core/audio.js'));
  const r = rng(seed);
  const out = new Float64Array(length);
  for (const [k, t] of TALKERS.slice(0, talkers).entries()) {
    const texts = [...BABBLE_TEXT].sort(() => r() - 0.5).join(' ');
    const res = spawnSync('espeak-ng', ['-v', t.voice, '-s', String(t.rate), '--stdout', texts], { maxBuffer: 256 << 20 });
    if (res.status !== 0) throw new Error(`espeak-ng failed: ${res.stderr}`);
    const bytes = new Uint8Array(res.stdout);
    const info = audio.parseWavHeader(bytes);
    let pcm = audio.bytesToSamples(bytes.subarray(info.dataOffset));
    if (info.sampleRate !== RATE) pcm = audio.resample(pcm, info.sampleRate, RATE);
    const x = unitRms(Float64Array.from(pcm));
    const offset = Math.floor(r() * x.length) + k * 997;
    for (let i = 0; i < length; i++) out[i] += x[(i + offset) % x.length];
  }
  return unitRms(out);
}

/** Unit-RMS noise at `dbfs` RMS (full scale = 32768) as PCM16. */
export const atLevel = (noise, dbfs) => {
  const gain = 32768 * 10 ** (dbfs / 20);
  return Int16Array.from(noise, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
};

/** The noise kinds (5 minutes unless told), seeded. */
export async function noiseKinds(seconds = 300) {
  const n = seconds * RATE;
  const kinds = { fan: fan(n, 11), street: street(n, 21) };
  const b = await babble(n, 31);
  if (b) kinds.babble = b;
  // Two people talking at the next table: speech with gaps, the hard case for a VAD.
  const near = await babble(n, 41, 2);
  if (near) kinds['two-talkers'] = near;
  return kinds;
}

/** A clock moved by the audio fed (as the test's FakeClock): timers fire as it passes them. */
class AudioClock {
  t = 1_000_000;
  timers = [];
  ids = 0;
  now = () => this.t;
  setTimeout = (fn, ms) => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  advance(ms) {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}

/** An STT engine around another that counts the transcriptions in flight (the feed waits for them). */
function counting(engine) {
  const state = { inFlight: 0, idle: Promise.resolve(), done: () => undefined };
  return {
    state,
    engine: {
      provider: engine.provider,
      mode: engine.mode,
      async open(o, ev) {
        const s = await engine.open(o, ev);
        return {
          push: (pcm) => s.push(pcm),
          finalize: async () => {
            state.inFlight++;
            try {
              await s.finalize();
            } finally {
              state.inFlight--;
            }
          },
          reset: () => s.reset?.(),
          close: () => s.close(),
        };
      },
    },
  };
}

/** Noise through a listener (VAD + offline recogniser; denoiser when given): speech starts and committed turns. */
async function falseTurns({ pcm, vadModel, stt, denoiser, options }) {
  const { Listener } = await import(workerDist('listening/turns.js'));
  const clock = new AudioClock();
  const counted = counting(stt);
  let starts = 0;
  let speechWindows = 0;
  let windows = 0;
  const commits = [];
  // The VAD's verdicts, counted on the way (the listener asks it for every audible window).
  const inner = vadModel.stream();
  const vad = {
    probability: async (w) => {
      const p = await inner.probability(w);
      windows++;
      if (p > options.activationThreshold) speechWindows++;
      return p;
    },
    reset: () => inner.reset(),
  };
  const listener = new Listener({
    options,
    vad,
    denoiser,
    stt: counted.engine,
    clock,
    events: {
      transcript: () => undefined,
      commit: (text) => commits.push(text),
      pause: () => undefined,
      resume: () => undefined,
      interrupt: () => undefined,
      speaking: (s) => s && starts++,
    },
  });
  const settle = async () => {
    for (let i = 0; i < 50 && counted.state.inFlight === 0; i++) await new Promise((r) => setImmediate(r));
    while (counted.state.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setImmediate(r));
  };
  const step = async (frame) => {
    await listener.push(frame);
    // A flush asks the recogniser a tick later: let it, then wait for its answer.
    await new Promise((r) => setImmediate(r));
    if (counted.state.inFlight > 0) await settle();
    clock.advance(20);
  };
  for (let at = 0; at < pcm.length; at += 320) await step(pcm.subarray(at, at + 320));
  // The tail: the last segment's end of speech and commit.
  for (let i = 0; i < 150; i++) await step(new Int16Array(320));
  await settle();
  clock.advance(5000);
  listener.close();
  return { speechStarts: starts, turns: commits.length, speechShare: round(speechWindows / Math.max(1, windows), 3), texts: commits.slice(0, 8) };
}

/** N sessions in real time for `seconds`: CPU, event-loop utilisation, lag per frame. */
async function capacity({ sessions, seconds, vadModel, denoise, signal, options }) {
  const { Listener } = await import(workerDist('listening/turns.js'));
  const idle = { provider: 'none', mode: 'batch', open: async () => ({ push: () => undefined, finalize: async () => undefined, close: () => undefined }) };
  const listeners = Array.from({ length: sessions }, () =>
    new Listener({
      options,
      vad: vadModel.stream(),
      denoiser: denoise ? denoise.stream() : undefined,
      stt: idle,
      events: { transcript: () => undefined, commit: () => undefined, pause: () => undefined, resume: () => undefined, interrupt: () => undefined },
    }),
  );
  const lags = [];
  const frames = (seconds * 1000) / 20;
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const pending = [];
  for (let f = 0; f < frames; f++) {
    const due = t0 + f * 20;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (const [k, l] of listeners.entries()) {
      // Each session at its own place in the signal.
      const at = ((f + k * 37) * 320) % (signal.length - 320);
      const arrived = performance.now();
      pending.push(l.push(signal.subarray(at, at + 320)).then(() => lags.push(performance.now() - arrived)));
    }
    if (pending.length > 5000) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  for (const l of listeners) l.close();
  return {
    sessions,
    suppression: denoise ? 'on' : 'off',
    audioSeconds: seconds,
    wallSeconds: round(wall, 1),
    cpuCores: round((cpu.user + cpu.system) / 1e6 / wall, 2),
    mainThreadBusy: round(elu.utilization, 2),
    lagMs: { p50: round(percentile(lags, 50)), p95: round(percentile(lags, 95)), max: round(Math.max(...lags)) },
  };
}

export async function run() {
  const { loadRnnoise } = await import(workerDist('listening/denoise.js'));
  const { loadSileroVad } = await import(workerDist('listening/vad.js'));
  const { TURN_DEFAULTS } = await import(workerDist('listening/options.js'));
  // The VAD thread and the recogniser's processes are unref'd (the worker's server keeps them alive): so does this.
  const keepAlive = setInterval(() => undefined, 1000);
  let rnnoise = await loadRnnoise();
  const vadModel = await loadSileroVad();
  const out = { cpus: os.cpus().length, loadAverageAtStart: os.loadavg().map((x) => round(x, 1)) };
  console.log(`cores ${out.cpus}, load average ${out.loadAverageAtStart.join(' ')}`);

  // NOISE_PARTS=cost,capacity,false-turns,visitor-turns (default: all).
  const parts = (process.env.NOISE_PARTS ?? 'cost,capacity,false-turns,visitor-turns').split(',');
  // 1. Cost.
  if (parts.includes('cost')) {
    const seconds = 60;
    const signal = atLevel(pink(seconds * RATE, 3), -30);
    const d = rnnoise.stream();
    for (let at = 0; at < RATE; at += 320) await d.process(signal.subarray(at, at + 320)); // warm
    // One 20 ms frame at a time, each answered before the next is sent: one message per frame
    // (the worst case: with several sessions the frames waiting go to the thread together).
    let c = process.cpuUsage();
    for (let at = 0; at < signal.length; at += 320) await d.process(signal.subarray(at, at + 320));
    let u = process.cpuUsage(c);
    const denoiseUs = (u.user + u.system) / (seconds * 100);
    // All of it as one piece: the DSP alone.
    c = process.cpuUsage();
    await d.process(signal);
    u = process.cpuUsage(c);
    const dspUs = (u.user + u.system) / (seconds * 100);
    // The VAD: one stream, 32 ms windows, awaited one by one (its thread's CPU is this process's too).
    const vs = vadModel.stream();
    const w = new Float32Array(512);
    const windows = Math.floor((20 * RATE) / 512);
    c = process.cpuUsage();
    for (let k = 0; k < windows; k++) {
      for (let i = 0; i < 512; i++) w[i] = signal[k * 512 + i] / 32768;
      await vs.probability(w);
    }
    u = process.cpuUsage(c);
    const vadUs = (u.user + u.system) / (20 * 100);
    // Memory: 100 more states in the shared heap.
    const heap0 = process.memoryUsage();
    const states = Array.from({ length: 100 }, () => rnnoise.stream());
    await Promise.all(states.map((s) => s.process(signal.subarray(0, 960))));
    const heap1 = process.memoryUsage();
    for (const s of states) s.close();
    d.close();
    await rnnoise.close();
    out.cost = {
      denoiseCpuUsPer10ms: round(denoiseUs, 1),
      denoiseDspOnlyCpuUsPer10ms: round(dspUs, 1),
      vadCpuUsPer10msOneStreamUnbatched: round(vadUs, 1),
      denoiseShareOfOneCorePerSession: `${round(denoiseUs / 100, 2)} %`,
      // The state lives in the thread's WebAssembly heap (RNNoise's state ~18 KB + buffers ~5 KB):
      // the process's resident memory per state, over 100 states.
      memoryPerSessionKb: round((heap1.rss - heap0.rss) / 1024 / 100, 1),
      wasmBytes: 125_713,
    };
    console.log('cost', out.cost);
  }

  rnnoise = await loadRnnoise();
  // 2. Capacity: speech in noise, so that the VAD model is asked for every window.
  if (parts.includes('capacity')) {
    const seconds = Number(process.env.NOISE_CAPACITY_SECONDS ?? 30);
    const kinds = { fan: fan(20 * RATE, 5) };
    const speechLike = (await babble(20 * RATE, 6)) ?? pink(20 * RATE, 6);
    const signal = Int16Array.from(atLevel(speechLike, -22), (v, i) => v + Math.round(kinds.fan[i] * 32768 * 10 ** (-40 / 20)));
    out.capacity = [];
    for (const sessions of [16, 24]) {
      for (const denoise of [null, rnnoise]) {
        const r = await capacity({ sessions, seconds, vadModel, denoise, signal, options: TURN_DEFAULTS });
        r.loadAverage = os.loadavg().map((x) => round(x, 1));
        out.capacity.push(r);
        console.log('capacity', JSON.stringify(r));
      }
    }
  }

  // 3. False turns.
  if (parts.includes('false-turns') || parts.includes('visitor-turns')) {
    const { createOfflineRecognizer, createOfflineStt, findPocketsphinx } = await import(workerDist('providers/stt/offline.js'));
    if (!findPocketsphinx()) throw new Error('pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)');
    const recognizer = createOfflineRecognizer();
    await recognizer.warm();
    const stt = createOfflineStt(recognizer);
    const seconds = Number(process.env.NOISE_SECONDS ?? 300);
    // The room gate (room-gate.ts) off and at the default margin (TURN_DEFAULTS.roomGateDb), or NOISE_GATES=0,8,12 (dB).
    const gates = (process.env.NOISE_GATES ?? `0,${TURN_DEFAULTS.roomGateDb}`).split(',').map(Number);
    // NOISE_KINDS=babble,two-talkers: only those noises (default: all).
    const only = process.env.NOISE_KINDS?.split(',');
    const kinds = Object.fromEntries(Object.entries(await noiseKinds(seconds)).filter(([k]) => !only || only.includes(k)));
    out.falseTurns = { seconds, options: 'TURN_DEFAULTS (the Advanced tab defaults)', target: '≤ 1 committed turn per 5 minutes', rows: [] };
    try {
      for (const [kind, noise] of parts.includes('false-turns') ? Object.entries(kinds) : []) {
        for (const dbfs of [-35, -25]) {
          const pcm = atLevel(noise, dbfs);
          for (const gate of gates) {
            for (const on of [false, true]) {
              const d = on ? rnnoise.stream() : undefined;
              const r = await falseTurns({ pcm, vadModel, stt, denoiser: d, options: { ...TURN_DEFAULTS, roomGateDb: gate } });
              const row = { noise: kind, levelDbfs: dbfs, roomGateDb: gate, suppression: on ? 'on' : 'off', ...r };
              out.falseTurns.rows.push(row);
              console.log('false turns', JSON.stringify(row));
            }
          }
        }
      }
      // The visitor's own turns in the room: six questions at −20 dBFS, 2.5 s apart, over each noise
      // at −35 dBFS — does every one still end and commit?
      const audio = await import(workerDist('core/audio.js'));
      const questions = ['What time do you open tomorrow?', 'How much does it cost?', 'Where is my order?', 'Can I pay with cash?', 'Do you have this in a larger size?', 'Thank you very much for your help.'];
      const said = [];
      for (const q of questions) {
        const r = spawnSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', q], { maxBuffer: 64 << 20 });
        if (r.status !== 0) continue;
        const bytes = new Uint8Array(r.stdout);
        const info = audio.parseWavHeader(bytes);
        let pcm = audio.bytesToSamples(bytes.subarray(info.dataOffset));
        if (info.sampleRate !== RATE) pcm = audio.resample(pcm, info.sampleRate, RATE);
        said.push(pcm);
      }
      if (said.length && parts.includes('visitor-turns')) {
        const total = said.reduce((n, p) => n + p.length + 2.5 * RATE, RATE);
        const voice = new Float64Array(total);
        let at = RATE;
        for (const p of said) {
          for (let i = 0; i < p.length; i++) voice[at + i] = p[i];
          at += p.length + 2.5 * RATE;
        }
        let sum = 0;
        let n = 0;
        for (const v of voice) {
          if (Math.abs(v) < 328) continue;
          sum += v * v;
          n++;
        }
        const vGain = (32768 * 10 ** (-20 / 20)) / Math.sqrt(sum / n);
        out.visitorTurns = { questions: said.length, visitorDbfs: -20, noiseDbfs: -35, rows: [] };
        for (const [kind, noise] of [['quiet', null], ...Object.entries(kinds)]) {
          const nz = noise ? atLevel(noise, -35) : null;
          const pcm = Int16Array.from(voice, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v * vGain + (nz ? nz[i % nz.length] : 0)))));
          for (const gate of gates) {
            for (const on of [false, true]) {
              const r = await falseTurns({ pcm, vadModel, stt, denoiser: on ? rnnoise.stream() : undefined, options: { ...TURN_DEFAULTS, roomGateDb: gate } });
              const row = { noise: kind, roomGateDb: gate, suppression: on ? 'on' : 'off', committed: r.turns, speechStarts: r.speechStarts, texts: r.texts };
              out.visitorTurns.rows.push(row);
              console.log('visitor turns', JSON.stringify(row));
            }
          }
        }
      }
    } finally {
      await recognizer.close();
    }
  }
  await vadModel.close();
  await rnnoise.close();
  clearInterval(keepAlive);
  return out;
}
