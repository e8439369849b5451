// Live sessions end to end on the built server with npm start's embedded worker (`npm run bench -- live`):
// 1. echo text round trip: the page's `text` frame → the final `assistant` frame (p50/p95),
//    through admission, the worker socket, the conversation loop and the echo brain;
// 2. LLM text round trip to a local OpenAI-compatible fake whose first token comes 200 ms after
//    the request (Simple mode, PLATFORM_LLM_URL): "overhead" = send → first `assistant` delta − 200 ms;
// 3. concurrent text sessions one worker holds: sessions added in steps, each sending a line every
//    2 s; the largest step whose round-trip p95 stays ≤ 100 ms.
// The page side runs in this process (ws clients), on the same two cores: its cost is counted as ours.
import os from 'node:os';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import WebSocket from 'ws';
import { percentile, root, round, serverMain, startPortal } from './support.mjs';

const FIRST_TOKEN_MS = 200;
const APP_KEY = 'persona-studio-web';
const stats = (v) => ({ n: v.length, p50: round(percentile(v, 50)), p95: round(percentile(v, 95)), max: round(Math.max(...v)) });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function createAvatar(portal, fields) {
  const form = new FormData();
  form.set(
    'json',
    JSON.stringify({ dhType: 2, setupMode: 0, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 600, wakeUpMessage: 'Hello!', avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }), ...fields }),
  );
  const res = await fetch(`${portal.base}/api/add_avatar_v2`, { method: 'POST', headers: portal.auth, body: form });
  const json = await res.json();
  if (!json.agent?.id) throw new Error(`avatar not created: ${JSON.stringify(json)}`);
  // New avatars start as EchoTest: the engine is set by an edit, as in the editor.
  if (json.agent.nlpEngine !== fields.nlpEngine) {
    const edit = new FormData();
    edit.set('json', JSON.stringify({ ...json.agent, ...fields, id: json.agent.id, version: json.agent.version }));
    const updated = await (await fetch(`${portal.base}/api/add_avatar_v2`, { method: 'POST', headers: portal.auth, body: edit })).json();
    if (updated.agent?.nlpEngine !== fields.nlpEngine) throw new Error(`engine not set: ${JSON.stringify(updated)}`);
  }
  return json.agent.id;
}

let ipCounter = 0;
/** One visitor: admission from its own address (TRUST_PROXY), the socket, and a text → answer clock. */
async function openSession(portal, avatarId) {
  const n = ++ipCounter;
  const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const res = await fetch(`${portal.base}/api/live/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, authorization: `Bearer ${APP_KEY}` },
    body: JSON.stringify({ avatarId, textOnly: true }),
  });
  const answer = await res.json();
  if (answer.status !== 'OK') throw new Error(`admission refused: ${JSON.stringify(answer)}`);
  const ws = new WebSocket(answer.wsUrl);
  const waiting = new Map();
  let ready;
  const isReady = new Promise((r) => (ready = r));
  ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', protocol: 1, ticket: answer.ticket, mic: false, speaker: false, textOnly: true })));
  let pendingFirst = null;
  ws.on('message', (data) => {
    const f = JSON.parse(String(data));
    if (f.type === 'ready') ready();
    else if (f.type === 'assistant' && pendingFirst && !f.final && f.delta) {
      pendingFirst.first ??= performance.now();
    } else if (f.type === 'assistant' && f.final && pendingFirst) {
      const p = pendingFirst;
      pendingFirst = null;
      p.resolve({ first: (p.first ?? performance.now()) - p.sent, total: performance.now() - p.sent });
    }
  });
  await isReady;
  await sleep(50); // the wake-up message
  let id = 0;
  return {
    ws,
    /** Sends a line; resolves with ms to the first delta and to the final frame. */
    say(text) {
      return new Promise((resolve) => {
        pendingFirst = { sent: performance.now(), resolve, first: null };
        ws.send(JSON.stringify({ type: 'text', id: `b${++id}`, text }));
      });
    },
    close() {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'bye' }));
      ws.close();
    },
    waiting,
  };
}

async function roundTrips(session, turns, warmup, text) {
  const first = [];
  const total = [];
  for (let i = 0; i < warmup + turns; i++) {
    const t = await session.say(`${text} ${i}`);
    if (i >= warmup) {
      first.push(t.first);
      total.push(t.total);
    }
  }
  return { first, total };
}

async function concurrency(portal, avatarId, steps, secondsPerStep) {
  const sessions = [];
  const levels = [];
  let best = 0;
  let capacityReached = null;
  for (const target of steps) {
    try {
      while (sessions.length < target) sessions.push(await openSession(portal, avatarId));
    } catch (err) {
      // The worker's configured capacity (WORKER_CAPACITY, default 200) ends the climb: admission
      // answers no-worker. What it held until then is the figure.
      if (!String(err.message).includes('"no-worker"')) throw err;
      capacityReached = sessions.length;
      console.log(`  admission refused at ${sessions.length} sessions: the worker's capacity is full`);
      break;
    }
    const times = [];
    const until = performance.now() + secondsPerStep * 1000;
    // Each session sends a line every 2 s, spread evenly over the interval.
    await Promise.all(
      sessions.map(async (s, i) => {
        await sleep((2000 * i) / sessions.length);
        while (performance.now() < until) {
          const t = await s.say('How are you today?');
          times.push(t.total);
          await sleep(Math.max(0, 2000 - t.total));
        }
      }),
    );
    const level = { sessions: target, ...stats(times) };
    levels.push(level);
    console.log('  concurrent', JSON.stringify(level));
    if (level.p95 <= 100) best = target;
    else break;
  }
  for (const s of sessions) s.close();
  return { levels, sessionsHeldAtP95Under100ms: best, capacityReached };
}

