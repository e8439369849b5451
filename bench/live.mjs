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
import { SIMPLE_LLM, createAvatar, latencyStats, openLiveSession, root, round, serverMain, sleep, startPortal } from './support.mjs';

const FIRST_TOKEN_MS = 200;
const stats = latencyStats;
const openSession = (portal, avatarId) => openLiveSession(portal, avatarId);

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
    const llmAvatar = await createAvatar(portal, { name: 'Bench LLM', nlpEngine: 10, ...SIMPLE_LLM });

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
