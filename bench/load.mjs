// Load held (issue 16): `npm run bench -- load`. The production shape on this machine: the portal
// (built, npm start's defaults, PGlite) with EMBEDDED_WORKER=false and TRUST_PROXY=true, and one
// external worker as `npm run worker` starts it (own process, --listen 127.0.0.1:0, WORKER_SECRET
// shared). Each visitor is admitted from its own X-Forwarded-For address, so the per-IP admission
// limits do not cap the load; the worker's --capacity is raised so that it does not either.
// 1. Text visitors per worker, echo brain, then an LLM (Simple mode) against a local
//    OpenAI-compatible fake in its own process (first token after 200 ms, then one word per 20 ms):
//    visitors added in steps, each sending a line every few seconds and waiting for the final
//    answer; the climb stops when the step's p95 turn latency passes 1 s (for the LLM: our share =
//    measured − the fake's own delays). N reached = the last step within 1 s.
// 2. Voice visitors: each streams fake microphone audio in real time (16 kHz PCM16, 20 ms binary
//    frames as the page sends them; the speech made once with the offline voice), the worker
//    listens (Silero VAD, endpointing, pocketsphinx) and answers with the echo brain and the
//    offline voice. Turn latency = last voiced mic frame sent → first avatar audio frame received
//    (the turn options' endpointing wait is inside it). M reached the same way.
// 3. CPU and memory at every step: the worker process's CPU seconds and VmRSS (its pocketsphinx
//    children apart), per session = (step − idle) / sessions (idle = after a warm-up session; for
//    voice, after a warm-up voice turn, so the models loaded once are not counted per session).
//    Each step also has the worker's own per-stage means (end of utterance, STT, first token,
//    first audio byte, end to end) from its Prometheus /metrics.
// 4. Portal pages under concurrent dashboard users: registered, verified and signed-in users each
//    loading what /react/avatars loads (the shell, its assets once, /api/config, account_info,
//    list_avatar) with a think time; p50/p95 per call and errors.
// 5. LOAD_PROFILE=1: the worker runs under --cpu-prof; the top self-time functions during the
//    steps at N/M reached are printed (summarised as bench/profile.mjs does).
//
// Knobs: LOAD_QUICK=1 (small steps and short durations: a smoke run in under 2 minutes),
// LOAD_TEXT_STEPS / LOAD_VOICE_STEPS (comma lists), LOAD_STEP_SECONDS, LOAD_VOICE_STEP_SECONDS,
// LOAD_LINE_EVERY_S, LOAD_DASHBOARD_USERS, LOAD_DASHBOARD_SECONDS, LOAD_ONLY (text,llm,voice,dashboard).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AudioFrameKind, writeAudioFrame } from '@persona/contract';
import { summarise } from './profile.mjs';
import {
  APP_KEY,
  SIMPLE_LLM,
  cpuSeconds,
  createAvatar,
  lastVoicedSample,
  latencyStats,
  nextVisitorIp,
  openLiveSession,
  ownCpuSeconds,
  processTree,
  root,
  round,
  rssMb,
  serverMain,
  sleep,
  startPortal,
  startWorker,
  stopChild,
  tmpDir,
  workerDist,
} from './support.mjs';

const env = process.env;
const QUICK = env.LOAD_QUICK === '1';
const PROFILE = env.LOAD_PROFILE === '1';
const list = (v, d) => (v ? v.split(',').map(Number).filter((n) => n > 0) : d);
const S = {
  textSteps: list(env.LOAD_TEXT_STEPS, QUICK ? [5, 20] : [10, 25, 50, 100, 150, 200, 300, 400, 600, 800, 1200]),
  voiceSteps: list(env.LOAD_VOICE_STEPS, QUICK ? [1, 2] : [1, 2, 4, 6, 8, 12, 16, 24, 32, 48]),
  stepSeconds: Number(env.LOAD_STEP_SECONDS ?? (QUICK ? 3 : 20)),
  voiceStepSeconds: Number(env.LOAD_VOICE_STEP_SECONDS ?? (QUICK ? 8 : 40)),
  lineEverySeconds: Number(env.LOAD_LINE_EVERY_S ?? 3),
  dashboardUsers: Number(env.LOAD_DASHBOARD_USERS ?? (QUICK ? 10 : 100)),
  dashboardSeconds: Number(env.LOAD_DASHBOARD_SECONDS ?? (QUICK ? 4 : 30)),
  thinkMs: [1000, 3000],
  avatarsPerUser: QUICK ? 1 : 3,
  limitMs: 1000,
  turnTimeoutMs: 10_000,
  only: (env.LOAD_ONLY ?? 'text,llm,voice,dashboard').split(','),
};
const LLM = { firstTokenMs: 200, wordMs: 20, text: 'Sure, the museum opens at nine and closes at five.' };
LLM.words = LLM.text.match(/\S+\s*/g).length;
// The fake sleeps firstTokenMs before the first word and wordMs after each one (then "stop").
LLM.fakeTotalMs = LLM.firstTokenMs + LLM.words * LLM.wordMs;
const LINES = ['what time does the museum open', 'tell me about the weather in paris', 'how much is a ticket for children', 'where can i leave my coat', 'is there a guided tour today'];
const WORKER_SECRET = 'load-bench-worker-secret-0123456789';
const METRICS_TOKEN = 'load-bench-metrics-token-0123456789';

