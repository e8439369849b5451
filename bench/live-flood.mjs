// The portal's API under a microphone flood on /avatar-ws (`npm run bench -- flood`; issue 26, item 7).
// The built portal with npm start's defaults and TRUST_PROXY=true (each visitor its own address),
// an echo avatar that listens (the default VAD and offline recogniser). While GET /api/health is
// asked every 10 ms (latency counted from when each request was due), for each deployment:
//   embedded: the portal's own worker takes the page sockets (npm start's default);
//   external: EMBEDDED_WORKER=false and one worker as `npm run worker` runs it (its own process).
// phases, `seconds` each:
//   baseline: nothing else;
//   paced:    `sockets` sessions each sending noise at 1.25× real time, the most the frame guard
//             takes from a page (what an honest crowd of speakers costs at most);
//   flood:    `sockets` sessions each sending as fast as its socket drains; a socket the guard
//             closes is replaced by a new admission (a hostile client that keeps coming back).
// Reported: health p50/p95/p99/max, the portal's and the worker's CPU, sockets closed by the guard,
// and mic audio the worker's metrics say it took. The clients run in this process (same 2 cores).
import os from 'node:os';
import WebSocket from 'ws';
import { APP_KEY, createAvatar, cpuSeconds, nextVisitorIp, percentile, processTree, round, serverMain, sleep, startPortal, startWorker } from './support.mjs';

const WORKER_SECRET = 'flood-bench-worker-secret-0123456789';
const FRAME_MS = 20;
const SAMPLES = (16_000 * FRAME_MS) / 1000;

function micFrame(seq) {
  const out = Buffer.alloc(8 + SAMPLES * 2);
  out.writeUInt8(1, 0); // AudioFrameKind.mic
  out.writeUInt32LE(seq >>> 0, 4);
  for (let s = 0; s < SAMPLES; s++) out.writeInt16LE(Math.round(Math.sin((seq * SAMPLES + s) / 7) * 3000 + (Math.random() - 0.5) * 2000), 8 + s * 2);
  return out;
}
const FRAMES = Array.from({ length: 500 }, (_, i) => micFrame(i));

async function healthSampler(base, isDone) {
  const lat = [];
  let due = performance.now();
  while (!isDone()) {
    const res = await fetch(`${base}/api/health`);
    await res.arrayBuffer();
    const now = performance.now();
    lat.push(now - due);
    due += 10;
    if (due > now) await sleep(due - now);
    else due = now;
  }
  return lat;
}

const stats = (v) => ({ n: v.length, p50: round(percentile(v, 50)), p95: round(percentile(v, 95)), p99: round(percentile(v, 99)), max: round(Math.max(...v)) });

