import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { buildApp } from './app.js';
import { ensureFirstAdmin } from './bootstrap.js';

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
  const database: Database = await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pglite'),
  });
  const app = await buildApp({ config, database });
  const admin = await ensureFirstAdmin(database, config, app.log);
  await fs.writeFile(path.join(config.dataDir, 'server.pid'), String(process.pid));

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
      await app.close();
      await database.close();
      await fs.rm(path.join(config.dataDir, 'server.pid'), { force: true });
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const ms = Math.round(performance.now() - t0);
  const lines = [
    '',
    `  Persona Studio is ready in ${ms} ms: ${config.publicUrl}/react`,
    `  Database: ${database.driver === 'pglite' ? `PGlite in ${path.join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`,
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
