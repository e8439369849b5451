import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../config.js';
import type { Database } from '../db/client.js';
import { buildApp, type AppDeps } from '../app.js';
import type { MailMessage, Mailer } from '../plugins/mail.js';
import { openTestDatabase } from './db.js';

export const TEST_APP_KEY = 'test-app-key';

/** A mailer that keeps what it sends, so tests read links the way a user reads their inbox. */
export function createCaptureMailer(): Mailer & { sent: MailMessage[]; failNext: boolean } {
  const sent: MailMessage[] = [];
  return {
    kind: 'smtp',
    sent,
    failNext: false,
    async send(message) {
      if (this.failNext) {
        this.failNext = false;
        throw new Error('SMTP unavailable');
      }
      sent.push(message);
    },
    async close() {},
  };
}

export interface TestContext {
  app: FastifyInstance;
  database: Database;
  config: Config;
  mail: ReturnType<typeof createCaptureMailer>;
  close(): Promise<void>;
}

export async function createTestApp(
  env: Record<string, string> = {},
  opts: Pick<AppDeps, 'now' | 'presence' | 'workerTimings' | 'liveTimings' | 'agentDispatch' | 'logger' | 'webhookTimings' | 'privacyTimings'> & {
    /** Another instance's database: two app instances sharing one database (closed by its owner). */
    database?: Database;
  } = {},
): Promise<TestContext> {
  const config = loadConfig({
    NODE_ENV: 'test',
    APP_KEY: TEST_APP_KEY,
    PUBLIC_URL: 'http://portal.test',
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'persona-test-')),
    WEB_DIST_DIR: '/nonexistent-web-dist',
    LOG_LEVEL: 'silent',
    WORKER_SECRET: 'test-worker-secret-0123456789',
    SECRET_KEY: '7'.repeat(64),
    ...env,
  });
  const { database: shared, ...appOpts } = opts;
  const database = shared ?? (await openTestDatabase());
  const mail = createCaptureMailer();
  // The webhooks' queue is sent and the retention swept only when a test asks (app.webhooks.dispatchDue,
  // app.privacy.sweep), unless it sets a poll.
  const app = await buildApp({ config, database, mailer: mail, logger: false, webhookTimings: { pollMs: 0 }, privacyTimings: { retentionSweepMs: 0 }, ...appOpts });
  await app.ready();
  return {
    app,
    database,
    config,
    mail,
    async close() {
      await app.close();
      if (!shared) await database.close();
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits for fire-and-forget work (mail sent after answering) to settle. */
export async function flush(): Promise<void> {
  await new Promise((r) => setTimeout(r, 20));
}
