// Echo cancellation of the visitor's audio (issue 29 "echo", ADR 103): `npm run bench -- echo`.
// Never part of the test suite.
//
// 1. Cost of one session's EchoCanceller (listening/echo-cancel.ts) per 10 ms of audio, CPU µs
//    (process.cpuUsage) over 60 s of mic audio fed in 20 ms frames as the page sends them: while the
//    avatar speaks (espeak-ng speech as the reference, its echo at −10 dB / 50 ms in the mic) and
//    while it is silent (the mic passes untouched).
// 2. N sessions at once in real time (a 20 ms frame per session every 20 ms, the avatar speaking in
//    every one: the worst case), the canceller alone on the main thread: the process's CPU in cores
//    and the main thread's event-loop utilisation, beside ADR 096's 16-session figures.
// 3. The page's own canceller (ADR 108: where the browser does not cancel echo, the mic worklet
//    runs the contract's EchoFilter against what the page makes audible): its filter on 20 ms frames
//    with a steady path and with one that jumps by 10 ms every 2 s (the blocks that stop fitting
//    search for the path again) — µs per 10 ms, and the slowest 20 ms frame (the worklet's audio
//    thread must not stall). The worklet's two framers (a mean of three samples) are left out.
// The machine is shared: its load average is printed with the figures.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { root, round, workerDist } from './support.mjs';

const RATE = 16_000;
const FRAME = 320;

function espeak(text) {
  const wav = execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', text]);
  const at = wav.indexOf('data', 12) + 8;
  const bytes = wav.subarray(at, at + ((wav.length - at) & ~1));
  return { pcm: new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), rate: wav.readUInt32LE(24) };
}

/** 60 s of the avatar speaking (the answer looped) and its echo in the mic: −10 dB, 50 ms, low-passed, a quiet room. */
async function signals(seconds) {
  const { resample } = await import(workerDist('core/audio.js'));
  const s = espeak('Of course. The museum opens at nine in the morning and closes at five in the evening, every day except Monday. Tickets are sold at the door.');
  const one = resample(s.pcm, s.rate, RATE);
  const far = new Int16Array(seconds * RATE);
  for (let i = 0; i < far.length; i++) far[i] = one[i % one.length];
  const mic = new Int16Array(far.length);
  let lp = 0;
  let seed = 5;
  for (let i = 0; i < far.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    lp = 0.6 * lp + 0.4 * (i >= 800 ? far[i - 800] : 0);
    mic[i] = Math.round(lp * 0.316 + ((seed / 0x7fffffff) * 2 - 1) * 33);
  }
  return { far, mic };
}

export async function run() {
  const { EchoCanceller } = await import(workerDist('listening/echo-cancel.js'));
  const seconds = Number(process.env.ECHO_SECONDS ?? 60);
  const { far, mic } = await signals(seconds);
  const cost = {};
  for (const speaking of [true, false]) {
    let played = 0;
    const c = new EchoCanceller(() => (speaking ? { utt: 1, playedMs: played / 16, paused: false } : null));
    c.reference(1, far, RATE);
    const before = process.cpuUsage();
    for (let at = 0; at + FRAME <= mic.length; at += FRAME) {
      played = at + FRAME;
      c.process(mic.subarray(at, at + FRAME));
    }
    const used = process.cpuUsage(before);
    cost[speaking ? 'speaking' : 'silent'] = round((used.user + used.system) / (seconds * 100), 1);
  }
  console.log(`one session: ${cost.speaking} µs per 10 ms while the avatar speaks, ${cost.silent} µs while it is silent`);

  const capacity = [];
  for (const sessions of (process.env.ECHO_SESSIONS ?? '16,24').split(',').map(Number)) {
    const runSeconds = Number(process.env.ECHO_RUN_SECONDS ?? 20);
    const all = Array.from({ length: sessions }, () => {
      const s = { played: 0, c: null };
      s.c = new EchoCanceller(() => ({ utt: 1, playedMs: s.played / 16, paused: false }));
      s.c.reference(1, far, RATE);
      return s;
    });
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let tick = 0;
    await new Promise((resolve) => {
      const step = () => {
        tick++;
        const at = ((tick - 1) * FRAME) % (mic.length - FRAME);
        for (const s of all) {
          s.played = at + FRAME;
          s.c.process(mic.subarray(at, at + FRAME));
        }
        if (performance.now() - t0 >= runSeconds * 1000) resolve();
        else setTimeout(step, Math.max(0, t0 + tick * 20 - performance.now()));
      };
      step();
    });
    const cpu = process.cpuUsage(cpu0);
    const elu = performance.eventLoopUtilization(elu0);
    const wall = (performance.now() - t0) / 1000;
    const row = { sessions, cores: round((cpu.user + cpu.system) / 1e6 / wall, 3), mainThreadBusy: round(elu.utilization * 100, 1), load: os.loadavg().map((x) => round(x, 1)) };
    capacity.push(row);
    console.log(`${sessions} sessions, all with the avatar speaking: ${row.cores} cores, main thread ${row.mainThreadBusy} % busy (load ${row.load.join(' ')})`);
  }
  const page = await pageFilter(far);
  return { costUsPer10ms: cost, capacity, page };
}

/** The mic hearing `far` 50 ms later at −10 dB; with `jumpEvery`, the path is 10 ms longer every other stretch. */
function echoOf(far, jumpEvery = 0) {
  const mic = new Int16Array(far.length);
  let lp = 0;
  for (let i = 0; i < far.length; i++) {
    const d = 800 + (jumpEvery && Math.floor(i / jumpEvery) % 2 === 1 ? 160 : 0);
    lp = 0.6 * lp + 0.4 * (i >= d ? far[i - d] : 0);
    mic[i] = Math.round(lp * 0.316);
  }
  return mic;
}

async function pageFilter(far) {
  const { EchoFilter } = await import(pathToFileURL(path.join(root, 'packages/contract/dist/echo-filter.js')).href);
  const out = {};
  for (const [name, jumpEvery] of [['steady', 0], ['jumping', 2 * RATE]]) {
    const mic = echoOf(far, jumpEvery);
    // As the page's worklet makes it (mic-echo.ts).
    const filter = new EchoFilter({ priorGateMs: 1500, envelopeGate: true });
    const times = [];
    const before = process.cpuUsage();
    for (let at = 0; at + FRAME <= mic.length; at += FRAME) {
      const t = performance.now();
      filter.process(mic.subarray(at, at + FRAME), far.subarray(at, at + FRAME));
      times.push(performance.now() - t);
    }
    const used = process.cpuUsage(before);
    times.sort((a, b) => a - b);
    out[name] = {
      usPer10ms: round((used.user + used.system) / ((mic.length / RATE) * 100), 1),
      p99FrameMs: round(times[Math.floor(times.length * 0.99)], 2),
      slowestFrameMs: round(times.at(-1), 2),
      moved: filter.stats.delayMoved,
      lost: filter.stats.delayLost,
    };
    console.log(`page filter, ${name} path: ${out[name].usPer10ms} µs per 10 ms; 20 ms frame p99 ${out[name].p99FrameMs} ms, slowest ${out[name].slowestFrameMs} ms; moved ${out[name].moved}, lost ${out[name].lost}`);
  }
  return out;
}
