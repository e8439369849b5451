// The event loop while an avatar's language model is built (issue 29, ADR 105):
// `npm run bench -- avatar-model-build`. Never part of the test suite.
//
// The same input as the worker's unit test (the NORA avatar with 40 knowledge items: 205 k
// characters of text), built from Debian's generic model by the built worker's code, alternately
//   - on the event loop: `buildAvatarModel` yielding between slices (what the worker did before
//     its build moved to a thread; the WER bench still builds this way), and
//   - in a worker thread: `buildAvatarModelInThread` (the worker's way now; the thread writes the
//     file, only its name comes back) at the worker's nice value (19: that thread only, Linux), and
//     at 0 (the process's own priority),
// BUILD_ROUNDS times each (default 5), one build at a time, and — the control — as long again with
// no build at all (what the shared machine's scheduler alone does to a 10 ms timer). Meanwhile this
// thread's event-loop delay is sampled (perf_hooks monitorEventLoopDelay, 10 ms resolution: max
// and p99), a 10 ms interval records its longest gap, and process.threadCpuUsage this thread's CPU
// time. The machine is shared: the load average is printed with the figures, and the three run in
// the same run, interleaved.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { round, tmpDir, workerDist } from './support.mjs';

const NORA = { name: 'Nora', wakeUpMessage: "Hi, I'm Nora. How can I help?", instructions: 'Help customers with their orders.', functions: ['track_order', 'getWeather'], phrases: ['Brightside Outfitters'] };
const knowledge = Array.from({ length: 40 }, (_, i) => ({ title: `Policy ${i}`, text: `Orders over ${i * 10} pounds ship free. Returns within thirty days are refunded to the card you paid with. `.repeat(50) }));
const vocabulary = { ...NORA, knowledge };
const ROUNDS = Math.max(1, Number(process.env.BUILD_ROUNDS ?? 5));

/** Runs `build` while watching this thread's event loop. */
async function watched(build) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  let gap = 0;
  let last = performance.now();
  const gaps = [];
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last > 100) gaps.push(round(now - last, 0));
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  const load = os.loadavg()[0];
  h.enable();
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  try {
    await build();
  } finally {
    h.disable();
    clearInterval(timer);
  }
  const used = process.threadCpuUsage(cpu);
  return {
    buildMs: round(performance.now() - started, 0),
    mainThreadCpuMs: round((used.user + used.system) / 1000, 0),
    // monitorEventLoopDelay reports ns; its figures include the 10 ms resolution's own wait.
    delayMaxMs: round(h.max / 1e6, 1),
    delayP99Ms: round(h.percentile(99) / 1e6, 1),
    delayMeanMs: round(h.mean / 1e6, 1),
    intervalMaxGapMs: round(gap, 0),
    gapsOver100Ms: gaps.length,
    loadAverage: round(load, 1),
  };
}

export async function run() {
  const { findPocketsphinx } = await import(workerDist('providers/stt/offline.js'));
  const { avatarTexts, buildAvatarModel, buildAvatarModelInThread } = await import(workerDist('providers/stt/avatar-models.js'));
  const install = findPocketsphinx();
  if (!install) throw new Error('pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)');
  const dir = tmpDir('persona-bench-lm-');
  const chars = avatarTexts(vocabulary).reduce((n, t) => n + t.text.length, 0);
  console.log(`input: ${chars} characters of text; ${ROUNDS} rounds; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const runs = { eventLoop: [], thread: [], threadNice0: [], noBuild: [] };
  let same = true;
  try {
    for (let i = 0; i < ROUNDS; i++) {
      let bytes;
      const loop = await watched(async () => {
        bytes = await buildAvatarModel(install, vocabulary);
      });
      runs.eventLoop.push(loop);
      console.log(`round ${i + 1}, on the event loop:`, JSON.stringify(loop));
      const file = path.join(dir, `thread-${i}.lm.bin`);
      const thread = await watched(() => buildAvatarModelInThread(install, vocabulary, file));
      runs.thread.push(thread);
      console.log(`round ${i + 1}, in a thread:     `, JSON.stringify(thread));
      same &&= Buffer.from(bytes).equals(fs.readFileSync(file));
      fs.rmSync(file, { force: true });
      const thread0 = await watched(() => buildAvatarModelInThread(install, vocabulary, file, undefined, 0));
      runs.threadNice0.push(thread0);
      console.log(`round ${i + 1}, thread, nice 0:  `, JSON.stringify(thread0));
      fs.rmSync(file, { force: true });
      const idle = await watched(() => new Promise((r) => setTimeout(r, thread.buildMs)));
      runs.noBuild.push(idle);
      console.log(`round ${i + 1}, no build:        `, JSON.stringify(idle));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const worst = (list, key) => Math.max(...list.map((r) => r[key]));
  const median = (list, key) => {
    const v = list.map((r) => r[key]).sort((x, y) => x - y);
    return v.length % 2 ? v[(v.length - 1) / 2] : round((v[v.length / 2 - 1] + v[v.length / 2]) / 2, 1);
  };
  const summary = Object.fromEntries(
    Object.entries(runs).map(([way, list]) => [
      way,
      {
        buildMs: median(list, 'buildMs'),
        mainThreadCpuMs: median(list, 'mainThreadCpuMs'),
        delayMaxMs: { median: median(list, 'delayMaxMs'), worst: worst(list, 'delayMaxMs') },
        delayP99Ms: { median: median(list, 'delayP99Ms'), worst: worst(list, 'delayP99Ms') },
        intervalMaxGapMs: { median: median(list, 'intervalMaxGapMs'), worst: worst(list, 'intervalMaxGapMs') },
      },
    ]),
  );
  console.log('medians and worst of the rounds:');
  for (const [way, s] of Object.entries(summary)) console.log(`  ${way.padEnd(12)} build ${s.buildMs} ms, main thread CPU ${s.mainThreadCpuMs} ms, delay max ${s.delayMaxMs.median} (worst ${s.delayMaxMs.worst}) ms, p99 ${s.delayP99Ms.median} (worst ${s.delayP99Ms.worst}) ms, 10 ms timer's longest gap ${s.intervalMaxGapMs.median} (worst ${s.intervalMaxGapMs.worst}) ms`);
  return { inputChars: chars, rounds: ROUNDS, sameBytes: same, runs, summary, cpus: os.availableParallelism() };
}
