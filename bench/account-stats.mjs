// account_stats for an account with 100 avatars and 1,000,000 call records over a year:
// p95 latency through the real route (app.inject), on PGlite and on PostgreSQL.
// PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
// database is created there and dropped afterwards).
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { percentile, root, round, tmpDir, withScratchPostgres } from './support.mjs';

const dist = (p) => path.join(root, 'packages/server/dist', p);
const AVATARS = 100;
const CALLS = 1_000_000;
const QUERIES = 200;
const DAY = 86_400_000;

async function seed(database, userId) {
  const { db } = database;
  const { avatars } = await import(dist('db/schema/index.js'));
  const rows = Array.from({ length: AVATARS }, (_, i) => ({ userId, name: `Avatar ${i + 1}` }));
  const created = await db.insert(avatars).values(rows).returning({ id: avatars.id });
  const firstId = created[0].id;
  const yearAgo = Date.now() - 365 * DAY;
  // Calls spread evenly over the year, 30 s to 20 min long, across the 100 avatars.
  const t0 = performance.now();
  for (let start = 0; start < CALLS; start += 100_000) {
    const step = Math.floor((365 * DAY) / CALLS);
    const end = Math.min(start + 100_000, CALLS) - 1;
    // Trusted integers only: the statement is built as text so PGlite need not infer types.
    await db.execute(
      sql.raw(`
      insert into call_records (user_id, avatar_id, avatar_name, session_id, started_at, ended_at, duration_seconds, client_ip)
      select ${userId}, ${firstId} + (g % ${AVATARS}), 'Avatar ' || ((g % ${AVATARS}) + 1), 'bench-' || g,
             to_timestamp((${yearAgo}::bigint + g::bigint * ${step}) / 1000.0),
             to_timestamp((${yearAgo}::bigint + g::bigint * ${step}) / 1000.0) + make_interval(secs => 30 + (g::bigint * 7919) % 1170),
             30 + (g::bigint * 7919) % 1170, '203.0.113.1'
      from generate_series(${start}::int, ${end}::int) g`),
    );
  }
  // The roll-up that recordCall keeps in step, built in one pass for the seed.
  await db.execute(
    sql.raw(`
    insert into call_daily_usage (user_id, avatar_id, day, avatar_name, total_seconds, call_count)
    select user_id, avatar_id, (started_at at time zone 'UTC')::date, max(avatar_name), sum(duration_seconds), count(*)
    from call_records where user_id = ${userId} group by 1, 2, 3`),
  );
  await db.execute(sql`analyze`);
  return { seedSeconds: round((performance.now() - t0) / 1000, 1) };
}

async function measure(label, openOpts) {
  const { openDatabase } = await import(dist('db/client.js'));
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config.js'));
  const { hashPassword } = await import(dist('lib/password.js'));
  const { users } = await import(dist('db/schema/index.js'));

  const database = await openDatabase(openOpts);
  const [user] = await database.db
    .insert(users)
    .values({ firstName: 'Bench', lastName: 'Mark', email: `bench-${Date.now()}@example.com`, passwordHash: await hashPassword('bench-password'), status: 'ACTIVE' })
    .returning();
  const seeded = await seed(database, user.id);
  const config = loadConfig({ APP_KEY: 'bench-app-key', LOG_LEVEL: 'silent', DATA_DIR: tmpDir('persona-bench-cfg-'), WEB_DIST_DIR: '/nonexistent' });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const login = await app.inject({ method: 'POST', url: '/api/login', headers: { authorization: 'Bearer bench-app-key' }, payload: { email: user.email, password: 'bench-password' } });
  const headers = { authorization: `Bearer bench-app-key:${login.json().sessionId}` };

  const now = Date.now();
  const ranges = [
    ['default (last month → now)', () => [now - 30 * DAY, now]],
    ['whole year', () => [now - 366 * DAY, now]],
    ['random range', () => {
      const a = now - Math.floor(Math.random() * 365 * DAY);
      return [a, Math.min(now, a + Math.floor(Math.random() * 120 * DAY))];
    }],
  ];
  const results = {};
  for (const [name, pick] of ranges) {
    const times = [];
    for (let i = 0; i < QUERIES + 10; i++) {
      const [s, e] = pick();
      const t0 = performance.now();
      const res = await app.inject({ url: `/api/account_stats?startDate=${s}&endDate=${e}`, headers });
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(res.body);
      if (i >= 10) times.push(ms);
    }
    results[name] = { p50ms: round(percentile(times, 50)), p95ms: round(percentile(times, 95)), maxMs: round(Math.max(...times)) };
  }
  const check = await app.inject({ url: `/api/account_stats?startDate=${now - 366 * DAY}&endDate=${now}`, headers });
  await app.close();
  await database.close();
  return { label, ...seeded, totalCallCount: check.json().cummulativeData.totalCallCount, avatars: check.json().billingData.length, ...results };
}

export async function run() {
  const out = { calls: CALLS, avatars: AVATARS, queriesPerRange: QUERIES, target: 'p95 ≤ 50 ms on PostgreSQL' };
  out.pglite = await measure('PGlite', { pgliteDir: path.join(tmpDir('persona-bench-stats-'), 'pglite') });
  out.postgres = await withScratchPostgres('stats', (databaseUrl) => measure('PostgreSQL', { databaseUrl }));
  return out;
}