const hrUs = () => Number(process.hrtime.bigint() / 1000n);
const withTimeout = (p, ms) => Promise.race([p, sleep(ms).then(() => null)]);

/** The OpenAI-compatible fake in its own process (its timers do not queue behind the load generator). */
async function startLlmFake() {
  const fake = path.join(root, 'packages/worker/src/test/fake-openai.ts');
  const answer = { text: LLM.text, firstTokenDelayMs: LLM.firstTokenMs, chunkDelayMs: LLM.wordMs };
  const code = `import { tsImport } from 'tsx/esm/api';
const { startFakeOpenAi } = await tsImport(${JSON.stringify(fake)}, ${JSON.stringify(pathToFileURL(path.join(root, 'bench/')).href)});
const fake = await startFakeOpenAi({ answer: () => (${JSON.stringify(answer)}) });
console.log('FAKE ' + fake.url);
process.on('SIGTERM', () => fake.close().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const t0 = Date.now();
  while (!/FAKE (\S+)/.test(out)) {
    if (child.exitCode !== null || Date.now() - t0 > 30_000) throw new Error(`LLM fake did not start: ${out}`);
    await sleep(50);
  }
  return { url: /FAKE (\S+)/.exec(out)[1], pid: child.pid, stop: () => stopChild(child) };
}

/** The worker's per-stage turn histograms (/metrics): { stage: { sum, count } }. */
async function stageTotals(worker) {
  const out = {};
  try {
    const text = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    for (const m of text.matchAll(/^persona_worker_turn_stage_seconds_(sum|count)\{stage="([a-z_]+)"\} ([\d.e+-]+)$/gm)) {
      out[m[2]] ??= { sum: 0, count: 0 };
      out[m[2]][m[1]] = Number(m[3]);
    }
  } catch {
    // no metrics: the step's figures go without the breakdown
  }
  return out;
}

/** Mean ms per stage between two stageTotals (stages with turns only). */
function stageMeans(a, b) {
  const out = {};
  for (const [stage, v] of Object.entries(b)) {
    const n = v.count - (a[stage]?.count ?? 0);
    if (n > 0) out[stage] = round(((v.sum - (a[stage]?.sum ?? 0)) / n) * 1000, 1);
  }
  return out;
}

/** CPU seconds and RSS of the worker (main process, all threads) and of its children (pocketsphinx). */
function sampleProcs(worker, portal) {
  const tree = processTree(worker.pid);
  const kids = tree.filter((p) => p !== worker.pid);
  const kidSet = new Set(kids);
  return {
    at: performance.now(),
    workerCpu: cpuSeconds((p) => p === worker.pid),
    childrenCpu: kids.length ? cpuSeconds((p) => kidSet.has(p)) : 0,
    portalCpu: cpuSeconds((p) => p === portal.child.pid),
    // The load generator itself (this process: the visitors' sockets, the real-time mic pump) runs
    // on the same cores: what it takes, the worker could not have.
    benchCpu: ownCpuSeconds(),
    workerRssMb: rssMb(worker.pid),
    childrenRssMb: rssMb(kids),
    portalRssMb: rssMb(portal.child.pid),
  };
}

function resources(a, b, sessions, idle) {
  const wall = (b.at - a.at) / 1000;
  const pct = (s) => round((s / wall) * 100, 1);
  return {
    workerCpuPercentOfOneCore: pct(b.workerCpu - a.workerCpu),
    workerCpuPercentPerSession: round(pct(b.workerCpu - a.workerCpu) / sessions, 2),
    childrenCpuPercentOfOneCore: pct(b.childrenCpu - a.childrenCpu),
    portalCpuPercentOfOneCore: pct(b.portalCpu - a.portalCpu),
    loadGeneratorCpuPercentOfOneCore: pct(b.benchCpu - a.benchCpu),
    workerRssMb: round(b.workerRssMb, 1),
    workerMbPerSession: round((b.workerRssMb - idle.workerRssMb) / sessions, 2),
    childrenRssMb: round(b.childrenRssMb, 1),
    portalRssMb: round(b.portalRssMb, 1),
  };
}

/**
 * Adds sessions in steps, runs `drive(sessions, until)` for each step (it returns the turn
 * latencies), and stops after the first step whose p95 (of `judged`) passes the limit.
 */
async function climb(label, { steps, open, drive, judge, worker, portal, idle, windows }) {
  const sessions = [];
  const levels = [];
  let reached = 0;
  let stoppedBy = `the last step (${steps.at(-1)}) held`;
  for (const target of steps) {
    try {
      while (sessions.length < target) sessions.push(await open(sessions.length));
    } catch (err) {
      stoppedBy = `opening session ${sessions.length + 1} failed: ${String(err.message).slice(0, 300)}`;
      console.log(`  ${label}: ${stoppedBy}`);
      break;
    }
    await sleep(300);
    const stages0 = await stageTotals(worker);
    const a = sampleProcs(worker, portal);
    const from = hrUs();
    const result = await drive(sessions, performance.now() + (label === 'voice' ? S.voiceStepSeconds : S.stepSeconds) * 1000);
    const to = hrUs();
    const b = sampleProcs(worker, portal);
    const level = { sessions: target, ...judge(result), workerStageMeansMs: stageMeans(stages0, await stageTotals(worker)), ...resources(a, b, target, idle) };
    levels.push(level);
    windows.push({ label, sessions: target, from, to });
    console.log(`  ${label}`, JSON.stringify(level));
    if (level.judgedP95Ms !== undefined && level.judgedP95Ms <= S.limitMs && !level.failed) reached = target;
    else {
      stoppedBy = `p95 ${level.judgedP95Ms} ms > ${S.limitMs} ms${level.failed ? ` (${level.failed})` : ''} at ${target}`;
      break;
    }
  }
  for (const s of sessions) s.close();
  await sleep(QUICK ? 500 : 2000);
  return { reached, stoppedBy, levels };
}

/** Text visitors: each sends a line every lineEverySeconds (spread over the interval) and waits for the answer. */
function textDriver(text) {
  return async (sessions, until) => {
    const total = [];
    const first = [];
    let timeouts = 0;
    const period = S.lineEverySeconds * 1000;
    await Promise.all(
      sessions.map(async (s, i) => {
        await sleep((period * i) / sessions.length);
        let k = 0;
        while (performance.now() < until) {
          const t0 = performance.now();
          const t = await withTimeout(s.say(`${text} ${k++}`), S.turnTimeoutMs);
          if (t === null) {
            timeouts++;
            total.push(S.turnTimeoutMs);
            first.push(S.turnTimeoutMs);
          } else {
            total.push(t.total);
            first.push(t.first);
          }
          await sleep(Math.max(0, period - (performance.now() - t0)));
        }
      }),
    );
    return { total, first, timeouts };
  };
}

const judgeEcho = (r) => {
  const total = latencyStats(r.total);
  return { turns: r.total.length, turnMs: total, timeouts: r.timeouts, judgedP95Ms: total.p95, ...(r.total.length ? {} : { failed: 'no turn finished' }) };
};
const judgeLlm = (r) => {
  const ours = latencyStats(r.total.map((v) => v - LLM.fakeTotalMs));
  return {
    turns: r.total.length,
    turnMs: latencyStats(r.total),
    oursMs: ours,
    firstDeltaMs: latencyStats(r.first),
    firstDeltaOursMs: latencyStats(r.first.map((v) => v - LLM.firstTokenMs)),
    timeouts: r.timeouts,
    judgedP95Ms: ours.p95,
    ...(r.total.length ? {} : { failed: 'no turn finished' }),
  };
};

// ─── voice ───────────────────────────────────────────────────────────────────────────────────

/** Sends every voice visitor's due 20 ms mic frames (speech from its queue, silence otherwise). */
function micPump() {
  const visitors = new Set();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const now = performance.now();
      for (const v of visitors) v.pump(now);
      await sleep(5);
    }
  })();
  return {
    add: (v) => visitors.add(v),
    remove: (v) => visitors.delete(v),
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function openVoiceVisitor(portal, avatarId, pump) {
  const audio = []; // { at, utt, samples }
  const frames = []; // { at, f }
  const s = await openLiveSession(portal, avatarId, {
    textOnly: false,
    mic: true,
    onFrame: (f) => frames.push({ at: performance.now(), f }),
    onBinary: (data) => {
      if (data[0] !== AudioFrameKind.avatar) return;
      audio.push({ at: performance.now(), utt: data.readUInt16LE(2), samples: (data.length - 8) / 2 });
    },
  });
  if (!s.ready.listening) throw new Error(`the worker does not listen to this session (ready: ${JSON.stringify(s.ready)})`);
  const rate = s.ready.audioSampleRate || 16_000;
  const queue = [];
  const t0 = performance.now();
  let sent = 0;
  let seq = 0;
  const silence = new Uint8Array(640);
  const v = {
    pump(now) {
      const due = Math.floor((now - t0) / 20) + 1;
      while (sent < due) {
        const item = queue.shift();
        s.send(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: seq++ }, item ? item.bytes : silence));
        sent++;
        if (item?.onSent) item.onSent(performance.now());
      }
    },
  };
  pump.add(v);

  /** Queues speech; resolves when its last voiced frame has been sent. */
  const speak = (pcm) =>
    new Promise((resolve) => {
      const last = lastVoicedSample(pcm);
      for (let i = 0; i * 320 < pcm.length; i++) {
        const part = new Int16Array(320);
        part.set(pcm.subarray(i * 320, Math.min(pcm.length, (i + 1) * 320)));
        queue.push({ bytes: new Uint8Array(part.buffer), onSent: last >= i * 320 && last < (i + 1) * 320 ? resolve : null });
      }
    });

  /** Waits for utterance `utt`'s end, then for it to have played out in real time; tells the worker. */
  async function playedOut(utt, deadline) {
    while (performance.now() < deadline && !frames.some((x) => x.f.type === 'utterance' && x.f.phase === 'end' && x.f.utt === utt)) await sleep(20);
    const mine = audio.filter((a) => a.utt === utt);
    const playedMs = (mine.reduce((n, a) => n + a.samples, 0) / rate) * 1000;
    const startAt = mine[0]?.at ?? performance.now();
    await sleep(Math.max(0, startAt + playedMs - performance.now()));
    s.send({ type: 'playback', utt, state: 'ended', playedMs: Math.round(playedMs) });
  }

  // The greeting (wake-up message): heard out before the visitor speaks.
  const greetUntil = performance.now() + 8000;
  while (performance.now() < greetUntil && !audio.length) await sleep(20);
  if (audio.length) await playedOut(audio[0].utt, performance.now() + 8000);
  return {
    close() {
      pump.remove(v);
      s.close();
    },
    /**
     * One turn: says `pcm`; ms from the end of speech to the first avatar audio frame (null: none
     * came), and to the final transcript (sent when the listener commits the turn: the VAD's end,
     * the recogniser and the endpointing wait; the rest is the brain, the voice and the queue).
     */
    async turn(pcm) {
      // The previous answer has played out: what was kept for it is not needed any more.
      audio.length = 0;
      frames.length = 0;
      const endAt = await speak(pcm);
      const deadline = endAt + S.turnTimeoutMs;
      let first = null;
      while (performance.now() < deadline && !(first = audio.find((a) => a.at >= endAt))) await sleep(5);
      const final = frames.findLast((x) => x.f.type === 'transcript' && x.f.final);
      const heard = final?.f.text ?? null;
      const commitMs = final && final.at >= endAt ? final.at - endAt : null;
      if (!first) return { ms: null, heard, commitMs };
      await playedOut(first.utt, performance.now() + 15_000);
      return { ms: first.at - endAt, heard, commitMs };
    },
  };
}

function voiceDriver(said) {
  return async (visitors, until) => {
    const latencies = [];
    const missed = [];
    const heard = [];
    /** Per answered turn: speech end → commit, commit → first audio, and what was heard. */
    const split = [];
    let k = 0;
    await Promise.all(
      visitors.map(async (v, i) => {
        await sleep((2000 * i) / visitors.length);
        while (performance.now() < until) {
          const n = k++ % said.length;
          const t = await v.turn(said[n]);
          if (t.ms === null) {
            missed.push({ said: LINES[n], heard: t.heard });
            latencies.push(S.turnTimeoutMs);
          } else {
            latencies.push(t.ms);
            split.push({ ms: t.ms, commitMs: t.commitMs, said: LINES[n], heard: t.heard });
          }
          if (heard.length < 3) heard.push({ said: LINES[n], heard: t.heard });
          await sleep(700 + Math.random() * 600); // the visitor listens, then answers
        }
      }),
    );
    return { latencies, missed, heard, split };
  };
}

const judgeVoice = (r) => {
  const st = latencyStats(r.latencies);
  const commits = r.split.filter((t) => t.commitMs !== null);
  // Where the tail is: the listener's share (end of speech → commit) or the answer's (commit → first audio).
  const slowest = [...r.split].sort((a, b) => b.ms - a.ms).slice(0, 4).map((t) => ({ ms: round(t.ms), commitMs: t.commitMs === null ? null : round(t.commitMs), said: t.said, heard: t.heard }));
  return {
    turns: r.latencies.length,
    speechEndToFirstAudioMs: st,
    speechEndToCommitMs: commits.length ? latencyStats(commits.map((t) => t.commitMs)) : null,
    commitToFirstAudioMs: commits.length ? latencyStats(commits.map((t) => t.ms - t.commitMs)) : null,
    slowest,
    missed: r.missed.length,
    missedSamples: r.missed.slice(0, 3),
    heardSamples: r.heard,
    judgedP95Ms: st.p95,
    ...(r.latencies.length ? {} : { failed: 'no turn finished' }),
  };
};

// ─── dashboard ───────────────────────────────────────────────────────────────────────────────

async function makeUsers(portal, count) {
  const password = 'load-bench-password-1';
  const users = [];
  const post = (url, body, headers = {}) =>
    fetch(`${portal.base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${APP_KEY}`, 'x-forwarded-for': nextVisitorIp(), ...headers }, body: JSON.stringify(body) });
  const tag = Date.now().toString(36);
  const emails = Array.from({ length: count }, (_, i) => `load-${tag}-${i}@example.com`);
  // Four at a time: argon2 is the cost of each registration and sign-in.
  for (let i = 0; i < count; i += 4) {
    await Promise.all(
      emails.slice(i, i + 4).map(async (email) => {
        const r = await post('/api/register', { firstName: 'Load', lastName: 'Bench', email, password });
        if (!r.ok) throw new Error(`register ${email}: ${r.status} ${await r.text()}`);
      }),
    );
  }
  // The verification links, from the outbox's log lines.
  const codes = new Map();
  const t0 = Date.now();
  while (codes.size < count && Date.now() - t0 < 30_000) {
    for (const line of portal.logText().split('\n')) {
      const m = /(load-[a-z0-9]+-\d+@example\.com)\S* (\S*\/react\/email-verification\/([A-Za-z0-9_-]+))/.exec(line);
      if (m) codes.set(m[1], m[3]);
    }
    if (codes.size < count) await sleep(200);
  }
  if (codes.size < count) throw new Error(`only ${codes.size} of ${count} verification mails found in the portal's log`);
  for (let i = 0; i < count; i += 4) {
    await Promise.all(
      emails.slice(i, i + 4).map(async (email) => {
        const v = await post('/api/email_verification', { verificationCode: codes.get(email), mode: 'verify' });
        if (!v.ok) throw new Error(`verify ${email}: ${v.status} ${await v.text()}`);
        const login = await (await post('/api/login', { email, password })).json();
        if (!login.sessionId) throw new Error(`login ${email}: ${JSON.stringify(login)}`);
        const auth = { authorization: `Bearer ${APP_KEY}:${login.sessionId}` };
        for (let a = 0; a < S.avatarsPerUser; a++) await createAvatar(portal, { name: `Load avatar ${a + 1}`, nlpEngine: 0 }, auth);
        users.push({ email, auth, ip: nextVisitorIp() });
      }),
    );
  }
  return users;
}

async function dashboard(portal, worker) {
  const t0 = performance.now();
  const users = await makeUsers(portal, S.dashboardUsers);
  const setupSeconds = round((performance.now() - t0) / 1000, 1);
  const times = new Map();
  const errors = new Map();
  const pageLoads = [];
  const firstLoads = [];
  const note = (name, ms, ok, detail) => {
    if (!times.has(name)) {
      times.set(name, []);
      errors.set(name, { count: 0, samples: [] });
    }
    times.get(name).push(ms);
    if (!ok) {
      const e = errors.get(name);
      e.count++;
      if (e.samples.length < 3) e.samples.push(detail);
    }
  };
  const call = async (name, url, headers) => {
    const a = performance.now();
    try {
      const res = await fetch(`${portal.base}${url}`, { headers, signal: AbortSignal.timeout(30_000) });
      const body = await res.arrayBuffer();
      note(name, performance.now() - a, res.ok, res.ok ? null : `${res.status} ${Buffer.from(body).toString('utf8').slice(0, 120)}`);
      return res.ok ? Buffer.from(body).toString('utf8') : null;
    } catch (err) {
      note(name, performance.now() - a, false, String(err).slice(0, 120));
      return null;
    }
  };
  const a = sampleProcs(worker, portal);
  const until = performance.now() + S.dashboardSeconds * 1000;
  await Promise.all(
    users.map(async (u, i) => {
      await sleep((S.thinkMs[0] * i) / users.length);
      const headers = { ...u.auth, 'x-forwarded-for': u.ip };
      let cached = false;
      while (performance.now() < until) {
        const start = performance.now();
        const html = await call('GET /react/avatars (shell)', '/react/avatars', { 'x-forwarded-for': u.ip });
        if (html && !cached) {
          // First visit: the entry's scripts and styles (hashed: the browser keeps them afterwards).
          const assets = [...html.matchAll(/(?:src|href)="(\/react\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
          await Promise.all(assets.map((p) => call('GET /react/assets/* (first visit)', p, { 'x-forwarded-for': u.ip })));
          cached = true;
        }
        await call('GET /api/config', '/api/config', { 'x-forwarded-for': u.ip });
        await Promise.all([call('GET /api/account_info', '/api/account_info', headers), call('GET /api/list_avatar', '/api/list_avatar', headers)]);
        (u.loaded ? pageLoads : firstLoads).push(performance.now() - start);
        u.loaded = true;
        await sleep(S.thinkMs[0] + Math.random() * (S.thinkMs[1] - S.thinkMs[0]));
      }
    }),
  );
  const b = sampleProcs(worker, portal);
  const wall = (b.at - a.at) / 1000;
  const calls = [...times].map(([name, v]) => ({ call: name, ...latencyStats(v), errors: errors.get(name).count, ...(errors.get(name).count ? { errorSamples: errors.get(name).samples } : {}) }));
  console.log('  dashboard', JSON.stringify({ users: users.length, firstPageLoadMs: latencyStats(firstLoads), repeatPageLoadMs: latencyStats(pageLoads) }));
  for (const c of calls) console.log(`    ${c.call.padEnd(36)} n ${c.n}  p50 ${c.p50} ms  p95 ${c.p95} ms  errors ${c.errors}`);
  return {
    users: users.length,
    avatarsPerUser: S.avatarsPerUser,
    seconds: S.dashboardSeconds,
    thinkMs: S.thinkMs,
    setupSeconds,
    firstPageLoadMs: latencyStats(firstLoads),
    repeatPageLoadMs: latencyStats(pageLoads),
    pageLoadsPerSecond: round((firstLoads.length + pageLoads.length) / wall, 1),
    calls,
    portalCpuPercentOfOneCore: round(((b.portalCpu - a.portalCpu) / wall) * 100, 1),
    portalRssMb: round(b.portalRssMb, 1),
  };
}

// ─── profile ─────────────────────────────────────────────────────────────────────────────────

function profileWindows(dir, windows) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const out = [];
  for (const w of windows) {
    const perThread = [];
    for (const f of files) {
      const profile = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      if (w.from < profile.startTime || w.to > profile.endTime) continue; // another clock or another thread's life
      const s = summarise(profile, { fromUs: w.from, toUs: w.to });
      if (s.busyMs < 50) continue;
      const thread = Number(/\.(\d+)\.\d+\.cpuprofile$/.exec(f)?.[1] ?? 0) === 0 ? 'main thread' : 'worker thread (e.g. the offline voice)';
      perThread.push({ file: f, thread, busyMs: s.busyMs, byArea: s.byArea.slice(0, 8), topSelf: s.topSelf.slice(0, 15) });
    }
    perThread.sort((a, b) => b.busyMs - a.busyMs);
    out.push({ step: `${w.label} at ${w.sessions}`, seconds: round((w.to - w.from) / 1e6, 1), threads: perThread });
    for (const t of perThread) {
      console.log(`\n  where the time goes: ${w.label} at ${w.sessions} sessions, ${t.thread}, ${t.file} (busy ${t.busyMs} ms)`);
      console.table(t.topSelf);
    }
  }
  return out;
}

// ─── run ─────────────────────────────────────────────────────────────────────────────────────

export async function run() {
  const started = performance.now();
  const fake = await startLlmFake();
  const portal = await startPortal(serverMain, {
    EMBEDDED_WORKER: 'false',
    WORKER_SECRET,
    TRUST_PROXY: 'true',
    ALLOW_REGISTRATION: 'true',
    PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited',
    PLATFORM_LLM_URL: fake.url,
    PLATFORM_LLM_API_KEY: 'test-key',
    PLATFORM_LLM_MODEL: 'bench-model',
  });
  const profileDir = PROFILE ? tmpDir('persona-bench-load-prof-') : null;
  let worker = null;
  const windows = [];
  const out = {
    settings: { quick: QUICK, ...S, llmFake: { firstTokenMs: LLM.firstTokenMs, msPerWord: LLM.wordMs, words: LLM.words, fakeTotalMs: LLM.fakeTotalMs }, cores: os.cpus().length, profile: PROFILE },
  };
  try {
    console.log(`  portal ready after ${round((performance.now() - started) / 1000, 1)} s`);
    worker = await startWorker(portal.base, { WORKER_SECRET, METRICS_TOKEN }, { args: ['--capacity', '5000'], nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
    console.log(`  worker registered after ${round((performance.now() - started) / 1000, 1)} s`);
    const echoAvatar = await createAvatar(portal, { name: 'Load Echo', nlpEngine: 0 });
    const llmAvatar = await createAvatar(portal, { name: 'Load LLM', nlpEngine: 10, ...SIMPLE_LLM });
    // Warm the worker (first session, first answer) before the idle figure.
    const warm = await openLiveSession(portal, echoAvatar);
    await warm.say('warm up');
    warm.close();
    await sleep(1000);
    const idle = sampleProcs(worker, portal);
    out.idle = { workerRssMb: round(idle.workerRssMb, 1), portalRssMb: round(idle.portalRssMb, 1), childrenRssMb: round(idle.childrenRssMb, 1) };
    const common = { worker, portal, idle, windows };

    if (S.only.includes('text')) {
      console.log('text visitors, echo brain');
      out.textEcho = await climb('echo', { ...common, steps: S.textSteps, open: () => openLiveSession(portal, echoAvatar), drive: textDriver('How are you today?'), judge: judgeEcho });
    }
    if (S.only.includes('llm')) {
      console.log('text visitors, LLM brain (fake)');
      out.textLlm = await climb('llm', { ...common, steps: S.textSteps, open: () => openLiveSession(portal, llmAvatar), drive: textDriver('When does the museum open?'), judge: judgeLlm });
      out.textLlm.judgedOn = `our share: measured − the fake's ${LLM.fakeTotalMs} ms (first token ${LLM.firstTokenMs} ms + ${LLM.words} words × ${LLM.wordMs} ms)`;
    }
    if (S.only.includes('voice')) {
      console.log('voice visitors, echo brain, offline voice');
      const { findPocketsphinx } = await import(workerDist('providers/stt/offline.js'));
      if (!findPocketsphinx()) out.voice = { skipped: 'pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)' };
      else {
        const { createOfflineVoice } = await import(workerDist('speech/offline-voice.js'));
        const voice = createOfflineVoice();
        const said = [];
        try {
          for (const line of LINES) said.push((await voice.synthesize(line)).pcm);
        } finally {
          await voice.close();
        }
        const voiceAvatar = await createAvatar(portal, { name: 'Load Voice', nlpEngine: 0, wakeUpMessage: 'Hi.' });
        const pump = micPump();
        try {
          // Warm-up: the first voice session loads the VAD model, the offline voice and pocketsphinx.
          const w = await openVoiceVisitor(portal, voiceAvatar, pump);
          const warmTurn = await w.turn(said[0]);
          w.close();
          await sleep(QUICK ? 500 : 2000);
          const voiceIdle = sampleProcs(worker, portal);
          out.voiceIdle = { warmUpTurnMs: warmTurn.ms === null ? null : round(warmTurn.ms), heard: warmTurn.heard, workerRssMb: round(voiceIdle.workerRssMb, 1), childrenRssMb: round(voiceIdle.childrenRssMb, 1) };
          out.voice = await climb('voice', { ...common, idle: voiceIdle, steps: S.voiceSteps, open: () => openVoiceVisitor(portal, voiceAvatar, pump), drive: voiceDriver(said), judge: judgeVoice });
        } finally {
          await pump.stop();
        }
        out.voice.speech = { lines: LINES.length, secondsEach: said.map((p) => round(p.length / 16_000, 2)), madeWith: 'the offline voice (flite slt, 16 kHz)' };
      }
    }
    if (S.only.includes('dashboard')) {
      console.log('portal pages, dashboard users');
      out.dashboard = await dashboard(portal, worker);
    }
    out.workerLogBytes = worker.outputBytes();
  } finally {
    if (worker) await worker.stop();
    await portal.stop();
    await fake.stop();
  }
  out.reached = {
    textEchoN: out.textEcho?.reached ?? null,
    textLlmN: out.textLlm?.reached ?? null,
    voiceM: out.voice?.reached ?? null,
    perSession: {
      echo: perSession(out.textEcho),
      llm: perSession(out.textLlm),
      voice: perSession(out.voice),
    },
  };
  const say = (name, r) => (r ? (r.skipped ? `${name}: skipped` : `${name} ${r.stoppedBy.startsWith('the last step') ? `≥ ${r.reached} (every step held)` : `= ${r.reached} (${r.stoppedBy})`}`) : null);
  out.reached.summary = [say('echo text N', out.textEcho), say('LLM text N', out.textLlm), say('voice M', out.voice)].filter(Boolean).join('; ');
  console.log(`\n  reached: ${out.reached.summary}`);
  if (PROFILE) {
    // The step at N/M reached; where even the first step failed, that step.
    const at = (label, n) => {
      const mine = windows.filter((w) => w.label === label);
      return mine.filter((w) => w.sessions === n).concat(n ? [] : mine.slice(0, 1));
    };
    const chosen = [...at('echo', out.reached.textEchoN), ...at('llm', out.reached.textLlmN), ...at('voice', out.reached.voiceM)];
    out.whereTheTimeGoes = profileWindows(profileDir, chosen);
    out.profileDir = profileDir;
  }
  out.loadAverageAtEnd = os.loadavg().map((v) => round(v));
  out.totalSeconds = round((performance.now() - started) / 1000, 1);
  out.leavesOut =
    'These figures are for one worker and one portal on a shared 2-core machine: the load generator (every visitor\'s socket, the real-time mic pump, the dashboard fetches) and the LLM fake run on the same two cores, so their CPU is taken from what the worker could use and an overloaded generator shows up as our latency. Traffic is on loopback: no network latency, loss, TLS or reverse proxy, and no browser (no audio capture, decoding, playback, rendering or page JavaScript). The voice turn starts at the last voiced mic frame sent and ends at the first avatar audio frame received, so it includes the endpointing wait (the turn options\' 0.5 s) but not the page\'s playback buffer or the loudspeaker; pocketsphinx runs as a pool of resident processes (one per core here, WORKER_STT_PROCESSES), the offline voice in the worker. The LLM share subtracts the fake\'s nominal delays; a real provider\'s jitter, queueing and rate limits are not modelled. The dashboard users load /react/avatars with small accounts (3 avatars each; 1 with LOAD_QUICK) on PGlite; no avatar thumbnails or catalogue images, no writes, and PostgreSQL/Redis (production\'s multi-instance set-up) are not measured here. LOAD_PROFILE=1 adds the profiler\'s own overhead to that run\'s figures.';
  return out;
}

function perSession(climbResult) {
  const level = climbResult?.levels?.find((l) => l.sessions === climbResult.reached) ?? climbResult?.levels?.at(-1);
  if (!level) return null;
  return { atSessions: level.sessions, workerCpuPercentPerSession: level.workerCpuPercentPerSession, workerMbPerSession: level.workerMbPerSession, childrenCpuPercentOfOneCore: level.childrenCpuPercentOfOneCore };
}
