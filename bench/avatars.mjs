// list_avatar for an account with 200 avatars, and an add_avatar_v2 update without files:
// p95 through the real routes (app.inject), on PGlite and on PostgreSQL
// (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; a scratch database is
// created there and dropped).
import path from 'node:path';
import { percentile, root, round, tmpDir, withScratchPostgres } from './support.mjs';

const dist = (p) => path.join(root, 'packages/server/dist', p);
const AVATARS = 200;
const RUNS = 200;

function payload(i, over = {}) {
  return {
    name: `Avatar ${i}`,
    nlpEngine: 10,
    dhType: 2,
    setupMode: 1,
    wakeUpMessage: 'Hello! How can I help?',
    dailyLimitPerSession: 600,
    dailyLimitPerIP: 600,
    dailyLimits: { Demo: 600 },
    idleTimeout: 300,
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Subtitle: { Enabled: true } }),
    customData: {
      agent_pipeline_config: {
        llm: { provider: 'groq', base_url: 'https://api.groq.com/openai/v1', model: 'llama-3.3-70b-versatile', api_key: `gsk_bench_key_${i}_abcdefgh`, instructions: 'Be brief.' },
        stt: { provider: 3, api_key: `dg_${i}_secret_key_value`, languages: 'multi' },
        tts: { provider: 2, api_key: `el_${i}_secret_key_value`, voice_id: 'rachel' },
      },
    },
    ...over,
  };
}

function multipartBody(json) {
  const boundary = '----personabench';
  return {
    payload: `--${boundary}\r\ncontent-disposition: form-data; name="json"\r\n\r\n${JSON.stringify(json)}\r\n--${boundary}--\r\n`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
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
    .values({ firstName: 'Bench', lastName: 'Mark', email: `bench-${Date.now()}@example.com`, passwordHash: await hashPassword('bench-password'), status: 'ACTIVE', subscriptionType: 4 })
    .returning();
  const config = loadConfig({ APP_KEY: 'bench-app-key', LOG_LEVEL: 'silent', DATA_DIR: tmpDir('persona-bench-avatars-'), WEB_DIST_DIR: '/nonexistent', SECRET_KEY: 'a'.repeat(64) });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const login = await app.inject({ method: 'POST', url: '/api/login', headers: { authorization: 'Bearer bench-app-key' }, payload: { email: user.email, password: 'bench-password' } });
  const headers = { authorization: `Bearer bench-app-key:${login.json().sessionId}` };

  const t0 = performance.now();
  let last;
  for (let i = 0; i < AVATARS; i++) {
    const res = await app.inject({ method: 'POST', url: '/api/add_avatar', headers, payload: payload(i) });
    if (res.statusCode !== 200) throw new Error(res.body);
    last = res.json().agent;
  }
  const seedSeconds = round((performance.now() - t0) / 1000, 1);

  const listTimes = [];
  for (let i = 0; i < RUNS + 10; i++) {
    const s = performance.now();
    const res = await app.inject({ url: '/api/list_avatar', headers });
    const ms = performance.now() - s;
    if (res.statusCode !== 200 || res.json().agents.length !== AVATARS) throw new Error('list failed');
    if (i >= 10) listTimes.push(ms);
  }

  const updateTimes = [];
  let agent = last;
  for (let i = 0; i < RUNS + 10; i++) {
    const body = multipartBody(payload(agent.id, { id: agent.id, version: agent.version, name: `Renamed ${i}`, customData: agent.customData }));
    const s = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/add_avatar_v2', headers: { ...headers, ...body.headers }, payload: body.payload });
    const ms = performance.now() - s;
    if (res.statusCode !== 200) throw new Error(res.body);
    agent = res.json().agent;
    if (i >= 10) updateTimes.push(ms);
  }
  await app.close();
  await database.close();
  return {
    label,
    seedSeconds,
    listAvatar200: { p50ms: round(percentile(listTimes, 50)), p95ms: round(percentile(listTimes, 95)) },
    addAvatarV2Update: { p50ms: round(percentile(updateTimes, 50)), p95ms: round(percentile(updateTimes, 95)) },
  };
}

export async function run() {
  const out = { avatars: AVATARS, runs: RUNS, target: 'PostgreSQL p95: list_avatar ≤ 30 ms, add_avatar_v2 update ≤ 50 ms' };
  out.pglite = await measure('PGlite', { pgliteDir: path.join(tmpDir('persona-bench-av-'), 'pglite') });
  out.postgres = await withScratchPostgres('avatars', (databaseUrl) => measure('PostgreSQL', { databaseUrl }));
  return out;
}
