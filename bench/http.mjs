// The cost of a request: GET /api/health and small authenticated calls against the portal as
// `npm start` runs it (default settings, request logging on, its output going to a file the way
// it goes to a terminal), and a bare node:http server as the baseline. Every server runs in its
// own process; the load generator (autocannon) runs in this one. Plain Fastify (no logger, no
// hooks, same body as the bare server) is measured in the same rounds: the framework's own share;
// and the same plain Fastify in a process that first opened the portal's database (PGlite, its
// migrations applied) as `npm start` does: what a route costs in a process that has done the I/O
// any database-backed server does, before the portal adds anything (ADR 015).
//
// Calls: health (PGlite, npm start's default database), list_vps as the admin and list_avatar
// with no avatars (PostgreSQL), account_info (PostgreSQL and PGlite). Each is measured ROUNDS
// times (BENCH_ROUNDS, default 3), interleaved with the bare server, after a warm-up; the answer
// gives the median and the spread (min–max) of the rounds.
//
// BENCH_BASELINE_MAIN=/path/to/an/older/packages/server/dist/main.js (or label=path,label=path)
// measures those builds too, in the same rounds (same machine, same moment): before/after figures.
// PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); a scratch
// database per build is created there and dropped.
import { spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { pathToFileURL } from 'node:url';
import { cpuSeconds, freePort, round, serverMain, startPortal, stopChild, withScratchPostgres } from './support.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = 2;
const CONNECTIONS = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const ALL_CALLS = [
  { name: 'health', driver: 'pglite', path: '/api/health', auth: false },
  { name: 'list_vps (admin)', driver: 'postgres', path: '/api/list_vps', auth: true },
  { name: 'list_avatar (none)', driver: 'postgres', path: '/api/list_avatar', auth: true },
  { name: 'account_info', driver: 'postgres', path: '/api/account_info', auth: true },
  { name: 'account_info', driver: 'pglite', path: '/api/account_info', auth: true },
];
// BENCH_CALLS=health,account_info: only the calls whose names start with one of these.
const only = (process.env.BENCH_CALLS ?? '').split(',').filter(Boolean);
const CALLS = only.length ? ALL_CALLS.filter((c) => only.some((o) => c.name.startsWith(o))) : ALL_CALLS;

function cannon(url, headers = {}, duration = DURATION) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, headers }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** A reference server in its own process (node -e code, run from the repository root), once it listens. */
async function startReference(label, code) {
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.resolve(import.meta.dirname, '..') });
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('listening')) resolve();
      });
      child.once('exit', (c) => reject(new Error(`${label} exited ${c}`)));
      setTimeout(() => reject(new Error(`${label} did not listen within 120 s`)), 120_000).unref();
    });
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { pid: child.pid, stop: () => stopChild(child) };
}

/** A process that answers every request with the smallest JSON body: the ceiling for this machine. */
async function startBare() {
  const port = freePort();
  const code = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"status":"OK"}'); }).listen(${port}, '127.0.0.1', () => console.log('listening'));`;
  return { url: `http://127.0.0.1:${port}/`, ...(await startReference('bare server', code)) };
}

/**
 * Fastify alone (this repository's version, no logger, no hooks) answering the same body as the
 * bare server, in its own process: what the framework costs before the portal adds anything.
 */
async function startPlainFastify() {
  const port = freePort();
  const code = `const app = require('fastify')(); app.get('/', async () => ({ status: 'OK' })); app.listen({ port: ${port}, host: '127.0.0.1' }).then(() => console.log('listening'));`;
  return { url: `http://127.0.0.1:${port}/`, ...(await startReference('plain Fastify', code)) };
}

/**
 * The same plain Fastify, in a process that first opened the portal's database the way `npm start`
 * does (PGlite in a scratch directory, migrations applied) and keeps it open, idle.
 */
async function startPlainFastifyAfterDatabase() {
  const port = freePort();
  const client = pathToFileURL(path.join(path.dirname(serverMain), 'db/client.js')).href;
  const code = `(async () => {
    const fs = require('node:fs'), os = require('node:os'), path = require('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-bench-db-'));
    const quit = (code) => { fs.rmSync(dir, { recursive: true, force: true }); process.exit(code); };
    for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => quit(0));
    try {
      const { openDatabase } = await import(${JSON.stringify(client)});
      globalThis.database = await openDatabase({ pgliteDir: path.join(dir, 'pglite') });
      const app = require('fastify')(); app.get('/', async () => ({ status: 'OK' }));
      await app.listen({ port: ${port}, host: '127.0.0.1' }); console.log('listening');
    } catch (err) { console.error(err); quit(1); }
  })();`;
  return { url: `http://127.0.0.1:${port}/`, ...(await startReference('plain Fastify after opening the database', code)) };
}