export async function run({ echoTurns = 300, llmTurns = 60, steps = [25, 50, 100, 200, 300, 400], secondsPerStep = 8 } = {}) {
  const { startFakeOpenAi } = await tsImport(path.join(root, 'packages/worker/src/test/fake-openai.ts'), import.meta.url);
  const fake = await startFakeOpenAi({ answer: () => ({ text: 'Sure, the museum opens at nine and closes at five.', firstTokenDelayMs: FIRST_TOKEN_MS }) });
  const portal = await startPortal(serverMain, {
    TRUST_PROXY: 'true',
    PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited',
    PLATFORM_LLM_URL: fake.url,
    PLATFORM_LLM_API_KEY: 'test-key',
    PLATFORM_LLM_MODEL: 'bench-model',
  });
  try {
    const echoAvatar = await createAvatar(portal, { name: 'Bench Echo', nlpEngine: 0 });
    const llmAvatar = await createAvatar(portal, { name: 'Bench LLM', nlpEngine: 10 });

    const echo = await openSession(portal, echoAvatar);
    const e = await roundTrips(echo, echoTurns, 20, 'Hello there, avatar');
    echo.close();
    const echoRoundTrip = stats(e.total);
    console.log('  echo round trip', JSON.stringify(echoRoundTrip));

    const llm = await openSession(portal, llmAvatar);
    const l = await roundTrips(llm, llmTurns, 5, 'When does the museum open?');
    llm.close();
    const llmFirst = stats(l.first);
    const llmOverhead = stats(l.first.map((v) => v - FIRST_TOKEN_MS));
    console.log('  llm first token', JSON.stringify(llmFirst), 'overhead', JSON.stringify(llmOverhead));

    const held = await concurrency(portal, echoAvatar, steps, secondsPerStep);
    return {
      note: 'built server, embedded worker, npm start defaults; page clients in the bench process on the same 2 cores',
      loadAverageAtEnd: os.loadavg().map((v) => round(v)),
      cores: os.cpus().length,
      echoRoundTripMs: echoRoundTrip,
      llm: { fakeFirstTokenMs: FIRST_TOKEN_MS, firstDeltaMs: llmFirst, overheadMs: llmOverhead, targetOverheadP95Ms: 30 },
      concurrency: { ...held, secondsPerStep, lineEverySeconds: 2 },
    };
  } finally {
    await portal.stop();
    await fake.close();
  }
}
