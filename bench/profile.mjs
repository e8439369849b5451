// Where the CPU time of one call goes: the portal (npm start settings, in its own process) runs
// under `node --cpu-prof` while autocannon calls it; the profile is summarised as the functions
// with the most self time, the same time by area (our code, fastify, zod, pino, pg, drizzle,
// node, GC, idle), and the inclusive time under the session lookup.
//
// BENCH_PROFILE_PATH (default /api/account_info), BENCH_PROFILE_DB (postgres | pglite, default
// postgres), BENCH_PROFILE_SECONDS (default 10), BENCH_SERVER_MAIN (default the current build).
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuSeconds, round, serverMain, startPortal, tmpDir, withScratchPostgres } from './support.mjs';

const PATH = process.env.BENCH_PROFILE_PATH ?? '/api/account_info';
const DB = process.env.BENCH_PROFILE_DB ?? 'postgres';
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const MAIN = path.resolve(process.env.BENCH_SERVER_MAIN ?? serverMain);

const AREAS = [
  ['(garbage collector)', /^\(garbage collector\)$/],
  ['(idle)', /^\(idle\)$/],
  ['(program)', /^\(program\)$/],
  ['zod', /node_modules\/zod\//],
  ['fastify-type-provider-zod', /fastify-type-provider-zod/],
  ['pino / sonic-boom', /node_modules\/(pino|sonic-boom|pino-std-serializers)/],
  ['fastify', /node_modules\/(fastify|@fastify|find-my-way|light-my-request|avvio|fast-json-stringify|fast-querystring|toad-cache)/],
  ['drizzle-orm', /node_modules\/drizzle-orm/],
  ['pg', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-)/],
  ['pglite', /node_modules\/@electric-sql/],
  ['helmet', /node_modules\/helmet/],
  ['onnxruntime (VAD)', /onnxruntime/],
  ['persona (our code)', /packages\/(server|contract|worker)\//],
  ['other packages', /node_modules\//],
  ['node internals', /^node:/],
  ['native (syscalls: socket and file writes…)', /^$/],
];

function area(url, name) {
  for (const [label, re] of AREAS) if (re.test(label.startsWith('(') ? name : url)) return label;
  return 'other';
}

/**
 * Self time per function and per area, and inclusive time under functions matching `under`,
 * counting only the samples of the last `windowUs` before `endUs` (the load, not start-up).
 */
export function summarise(profile, { fromUs = -Infinity, toUs = Infinity, under = /resolveSession|findLiveSession/ } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= fromUs && t <= toUs) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const areas = new Map();
  let underUs = 0;
  for (const [id, us] of self) {
    const n = byId.get(id);
    const f = n.callFrame;
    const short = f.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, '').replace(/.*packages\//, '');
    const key = `${f.functionName || '(anonymous)'} ${short ? `${short}:${f.lineNumber + 1}` : ''}`.trim();
    fns.set(key, (fns.get(key) ?? 0) + us);
    const a = area(f.url, f.functionName);
    areas.set(a, (areas.get(a) ?? 0) + us);
    for (let p = id; p !== undefined; p = parent.get(p)) {
      if (under.test(byId.get(p).callFrame.functionName)) {
        underUs += us;
        break;
      }
    }
  }
  const idle = (areas.get('(idle)') ?? 0);
  const busy = total - idle;
  const pct = (us) => `${round((us / busy) * 100, 1)}%`;
  const top = (m, n) => [...m].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => ({ fn: k, ms: round(us / 1000, 0), ofBusy: pct(us) }));
  return { profiledMs: round(total / 1000, 0), busyMs: round(busy / 1000, 0), topSelf: top(fns, 30), byArea: top(areas, 20), sessionLookupInclusive: { ms: round(underUs / 1000, 0), ofBusy: pct(underUs) } };
}

export async function run() {
  const profileDir = tmpDir('persona-bench-profile-');
  const measure = async (env, databaseName) => {
    const portal = await startPortal(MAIN, env, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
    const headers = PATH === '/api/health' ? {} : portal.auth;
    const load = (duration) =>
      new Promise((resolve, reject) => autocannon({ url: portal.base + PATH, connections: 20, duration, headers }, (err, r) => (err ? reject(err) : resolve(r))));
    await load(2); // warm-up
    const serverPid = portal.child.pid;
    const ours = (_pid, comm, cmdline) => comm === 'postgres' && databaseName !== undefined && cmdline().includes(` ${databaseName} `);
    const before = { server: cpuSeconds((pid) => pid === serverPid), postgres: cpuSeconds(ours) };
    const res = await load(SECONDS);
    res.cpu = { server: cpuSeconds((pid) => pid === serverPid) - before.server, postgres: cpuSeconds(ours) - before.postgres };
    const stopAt = performance.now();
    await portal.stop();
    // The profile's clock is not ours: keep the samples of the SECONDS before the server stopped.
    res.stopMs = performance.now() - stopAt;
    return res;
  };
  const res = DB === 'postgres' ? await withScratchPostgres('profile', (url) => measure({ DATABASE_URL: url }, new URL(url).pathname.slice(1))) : await measure({});
  if (res.error) throw new Error(res.error);
  const file = fs.readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const profile = JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8'));
  const endUs = profile.endTime - res.stopMs * 1000;
  const summary = summarise(profile, { fromUs: endUs - SECONDS * 1e6, toUs: endUs });
  const requests = res.requests.total;
  console.log(`${PATH} on ${DB}: ${requests} requests in ${SECONDS} s; busy CPU ${summary.busyMs} ms = ${round((summary.busyMs * 1000) / requests, 0)} µs per request`);
  const perReq = (seconds) => round((seconds * 1e6) / requests, 0);
  console.log(`whole process CPU (all threads): server ${perReq(res.cpu.server)} µs/request; PostgreSQL backends ${perReq(res.cpu.postgres)} µs/request`);
  console.table(summary.byArea);
  console.table(summary.topSelf);
  console.log('session lookup (inclusive, synchronous parts):', summary.sessionLookupInclusive);
  return {
    call: PATH,
    database: DB,
    server: MAIN,
    seconds: SECONDS,
    requests,
    rps: round(res.requests.average, 0),
    cpuMicrosecondsPerRequest: round((summary.busyMs * 1000) / requests, 0),
    processCpuMicrosecondsPerRequest: { server: round((res.cpu.server * 1e6) / requests, 0), postgres: round((res.cpu.postgres * 1e6) / requests, 0) },
    profile: path.join(profileDir, file),
    ...summary,
  };
}
