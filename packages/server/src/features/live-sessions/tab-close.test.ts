import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LiveCode, LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { PageClient, startEmbeddedWorker, startSeparateWorker, until } from '../../test/live.js';
import { avatars, liveSessions } from '../../db/schema/index.js';

// Issue 26, item 14 (last line): the portal warned "closed live sessions whose worker stopped
// reporting" whenever a visitor closed the tab. The page's socket closed without `bye`, the worker
// kept the session for a resume and stopped its heartbeats, and the sweep took the silent session
// for a lost worker. Now the worker ends a session whose page closed the socket itself, and the
// sweep keeps the warning for sessions whose worker really went silent.
let t: TestContext;
let base: string;
let embedded: LiveWorkerHandle;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
const lines: { level: number; msg: string }[] = [];
const pages: PageClient[] = [];
let nextIp = 1;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as { level: number; msg: string };
        lines.push({ level: entry.level, msg: entry.msg });
      }
      done();
    },
  });
  t = await createTestApp({}, { liveTimings: { staleSessionSeconds: 1, sweepIntervalMs: 100 }, logger: { level: 'info', stream } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await createSignedInUser(t.app, t.database);
  embedded = await startEmbeddedWorker(t, base);
});
afterAll(async () => {
  for (const p of pages) p.close();
  await embedded?.stop();
  await t?.close();
});

const WARNING = 'closed live sessions whose worker stopped reporting';
const warnings = () => lines.filter((l) => l.level >= 40 && l.msg === WARNING);

async function session(): Promise<{ answer: TLiveStartAnswer; page: PageClient }> {
  const [a] = await t.database.db
    .insert(avatars)
    .values({ userId: owner.id, name: 'Ava', nlpEngine: 0, config: { wakeUpMessage: 'Hello!', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } } })
    .returning();
  const ip = `198.51.100.${nextIp++}`;
  const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: a!.id }, headers: { 'x-forwarded-for': ip }, remoteAddress: ip });
  const answer = res.json() as TLiveStartAnswer;
  const page = new PageClient(answer);
  pages.push(page);
  await page.waitFor('ready');
  return { answer, page };
}

const rowOf = async (id: string) => (await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, id)))[0]!;
/** Two sweeps after the session went stale: what the sweep would do with it has been done. */
const pastTheSweep = () => new Promise((r) => setTimeout(r, 1000 + 2 * 100 + 300));

describe('a visitor closing the tab', () => {
  it('ends the session at once as a hang-up, and the log has no warning about workers', async () => {
    const { answer, page } = await session();
    // What a browser sends when the tab closes or goes to another page.
    page.socket.close(1001);
    await until(async () => (await rowOf(answer.sessionId!)).endedAt !== null, 4000, 'the session ended');
    expect((await rowOf(answer.sessionId!)).endCode).toBe(LiveCode.hangUp);
    await pastTheSweep();
    expect(warnings()).toEqual([]);
  });

  it('a page whose connection dropped and never came back is closed by the sweep as left, not as a lost worker', async () => {
    const { answer, page } = await session();
    page.close(); // no close frame: the worker keeps the session for a resume
    await until(async () => (await rowOf(answer.sessionId!)).endedAt !== null, 6000, 'the sweep closing the session');
    expect((await rowOf(answer.sessionId!)).endCode).toBe(LiveCode.hangUp);
    expect(warnings()).toEqual([]);
    expect(lines.some((l) => l.level === 30 && l.msg === 'closed live sessions whose page left without coming back')).toBe(true);
  });

  it('a worker that stops reporting is still the warning (last: it stops the embedded worker)', async () => {
    await embedded.stop();
    const w = await startSeparateWorker(base, 'gamma');
    const before = warnings().length;
    const { answer } = await session();
    await w.stop();
    await until(async () => (await rowOf(answer.sessionId!)).endedAt !== null, 8000, 'the sweep closing the session');
    expect((await rowOf(answer.sessionId!)).endCode).toBe(LiveCode.workerLost);
    expect(warnings().length).toBeGreaterThan(before);
  });
});
