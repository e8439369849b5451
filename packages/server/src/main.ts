import fs from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { buildApp } from './app.js';
import { ensureFirstAdmin } from './bootstrap.js';
import { loadOrCreateKeyFile } from './lib/key-file.js';
import { operatorSttOf, operatorTtsOf, startLiveWorker, type LiveWorkerHandle } from '@persona/worker';

/** How long requests in flight may take to finish once a shutdown began (the whole shutdown may take 10 s). */
const SHUTDOWN_GRACE_MS = 5_000;

async function main() {
  const t0 = performance.now();
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  await fs.mkdir(config.dataDir, { recursive: true });
  config.workerSecret ??= await loadOrCreateKeyFile(config.dataDir, 'worker-secret');
  config.secretKey ??= await loadOrCreateKeyFile(config.dataDir, 'secret-key');
  const database: Database = await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pglite'),
  });
  const app = await buildApp({ config, database });
  const admin = await ensureFirstAdmin(database, config, app.log);
  await fs.writeFile(path.join(config.dataDir, 'server.pid'), String(process.pid));

  // Every socket of the portal's port, so that shutdown can end the ones its owners did not: a
  // WebSocket still in its handshake when the hub and the socket plugin closed theirs, or one whose
  // peer never answers the close frame (ws waits 30 s for it) kept server.close() from finishing.
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let embedded: LiveWorkerHandle | undefined;
  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      await embedded?.stop();
      // Requests in flight get SHUTDOWN_GRACE_MS to finish; then what is still open is cut.
      const cut = setTimeout(() => {
        app.log.warn({ connections: sockets.size }, `shutdown: connections still open after ${SHUTDOWN_GRACE_MS} ms are closed`);
        for (const socket of sockets) socket.destroy();
      }, SHUTDOWN_GRACE_MS);
      cut.unref();
      await app.close();
      clearTimeout(cut);
      await database.close();
      await fs.rm(path.join(config.dataDir, 'server.pid'), { force: true });
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  if (config.embeddedWorker) {
    const local = new URL(address);
    if (local.hostname === '0.0.0.0' || local.hostname === '[::]') local.hostname = '127.0.0.1';
    embedded = await startLiveWorker({
      serverUrl: local.origin,
      // Its own credential, given in this process (ADR 086): it never needs the shared secret.
      credential: await app.workerHub.enrol('embedded'),
      name: 'embedded',
      vpsId: 'embedded',
      webSocketUrl: `${config.publicUrl.replace(/^http/, 'ws')}/avatar-ws`,
      realtime: { operator: config.realtimeOperator, elevenLabs: config.realtimeElevenLabs },
      tts: { operator: operatorTtsOf(config.platformTts) },
      stt: { operator: operatorSttOf(config.platformStt) },
      log: {
        info: (msg, data) => app.log.info(data ?? {}, `embedded worker: ${msg}`),
        warn: (msg, data) => app.log.warn(data ?? {}, `embedded worker: ${msg}`),
        error: (msg, data) => app.log.error(data ?? {}, `embedded worker: ${msg}`),
      },
    });
    // The pages' sockets of /avatar-ws on the portal's own port go to the embedded worker.
    const runtime = embedded.runtime;
    // Its metrics are served by the portal's /metrics (METRICS_TOKEN), beside the portal's own.
    app.metrics.include(runtime.metrics.registry);
    app.liveSockets.accept = (socket) => runtime.accept(socket);
  }
  const ms = Math.round(performance.now() - t0);
  const lines = [
    '',
    `  Persona Studio is ready in ${ms} ms: ${config.publicUrl}/react`,
    `  Database: ${database.driver === 'pglite' ? `PGlite in ${path.join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`,
    `  Avatar servers: ${config.embeddedWorker ? 'one embedded worker; more with `npm run worker -- --server ' + config.publicUrl + '` and WORKER_SECRET from ' + path.join(config.dataDir, 'worker-secret') : 'none embedded (EMBEDDED_WORKER=false)'}`,
    `  Mail: ${app.mailer.kind === 'smtp' ? 'SMTP (SMTP_URL)' : 'outbox (links are printed in this log)'}`,
    admin.generatedPassword
      ? `  Sign in as ${admin.email} with password ${admin.generatedPassword}  (shown once; change it with: npm run admin -- reset-password ${admin.email})`
      : `  Sign in as ${admin.email} with ${config.adminPassword ? 'ADMIN_PASSWORD' : 'the password printed on first start'} (forgot it? npm run admin -- reset-password ${admin.email})`,
    '',
  ];
  console.log(lines.join('\n'));
}

main().catch((err: unknown) => {
  console.error('Failed to start:', err);
  process.exit(1);
});
