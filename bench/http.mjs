// GET /api/health and an authenticated call, each as a ratio of a bare node:http server's
// requests/s measured in the same run (autocannon, loopback only, bounded duration).
import http from 'node:http';
import autocannon from 'autocannon';
import { freePort, round, startServer, tmpDir } from './support.mjs';

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

  const port = freePort();
  const server = startServer({ DATA_DIR: tmpDir('persona-bench-http-'), PORT: String(port), ADMIN_PASSWORD: 'bench-password-1', EMBEDDED_WORKER: 'false' });
  await server.ready;
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer persona-studio-web' },
    body: JSON.stringify({ email: 'admin@persona.local', password: 'bench-password-1' }),
  }).then((r) => r.json());
  const auth = { authorization: `Bearer persona-studio-web:${login.sessionId}` };

  await cannon(bareUrl); // warm-up
  const bareRes = await cannon(bareUrl);
  await cannon(`${base}/api/health`); // warm-up (JIT, pool)
  const health = await cannon(`${base}/api/health`);
  const authed = await cannon(`${base}/api/account_info`, auth);
  await server.stop();
  bare.close();

  const summary = (r) => ({ rps: round(r.requests.average, 0), p50ms: r.latency.p50, p99ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
  return {
    settings: { durationSeconds: DURATION, connections: CONNECTIONS, database: 'PGlite' },
    bareNodeHttp: summary(bareRes),
    health: { ...summary(health), ratioToBare: round(health.requests.average / bareRes.requests.average) },
    authenticatedAccountInfo: { ...summary(authed), ratioToBare: round(authed.requests.average / bareRes.requests.average) },
    target: 'health ≥ 0.8 of bare node:http',
  };
}
