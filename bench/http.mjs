// GET /api/health and an authenticated call, each as a ratio of a bare node:http server's
// requests/s measured in the same run (autocannon, loopback only, bounded duration).
import http from 'node:http';
import autocannon from 'autocannon';
import { freePort, round, startServer, tmpDir, withScratchPostgres } from './support.mjs';

const DURATION = 8;
const CONNECTIONS = 20;

function cannon(url, headers = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

export async function run() {
  // Baseline: the smallest possible JSON answer from node:http.
  const bare = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"OK"}');
  });
  await new Promise((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${bare.address().port}/`;

  // The portal on the embedded database, then on PostgreSQL (the production path).
  async function measurePortal(extraEnv) {
    const port = freePort();
    const server = startServer({ DATA_DIR: tmpDir('persona-bench-http-'), PORT: String(port), ADMIN_PASSWORD: 'bench-password-1', EMBEDDED_WORKER: 'false', ...extraEnv });
    await server.ready;
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer persona-studio-web' },
      body: JSON.stringify({ email: 'admin@persona.local', password: 'bench-password-1' }),
    }).then((r) => r.json());
    const auth = { authorization: `Bearer persona-studio-web:${login.sessionId}` };
    await cannon(`${base}/api/health`); // warm-up (JIT, pool)
    const health = await cannon(`${base}/api/health`);
    const authed = await cannon(`${base}/api/account_info`, auth);
    await server.stop();
    return { health, authed };
  }

  await cannon(bareUrl); // warm-up
  const bareRes = await cannon(bareUrl);
  const pglite = await measurePortal({});
  const postgres = await withScratchPostgres('http', (databaseUrl) => measurePortal({ DATABASE_URL: databaseUrl }));
  bare.close();

  const summary = (r) => ({ rps: round(r.requests.average, 0), p50ms: r.latency.p50, p99ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
  const ratio = (r) => Math.round((r.requests.average / bareRes.requests.average) * 100) / 100;
  return {
    settings: { durationSeconds: DURATION, connections: CONNECTIONS },
    bareNodeHttp: summary(bareRes),
    pglite: {
      health: { ...summary(pglite.health), ratioToBare: ratio(pglite.health) },
      authenticatedAccountInfo: { ...summary(pglite.authed), ratioToBare: ratio(pglite.authed) },
    },
    postgres: postgres.error
      ? postgres
      : {
          health: { ...summary(postgres.health), ratioToBare: ratio(postgres.health) },
          authenticatedAccountInfo: { ...summary(postgres.authed), ratioToBare: ratio(postgres.authed) },
        },
    target: 'health ≥ 0.8 of bare node:http',
  };
}
