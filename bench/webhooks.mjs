// Webhook delivery (issue 30, ADR 093): throughput of one instance's sender draining a backlog of
// signed deliveries to a local receiver, and the lag from an event queued to its arrival with the
// app's own loop (poll 1 s + a kick after each queued event), on PGlite and on PostgreSQL.
// PostgreSQL: BENCH_DATABASE_URL (a scratch database is created there and dropped afterwards).
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { percentile, root, round, sleep, tmpDir, webhookReceiver, withScratchPostgres } from './support.mjs';

const dist = (p) => path.join(root, 'packages/server/dist', p);
const BACKLOG = 2_000;
const LAG_EVENTS = 200;
const LAG_RATE_PER_S = 20;


async function measure(label, openOpts, pollMs) {
  const { openDatabase } = await import(dist('db/client.js'));
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config.js'));
  const { users } = await import(dist('db/schema/index.js'));
  const database = await openDatabase(openOpts);
  const [user] = await database.db.insert(users).values({ firstName: 'Bench', lastName: 'Hooks', email: `bench-hooks-${Date.now()}@example.com`, passwordHash: 'x', status: 'ACTIVE' }).returning();
  const config = loadConfig({ APP_KEY: 'bench-app-key', LOG_LEVEL: 'silent', DATA_DIR: tmpDir('persona-bench-hooks-'), WEB_DIST_DIR: '/nonexistent', ALLOW_PRIVATE_URLS: 'true' });
  const app = await buildApp({ config, database, logger: false, webhookTimings: { pollMs } });
  await app.ready();
  const hook = await webhookReceiver();
  try {
    const { webhook } = await app.webhooks.add(user.id, { url: hook.url, avatarId: null, events: ['session.ended'], enabled: true });
    const out = { label };
    if (pollMs === 0) {
      // Throughput: a backlog of ready bodies drained by one instance's sender (16 at a time).
      await database.db.execute(
        sql.raw(`insert into webhook_deliveries (endpoint_id, event_id, event_type, body, created_at, next_attempt_at)
          select ${webhook.id}, 'evt_bench_' || g, 'ping', '{"version":1,"id":"evt_bench_' || g || '","type":"ping","created":"2026-01-01T00:00:00.000Z","data":{}}', now(), now()
          from generate_series(1, ${BACKLOG}) g`),
      );
      const t0 = performance.now();
      const sent = await app.webhooks.dispatchDue();
      const seconds = (performance.now() - t0) / 1000;
      out.backlog = { deliveries: sent, received: hook.arrivals.size, seconds: round(seconds, 2), perSecond: round(sent / seconds, 0) };
    } else {
      // Lag: test events queued at a steady rate while the app's loop runs.
      const queued = new Map();
      for (let i = 0; i < LAG_EVENTS; i++) {
        const d = await app.webhooks.sendTest(user.id, webhook.id);
        queued.set(d.eventId, Date.now());
        await sleep(1000 / LAG_RATE_PER_S);
      }
      const deadline = Date.now() + 15_000;
      while (hook.arrivals.size < LAG_EVENTS && Date.now() < deadline) await sleep(50);
      const lags = [...queued].filter(([id]) => hook.arrivals.has(id)).map(([id, at]) => hook.arrivals.get(id) - at);
      out.lag = { events: LAG_EVENTS, received: lags.length, p50ms: round(percentile(lags, 50)), p95ms: round(percentile(lags, 95)), maxMs: round(Math.max(...lags)) };
    }
    return out;
  } finally {
    await app.close();
    await hook.close();
    await database.close();
  }
}

export async function run() {
  const out = { backlog: BACKLOG, lagEvents: LAG_EVENTS, lagRatePerSecond: LAG_RATE_PER_S, note: 'session.ended/transcript.ready also wait up to 15 s for the worker’s report (ADR 093); not counted here' };
  const pg = (dir) => ({ pgliteDir: path.join(tmpDir(`persona-bench-hooks-${dir}-`), 'pglite') });
  out.pglite = { ...(await measure('PGlite', pg('t'), 0)), ...(await measure('PGlite', pg('l'), 1000)) };
  out.postgres = await withScratchPostgres('hooks', async (databaseUrl) => ({ ...(await measure('PostgreSQL', { databaseUrl }, 0)), ...(await measure('PostgreSQL', { databaseUrl }, 1000)) }));
  return out;
}
