// Conversations at scale (issue 30, ADR 098): `npm run bench -- conversations`.
// 1. 50 000 ended sessions with 20 history entries each (1 M turns: visitor questions and avatar
//    answers made of ~120 sentence templates, a skewed pool of 400 topic words, an order number in
//    one visitor turn in twenty) over a year: half of them one large account's, the rest 19 others';
//    seeded in bulk (one INSERT … SELECT per 5 000 sessions, the search trigger of migration 0017
//    running for each row), then ANALYZE.
// 2. The list and the search through the real routes (app.inject, a signed-in session; an admin for
//    every account's): the first page, 40 successive keyset pages, and the filters (avatar, dates,
//    outcome, errors only) with and without `q`; words frequent (in most sessions), middling, rare
//    (one session), two words, and a word said nowhere. p50/p95/max per case; target p95 ≤ 100 ms
//    on PostgreSQL, ≤ 250 ms on PGlite.
// 3. Webhook delivery: one instance's sender draining a backlog of 2 000 signed deliveries to a
//    local receiver (deliveries/s), and the lag from an event queued to its arrival with the app's
//    own loop (200 test events at 20/s; p50/p95) — the same measure as `bench -- webhooks` (ADR 093),
//    here on the database that holds the 1 M turns.
// PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); a scratch database
// is created there and dropped afterwards. The machine is shared: figures vary with what else runs.
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { percentile, root, round, sleep, tmpDir, webhookReceiver, withScratchPostgres } from './support.mjs';

const dist = (p) => path.join(root, 'packages/server/dist', p);
// BENCH_CONVERSATIONS_SESSIONS: a smaller seed to try the bench out (the figures are for 50 000).
const SESSIONS = Number(process.env.BENCH_CONVERSATIONS_SESSIONS ?? 50_000);
const TURNS = 20;
const BATCH = Math.min(5_000, SESSIONS);
const ACCOUNTS = 20;
const RUNS = 40;
const DAY = 86_400_000;
const PAGES = 40;
const BACKLOG = 2_000;
const LAG_EVENTS = 200;
const LAG_RATE_PER_S = 20;

const VISITOR = [
  'Hi, I would like to know more about {x}.',
  'How much does {x} cost per month?',
  'Can I get a refund for {x} if it does not work for me?',
  'My order of {x} has not arrived yet, what should I do?',
  'Do you ship {x} to Germany or only within the country?',
  'Is {x} available in a larger size?',
  'I was charged twice for {x}, can you check my invoice?',
  'What is the difference between {x} and the premium plan?',
  'Can you help me reset my password please?',
  'Where is your nearest store that sells {x}?',
  'Does {x} come with a warranty?',
  'I need to change the delivery address for my order.',
  'How long does the battery of {x} last?',
  'Can I talk to a human agent about {x}?',
  'Thanks, that was helpful.',
  'What are your opening hours on Sunday?',
  'Is there a discount for students on {x}?',
  'The app keeps crashing when I open {x}.',
  'How do I cancel my subscription?',
  'Could you explain how {x} works in simple words?',
  'Do you accept payment by bank transfer?',
  'I want to book an appointment for next Tuesday.',
  'My account says it is locked, why?',
  'Can I return {x} after thirty days?',
  'Which colour options do you have for {x}?',
  'Is {x} compatible with my phone?',
  'What happens to my data when I delete my account?',
  'Hello, is anyone there?',
  'Please send me the manual for {x}.',
  'How do I upgrade from the basic plan to {x}?',
];
const AVATAR = [
  'Sure, I can help you with {x}. What would you like to know?',
  'The monthly price of {x} is listed on our pricing page, and there is a yearly discount.',
  'You can request a refund within thirty days of purchase from your account page.',
  'I am sorry your order is late. Orders usually arrive within three to five working days.',
  'Yes, we ship {x} to most countries in the European Union.',
  '{x} comes in small, medium and large sizes.',
  'I can see why that is confusing. A double charge is usually a pending authorisation that disappears within a few days.',
  'The premium plan includes priority support and more storage than {x}.',
  'To reset your password, click on forgot password on the sign-in page and follow the link we e-mail you.',
  'Our nearest store is in the city centre, open from nine to six.',
  'Every {x} comes with a two year warranty against manufacturing defects.',
  'You can change the delivery address until the parcel has been handed to the courier.',
  'The battery lasts about ten hours of normal use.',
  'I will connect you with a member of our support team right away.',
  'You are welcome! Is there anything else I can do for you?',
  'On Sundays we are open from ten in the morning to four in the afternoon.',
  'Students get fifteen percent off with a valid student card.',
  'Sorry about the crash. Please update the app to the latest version and try again.',
  'You can cancel your subscription at any time from the billing settings.',
  '{x} turns your questions into clear answers using the documents you upload.',
  'Yes, we accept bank transfers, credit cards and PayPal.',
  'I have noted an appointment request for Tuesday; you will get a confirmation by e-mail.',
  'Accounts are locked after several failed sign-in attempts, for your security.',
  'Returns are accepted within thirty days; after that, the warranty applies.',
  '{x} is available in black, white and a limited edition green.',
  'It works with every phone released in the last five years.',
  'When you delete your account, your personal data is erased within thirty days.',
  'Hello! I am here. How can I help you today?',
  'I have sent the manual for {x} to the e-mail address on your account.',
  'You can upgrade from the billing page; the difference is charged pro rata.',
];
const SYLLABLES = ['zen', 'lumo', 'vex', 'aria', 'nova', 'kor', 'pix', 'sol', 'tera', 'quin', 'mira', 'dex', 'flo', 'gra', 'hel', 'jun', 'kai', 'lyr', 'mon', 'nex'];
// 400 topic words (products, services), drawn with a skew: the first ones come up in many sessions, the last in few.
const TOPICS = Array.from({ length: 400 }, (_, i) => `${SYLLABLES[i % 20]}${SYLLABLES[Math.floor(i / 20) % 20]}${i >= 200 ? 'x' : ''}`);
const END_CODES = ['hang-up', 'hang-up', 'hang-up', 'hang-up', 'hang-up', 'hang-up', 'hang-up', 'idle-timeout', 'idle-timeout', 'too-many-messages', 'demo-ended', 'worker-lost', 'session-ended'];

