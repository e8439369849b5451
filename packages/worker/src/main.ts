#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startWorker } from './agent.js';
import { loadWorkerConfig } from './config.js';

const USAGE = `Persona Studio worker (avatar server)

  npm run worker -- --server <url> [--name NAME] [--ws-url URL]

  --server   the portal server, e.g. http://portal.example.com:3000   (or WORKER_SERVER_URL)
  --name     the name shown on VPS Status (default: worker-<hostname>) (or WORKER_NAME)
  --ws-url   the websocket URL avatar clients use to reach this worker (or WORKER_WS_URL)

The shared secret comes from WORKER_SECRET (the server's value: set it on both, or copy the
one the server generated into DATA_DIR/worker-secret).`;

const { values } = parseArgs({
  options: {
    server: { type: 'string' },
    name: { type: 'string' },
    'ws-url': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
let config;
try {
  config = loadWorkerConfig(process.env, { server: values.server, name: values.name, wsUrl: values['ws-url'] });
} catch (err) {
  console.error(`${err instanceof Error ? err.message : err}\n\n${USAGE}`);
  process.exit(1);
}
const worker = startWorker({ serverUrl: config.serverUrl, secret: config.secret, name: config.name, webSocketUrl: config.wsUrl });
worker.onDeleted = () => process.exit(0);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void worker.stop().then(() => process.exit(0));
  });
}