/** A listening session (mic on, text and voice) from its own address; resolves when ready. */
async function openMic(base, avatarId, onClose) {
  const res = await fetch(`${base}/api/live/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextVisitorIp(), authorization: `Bearer ${APP_KEY}` },
    body: JSON.stringify({ avatarId }),
  });
  const answer = await res.json();
  if (answer.status !== 'OK') throw new Error(`admission refused: ${JSON.stringify(answer)}`);
  const ws = new WebSocket(answer.wsUrl);
  await new Promise((resolve, reject) => {
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', protocol: 1, ticket: answer.ticket, mic: true, speaker: false })));
    ws.on('message', (data, isBinary) => {
      if (!isBinary && JSON.parse(String(data)).type === 'ready') resolve();
    });
    ws.on('close', (code) => {
      onClose(code);
      reject(new Error(`closed ${code} before ready`));
    });
    ws.on('error', reject);
  });
  return ws;
}

async function phase(base, avatarId, kind, sockets, seconds) {
  let done = false;
  let closedByGuard = 0;
  let framesSent = 0;
  let reopenFailures = 0;
  const until = performance.now() + seconds * 1000;
  const onClose = (code) => {
    if (code === 4002) closedByGuard++; // LiveProtocol.close.badFrame
  };
  const client = async (i) => {
    let seq = 0;
    while (performance.now() < until) {
      let ws;
      try {
        ws = await openMic(base, avatarId, onClose);
      } catch {
        reopenFailures++;
        await sleep(200);
        continue;
      }
      const started = performance.now();
      while (ws.readyState === WebSocket.OPEN && performance.now() < until) {
        if (kind === 'paced') {
          // 1.25× real time after a 2 s burst: what the guard takes without dropping.
          const allowed = Math.floor(((performance.now() - started) * 1.25 + 2000) / FRAME_MS);
          while (seq < allowed && ws.readyState === WebSocket.OPEN) {
            ws.send(FRAMES[seq++ % FRAMES.length]);
            framesSent++;
          }
          await sleep(FRAME_MS);
        } else {
          if (ws.bufferedAmount < 256 * 1024) {
            for (let k = 0; k < 50 && ws.readyState === WebSocket.OPEN; k++) {
              ws.send(FRAMES[seq++ % FRAMES.length]);
              framesSent++;
            }
          }
          await new Promise((r) => setImmediate(r));
        }
      }
      if (ws.readyState === WebSocket.OPEN) ws.close();
      else if (kind === 'paced') break;
    }
    void i;
  };
  const sampling = healthSampler(base, () => done);
  await Promise.all(Array.from({ length: sockets }, (_, i) => client(i)));
  done = true;
  const lat = await sampling;
  return { health: stats(lat), framesSent, closedByGuard, reopenFailures };
}

async function deployment(kind, { sockets, seconds }) {
  const external = kind === 'external';
  const portal = await startPortal(serverMain, {
    TRUST_PROXY: 'true',
    PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited',
    ...(external ? { EMBEDDED_WORKER: 'false', WORKER_SECRET } : {}),
  }, process.env.FLOOD_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FLOOD_PROFILE}`] : []);
  let worker = null;
  try {
    if (external) worker = await startWorker(portal.base, { WORKER_SECRET }, { args: ['--capacity', '1000'] });
    const avatarId = await createAvatar(portal, { name: 'Flood', nlpEngine: 0 });
    // One session first: the VAD and recogniser are loaded before anything is measured.
    const warm = await openMic(portal.base, avatarId, () => {});
    for (let i = 0; i < 100; i++) warm.send(FRAMES[i]);
    await sleep(2000);
    warm.close();
    const portalPids = () => new Set(processTree(portal.child.pid));
    const workerPids = () => (worker ? new Set(processTree(worker.pid)) : new Set());
    const out = {};
    for (const name of (process.env.FLOOD_PHASES ?? 'baseline,paced,flood').split(',')) {
      const pp = portalPids();
      const wp = workerPids();
      const cpu0 = { portal: cpuSeconds((pid) => pp.has(pid)), worker: cpuSeconds((pid) => wp.has(pid)) };
      const t0 = performance.now();
      let r;
      if (name === 'baseline') {
        let done = false;
        const sampling = healthSampler(portal.base, () => done);
        await sleep(seconds * 1000);
        done = true;
        r = { health: stats(await sampling) };
      } else r = await phase(portal.base, avatarId, name, sockets, seconds);
      const wall = (performance.now() - t0) / 1000;
      r.cpuCores = { portal: round((cpuSeconds((pid) => pp.has(pid)) - cpu0.portal) / wall), ...(worker ? { worker: round((cpuSeconds((pid) => wp.has(pid)) - cpu0.worker) / wall) } : {}) };
      console.log(`  ${kind} ${name}: ${JSON.stringify(r)}`);
      out[name] = r;
      await sleep(1500);
    }
    return out;
  } finally {
    await worker?.stop();
    await portal.stop();
  }
}

export async function run({ sockets = Number(process.env.FLOOD_SOCKETS ?? 20), seconds = Number(process.env.FLOOD_SECONDS ?? 8), deployments = (process.env.FLOOD_DEPLOYMENTS ?? 'embedded,external').split(',') } = {}) {
  const result = { settings: { sockets, seconds, cores: os.cpus().length, loadAverageAtStart: os.loadavg().map((v) => round(v)) } };
  for (const d of deployments) result[d] = await deployment(d, { sockets, seconds });
  result.loadAverageAtEnd = os.loadavg().map((v) => round(v));
  return result;
}