/** One round against a reference server: its answer summary and its CPU time per request. */
async function measureReference(server) {
  const cpu0 = cpuSeconds((p) => p === server.pid);
  const raw = await cannon(server.url);
  return { ...summary(raw), cpuUs: ((cpuSeconds((p) => p === server.pid) - cpu0) * 1e6) / (raw.requests.total || 1) };
}

async function withPostgres(label, fn) {
  const result = await withScratchPostgres(label, fn);
  if (result?.error) throw new Error(result.error);
  return result;
}

const summary = (r) => ({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs, d = 0) => ({ median: round(median(xs), d), min: round(Math.min(...xs), d), max: round(Math.max(...xs), d) });

export async function run() {
  const builds = [{ label: 'current', main: serverMain }];
  // BENCH_BASELINE_MAIN=path, or label=path[,label=path…]: other builds measured in the same rounds.
  const others = (process.env.BENCH_BASELINE_MAIN ?? '').split(',').filter(Boolean);
  others.forEach((entry, i) => {
    const [label, file] = entry.includes('=') ? entry.split('=') : [others.length > 1 ? `baseline${i + 1}` : 'baseline', entry];
    builds.splice(i, 0, { label, main: path.resolve(file) });
  });

  const bare = await startBare();
  // Reference servers measured in the same rounds as the bare one.
  const references = [];
  try {
    references.push({ key: 'plainFastify', label: 'plain Fastify (no logger, no hooks)', server: await startPlainFastify() });
    references.push({ key: 'plainFastifyAfterDatabase', label: 'plain Fastify, database opened', server: await startPlainFastifyAfterDatabase() });
  } catch (err) {
    await bare.stop();
    for (const r of references) await r.server.stop();
    throw err;
  }
  // Nested scratch databases: one per build, all alive for the whole run so rounds interleave.
  const portals = {};
  const open = async (i) => {
    if (i === builds.length) return measureAll();
    const b = builds[i];
    return withPostgres(`http_${b.label}`, async (databaseUrl) => {
      portals[b.label] = { postgres: await startPortal(b.main, { DATABASE_URL: databaseUrl }), pglite: await startPortal(b.main, {}) };
      portals[b.label].postgres.databaseName = new URL(databaseUrl).pathname.slice(1);
      try {
        return await open(i + 1);
      } finally {
        await portals[b.label].postgres.stop();
        await portals[b.label].pglite.stop();
      }
    });
  };

  async function measureAll() {
    const target = (b, call) => {
      const p = portals[b.label][call.driver];
      return { url: p.base + call.path, headers: call.auth ? p.auth : {} };
    };
    // Warm-up: JIT, connection pools, caches.
    await cannon(bare.url, {}, WARMUP);
    for (const r of references) await cannon(r.server.url, {}, WARMUP);
    for (const b of builds) for (const call of CALLS) await cannon(target(b, call).url, target(b, call).headers, WARMUP);

    const bareRounds = [];
    const referenceRounds = Object.fromEntries(references.map((r) => [r.key, []]));
    const rounds = Object.fromEntries(builds.map((b) => [b.label, CALLS.map(() => [])]));
    for (let r = 0; r < ROUNDS; r++) {
      bareRounds.push(await measureReference(bare));
      for (const ref of references) {
        const m = await measureReference(ref.server);
        referenceRounds[ref.key].push({ ...m, ratioToBare: m.rps / bareRounds[r].rps });
      }
      for (let c = 0; c < CALLS.length; c++) {
        for (const b of builds) {
          const t = target(b, CALLS[c]);
          // CPU time per request (all threads of the portal; PostgreSQL's backends): steadier than
          // req/s when other work shares the machine.
          const portal = portals[b.label][CALLS[c].driver];
          const pid = portal.child.pid;
          // PostgreSQL's backends serving this portal's database (its name is in their title).
          const ours = (_p, comm, cmdline) => comm === 'postgres' && portal.databaseName !== undefined && cmdline().includes(` ${portal.databaseName} `);
          const cpu0 = { server: cpuSeconds((p) => p === pid), postgres: cpuSeconds(ours) };
          const raw = await cannon(t.url, t.headers);
          const res = summary(raw);
          const n = raw.requests.total || 1;
          res.serverCpuUs = ((cpuSeconds((p) => p === pid) - cpu0.server) * 1e6) / n;
          res.postgresCpuUs = ((cpuSeconds(ours) - cpu0.postgres) * 1e6) / n;
          rounds[b.label][c].push({ ...res, ratioToBare: res.rps / bareRounds[r].rps });
        }
      }
    }
    const logBytes = Object.fromEntries(builds.map((b) => [b.label, { postgres: portals[b.label].postgres.logBytes(), pglite: portals[b.label].pglite.logBytes() }]));
    return { bareRounds, referenceRounds, rounds, logBytes };
  }

  let measured;
  try {
    measured = await open(0);
  } finally {
    await bare.stop();
    for (const r of references) await r.server.stop();
  }
  const { bareRounds, referenceRounds, rounds, logBytes } = measured;
  const table = [];
  for (let c = 0; c < CALLS.length; c++) {
    for (const b of builds) {
      const rs = rounds[b.label][c];
      table.push({
        call: `GET ${CALLS[c].path}`,
        label: CALLS[c].name,
        database: CALLS[c].driver === 'postgres' ? 'PostgreSQL' : 'PGlite',
        build: b.label,
        rps: spread(rs.map((x) => x.rps)),
        p99ms: spread(rs.map((x) => x.p99)),
        p50ms: spread(rs.map((x) => x.p50)),
        ratioToBare: spread(rs.map((x) => x.ratioToBare), 2),
        serverCpuUsPerRequest: spread(rs.map((x) => x.serverCpuUs)),
        postgresCpuUsPerRequest: spread(rs.map((x) => x.postgresCpuUs)),
        non2xx: rs.reduce((n, x) => n + x.non2xx, 0),
        errors: rs.reduce((n, x) => n + x.errors, 0),
      });
    }
  }
  console.log(`bare node:http                          ${String(round(median(bareRounds.map((x) => x.rps)), 0)).padStart(6)} req/s  cpu ${round(median(bareRounds.map((x) => x.cpuUs)), 0)} µs/req`);
  for (const ref of references) {
    const rs = referenceRounds[ref.key];
    console.log(`${ref.label.padEnd(39)} ${String(round(median(rs.map((x) => x.rps)), 0)).padStart(6)} req/s  ${round(median(rs.map((x) => x.ratioToBare)), 2)}× bare  cpu ${round(median(rs.map((x) => x.cpuUs)), 0)} µs/req`);
  }
  for (const row of table) {
    console.log(
      `${`${row.label} ${row.database}`.padEnd(32)} ${row.build.padEnd(10)} ${String(row.rps.median).padStart(6)} req/s (${row.rps.min}–${row.rps.max})  p99 ${row.p99ms.median} ms (${row.p99ms.min}–${row.p99ms.max})  ${row.ratioToBare.median}× bare  cpu ${row.serverCpuUsPerRequest.median}+${row.postgresCpuUsPerRequest.median} µs/req${row.non2xx || row.errors ? `  non2xx ${row.non2xx} errors ${row.errors}` : ''}`,
    );
  }
  return {
    settings: { durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, rounds: ROUNDS, portal: 'npm start defaults (LOG_LEVEL unset = info, embedded worker on), output to a file' },
    bareNodeHttp: { rps: spread(bareRounds.map((x) => x.rps)), p99ms: spread(bareRounds.map((x) => x.p99)), cpuUsPerRequest: spread(bareRounds.map((x) => x.cpuUs)) },
    ...Object.fromEntries(
      references.map(({ key }) => {
        const rs = referenceRounds[key];
        return [
          key,
          {
            rps: spread(rs.map((x) => x.rps)),
            ratioToBare: spread(rs.map((x) => x.ratioToBare), 2),
            p99ms: spread(rs.map((x) => x.p99)),
            cpuUsPerRequest: spread(rs.map((x) => x.cpuUs)),
            non2xx: rs.reduce((n, x) => n + x.non2xx, 0),
            errors: rs.reduce((n, x) => n + x.errors, 0),
          },
        ];
      }),
    ),
    calls: table,
    serverLogBytes: logBytes,
    targets: {
      health: '≥ 0.8× bare',
      list_vps: '≥ 8,000 req/s, p99 ≤ 10 ms (PostgreSQL)',
      list_avatar: '≥ 6,000 req/s, p99 ≤ 15 ms (PostgreSQL)',
      account_info: '≥ 3,000 / ≥ 1,000 req/s, p99 ≤ 20 / 50 ms (PostgreSQL / PGlite)',
    },
  };
}