const arrayLiteral = (values) => `array[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(',')}]::text[]`;
// A pseudo-random integer in [0, n) of an integer expression.
const pick = (expr, n) => `(abs(hashint4((${expr})::int)::bigint) % ${n})`;

/** Seeds SESSIONS sessions for `owners` (owners[0] gets half) and returns the seeding time. */
export async function seed(db, owners, since) {
  const t0 = performance.now();
  const topic = (salt) => `t.topics[1 + floor(${TOPICS.length} * power((${pick(`g * 20 + n + ${salt}`, 65536)})::float8 / 65536, 2.2))::int]`;
  for (let start = 0; start < SESSIONS; start += BATCH) {
    const end = start + BATCH - 1;
    // Trusted integers and fixed literals only: the statement is text so PGlite need not infer types.
    await db.execute(
      sql.raw(`
      with t as (select ${arrayLiteral(VISITOR)} as vis, ${arrayLiteral(AVATAR)} as av, ${arrayLiteral(TOPICS)} as topics, ${arrayLiteral(END_CODES)} as codes),
      s as (
        select g,
               case when g % 2 = 0 then ${owners[0]} else (array[${owners.slice(1).join(',')}])[1 + (g / 2) % ${owners.length - 1}] end as owner,
               to_timestamp((${since}::bigint + g::bigint * ${Math.floor((365 * DAY) / SESSIONS)}) / 1000.0) as st
        from generate_series(${start}, ${end}) g
      )
      insert into live_sessions (id, avatar_id, owner_user_id, avatar_name, worker_id, visitor_id, client_ip, client, resume_hash, ticket_jti,
                                 history, started_at, last_heartbeat_at, ended_at, end_code, channel, voice_p50_ms)
      select gen_random_uuid()::text, s.owner * 10 + g % 5, s.owner, 'Avatar ' || (g % 5), 1, 'vis-' || (g % 9000), '203.0.113.' || (g % 250),
             '{"locale":"en-GB"}'::jsonb, 'x', 'x',
             (select jsonb_agg(jsonb_build_object(
                 'role', case when n % 2 = 0 then 'user' else 'assistant' end,
                 'text', case when n % 2 = 0
                   then replace(t.vis[1 + ${pick('g * 20 + n', VISITOR.length)}], '{x}', ${topic(1)})
                        || case when n = 4 and g % 4 = 0 then ' My order number is ' || (1000000 + g) || '.' else '' end
                   else replace(t.av[1 + ${pick('g * 20 + n + 7', AVATAR.length)}], '{x}', ${topic(2)}) end,
                 'at', (extract(epoch from s.st) * 1000)::bigint + n * 9000) order by n)
              from generate_series(0, ${TURNS - 1}) n),
             s.st, s.st + make_interval(secs => 180 + g % 600), s.st + make_interval(secs => 180 + g % 600),
             t.codes[1 + ${pick('g', END_CODES.length)}], 'avatar-page', 500 + g % 900
      from s, t`),
    );
  }
  const seedSeconds = (performance.now() - t0) / 1000;
  await db.execute(sql`analyze live_sessions`);
  return round(seedSeconds, 1);
}

async function timed(app, headers, url, runs = RUNS) {
  const times = [];
  let body;
  for (let i = 0; i < runs + 3; i++) {
    const t0 = performance.now();
    const res = await app.inject({ url, headers });
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    body = res.json();
    if (i >= 3) times.push(ms);
  }
  return { times, body };
}

const stats = (times) => ({ p50ms: round(percentile(times, 50)), p95ms: round(percentile(times, 95)), maxMs: round(Math.max(...times)) });

/** Keyset pages one after another (each page's cursor from the previous answer), timed each. */
async function pages(app, headers, base, n = PAGES) {
  const times = [];
  let cursor = null;
  let rows = 0;
  for (let i = 0; i < n; i++) {
    const url = `${base}${base.includes('?') ? '&' : '?'}limit=25${cursor ? `&cursor=${cursor}` : ''}`;
    const t0 = performance.now();
    const res = await app.inject({ url, headers });
    times.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    const body = res.json();
    rows += body.conversations.length;
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  return { pages: times.length, rows, ...stats(times) };
}


async function webhookFigures(app, database, userId) {
  const hook = await webhookReceiver();
  try {
    const { webhook } = await app.webhooks.add(userId, { url: hook.url, avatarId: null, events: ['session.ended'], enabled: true });
    // Throughput: a backlog of ready bodies drained by one instance's sender (16 at a time).
    await database.db.execute(
      sql.raw(`insert into webhook_deliveries (endpoint_id, event_id, event_type, body, created_at, next_attempt_at)
        select ${webhook.id}, 'evt_bench_' || g, 'ping', '{"version":1,"id":"evt_bench_' || g || '","type":"ping","created":"2026-01-01T00:00:00.000Z","data":{}}', now(), now()
        from generate_series(1, ${BACKLOG}) g`),
    );
    // The app's own loop runs too (this is one instance's sender): timed to the last arrival.
    const t0 = Date.now();
    await app.webhooks.dispatchDue();
    const deadline0 = Date.now() + 120_000;
    while (hook.arrivals.size < BACKLOG && Date.now() < deadline0) await sleep(20);
    const seconds = (Math.max(...hook.arrivals.values()) - t0) / 1000;
    const backlog = { deliveries: BACKLOG, received: hook.arrivals.size, seconds: round(seconds, 2), perSecond: round(hook.arrivals.size / seconds, 0) };
    // Lag: test events queued at a steady rate while the app's loop runs (poll 1 s + a kick per event).
    const queued = new Map();
    for (let i = 0; i < LAG_EVENTS; i++) {
      const d = await app.webhooks.sendTest(userId, webhook.id);
      queued.set(d.eventId, Date.now());
      await sleep(1000 / LAG_RATE_PER_S);
    }
    const deadline = Date.now() + 15_000;
    while ([...queued.keys()].some((id) => !hook.arrivals.has(id)) && Date.now() < deadline) await sleep(20);
    const lags = [...queued].filter(([id]) => hook.arrivals.has(id)).map(([id, at]) => hook.arrivals.get(id) - at);
    return { backlog, lag: { events: LAG_EVENTS, received: lags.length, p50ms: round(percentile(lags, 50)), p95ms: round(percentile(lags, 95)), maxMs: round(Math.max(...lags)) } };
  } finally {
    await hook.close();
  }
}

async function measure(label, openOpts, targetMs) {
  const { openDatabase } = await import(dist('db/client.js'));
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config.js'));
  const { hashPassword } = await import(dist('lib/password.js'));
  const { users } = await import(dist('db/schema/index.js'));

  const database = await openDatabase(openOpts);
  const passwordHash = await hashPassword('bench-password');
  const stamp = Date.now();
  const made = await database.db
    .insert(users)
    .values(Array.from({ length: ACCOUNTS + 1 }, (_, i) => ({ firstName: 'Bench', lastName: `Account ${i}`, email: `bench-conv-${stamp}-${i}@example.com`, passwordHash, status: 'ACTIVE', userType: i === ACCOUNTS ? 'ADMIN' : 'USER' })))
    .returning();
  const owners = made.slice(0, ACCOUNTS).map((u) => u.id);
  const since = Date.now() - 365 * DAY;
  const seedSeconds = await seed(database.db, owners, since);
  const config = loadConfig({ APP_KEY: 'bench-app-key', LOG_LEVEL: 'silent', DATA_DIR: tmpDir('persona-bench-conv-'), WEB_DIST_DIR: '/nonexistent', ALLOW_PRIVATE_URLS: 'true' });
  const app = await buildApp({ config, database, logger: false, webhookTimings: { pollMs: 1000 } });
  await app.ready();
  const login = async (u) => {
    const res = await app.inject({ method: 'POST', url: '/api/login', headers: { authorization: 'Bearer bench-app-key' }, payload: { email: u.email, password: 'bench-password' } });
    return { authorization: `Bearer bench-app-key:${res.json().sessionId}` };
  };
  const big = await login(made[0]);
  const small = await login(made[1]);
  const admin = await login(made[ACCOUNTS]);

  const avatar = owners[0] * 10 + 3;
  const from = new Date(since + 120 * DAY).toISOString();
  const to = new Date(since + 210 * DAY).toISOString();
  const rare = 1_000_000 + 4 * 12_345; // One session's order number.
  const L = '/api/list_conversation';
  const A = '/api/admin/list_conversation';
  const cases = {
    'list: first page': [big, `${L}?limit=25`],
    'list: avatar': [big, `${L}?limit=25&avatarId=${avatar}`],
    'list: 3 months': [big, `${L}?limit=25&from=${from}&to=${to}`],
    'list: errors only': [big, `${L}?limit=25&hasErrors=true`],
    'list: small account': [small, `${L}?limit=25`],
    'list: admin, every account': [admin, `${A}?limit=25`],
    'search: frequent word (refund)': [big, `${L}?limit=25&q=refund`],
    'search: middling word (a topic)': [big, `${L}?limit=25&q=${TOPICS[120]}`],
    'search: rare (an order number)': [big, `${L}?limit=25&q=${rare}`],
    'search: two words': [big, `${L}?limit=25&q=${encodeURIComponent(`warranty ${TOPICS[40]}`)}`],
    'search: nowhere said': [big, `${L}?limit=25&q=xylophone`],
    'search: sentence of 8 words': [big, `${L}?limit=25&q=${encodeURIComponent('how long does the battery last please tell')}`],
    'search + avatar': [big, `${L}?limit=25&q=refund&avatarId=${avatar}`],
    'search + 3 months': [big, `${L}?limit=25&q=${TOPICS[120]}&from=${from}&to=${to}`],
    'search + errors only': [big, `${L}?limit=25&q=warranty&hasErrors=true`],
    'search + outcome idle + rare topic': [big, `${L}?limit=25&q=${TOPICS[390]}&outcome=idle`],
    'search: small account': [small, `${L}?limit=25&q=${TOPICS[120]}`],
    'search: admin, every account': [admin, `${A}?limit=25&q=${TOPICS[120]}`],
    'search: admin, rare': [admin, `${A}?limit=25&q=${rare}`],
  };
  const out = { label, seedSeconds, sessions: SESSIONS, turns: SESSIONS * TURNS, targetP95Ms: targetMs };
  const all = [];
  for (const [name, [headers, url]] of Object.entries(cases)) {
    const { times, body } = await timed(app, headers, url);
    all.push(...times);
    out[name] = { rows: body.conversations.length, more: body.nextCursor !== null, ...stats(times) };
  }
  out[`list: ${PAGES} keyset pages`] = await pages(app, big, L);
  out[`search: ${PAGES} keyset pages (frequent word)`] = await pages(app, big, `${L}?q=refund`);
  out[`search: ${PAGES} keyset pages (middling word + avatar)`] = await pages(app, big, `${L}?q=${TOPICS[60]}&avatarId=${avatar}`);
  out[`search: admin ${PAGES} keyset pages`] = await pages(app, admin, `${A}?q=warranty`);
  const worst = Object.entries(out).filter(([, v]) => v && typeof v === 'object' && 'p95ms' in v).sort((a, b) => b[1].p95ms - a[1].p95ms)[0];
  out.worstP95 = { case: worst[0], p95ms: worst[1].p95ms, withinTarget: worst[1].p95ms <= targetMs };
  const size = await database.db.execute(sql`select pg_size_pretty(pg_relation_size('live_sessions_search_idx')) as index, pg_size_pretty(pg_total_relation_size('live_sessions')) as "table"`);
  out.sizes = (size.rows ?? size)[0];
  out.webhooks = await webhookFigures(app, database, owners[0]);
  await app.close();
  await database.close();
  return out;
}

/** One database only (`postgres` or `pglite`). */
export async function runOne(which) {
  if (which === 'postgres') return withScratchPostgres('conversations', (databaseUrl) => measure('PostgreSQL', { databaseUrl }, 100));
  return measure('PGlite', { pgliteDir: path.join(tmpDir('persona-bench-conv-'), 'pglite') }, 250);
}

export async function run() {
  const out = { sessions: SESSIONS, turnsPerSession: TURNS, accounts: ACCOUNTS, runsPerCase: RUNS, keysetPages: PAGES };
  out.postgres = await withScratchPostgres('conversations', (databaseUrl) => measure('PostgreSQL', { databaseUrl }, 100));
  out.pglite = await measure('PGlite', { pgliteDir: path.join(tmpDir('persona-bench-conv-'), 'pglite') }, 250);
  return out;
}
