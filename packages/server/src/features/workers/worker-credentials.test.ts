import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LivePaths, WorkerProtocol, WorkerRefusals, type TLiveStartAnswer } from '@persona/contract';
import { startWorker, type WorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { RawWorker, TEST_WORKER_SECRET, ticketClaims, until } from '../../test/live.js';
import { eq } from 'drizzle-orm';
import { avatars, workerCredentials } from '../../db/schema/index.js';

// Issue 26, item 3: each worker has its own credential (issued by an administrator, stored hashed,
// revocable, bound to its vpsId); the shared WORKER_SECRET only enrols, and only where
// WORKER_ENROLMENT allows it (default: this machine); a live vpsId is never displaced.
let t: TestContext;
let closed: TestContext;
let base: string;
let closedBase: string;
let admin: Awaited<ReturnType<typeof createSignedInUser>>;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
const raws: RawWorker[] = [];
const agents: WorkerHandle[] = [];
let nextIp = 1;
const quiet = { info() {}, warn() {}, error() {} };

beforeAll(async () => {
  t = await createTestApp();
  // Every address of the machine: a worker may also come from its network address (not loopback).
  base = await t.app.listen({ port: 0, host: '0.0.0.0' });
  base = base.replace('0.0.0.0', '127.0.0.1');
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
  owner = await createSignedInUser(t.app, t.database);
  // A production portal: the shared secret enrols nobody.
  closed = await createTestApp({ WORKER_ENROLMENT: 'off' });
  closedBase = await closed.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const r of raws) r.close();
  await Promise.all(agents.map((a) => a.stop()));
  await t?.close();
  await closed?.close();
});

const raw = (where: string, token: string) => {
  const r = new RawWorker(where, token);
  raws.push(r);
  return r;
};
const issue = async (vpsId: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/admin/worker_credentials', headers: admin.headers, payload: { vpsId } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { credential: string; workerCredential: { id: number; vpsId: string } };
};
const revoke = (id: number) => t.app.inject({ method: 'POST', url: '/api/admin/worker_credentials/revoke', headers: admin.headers, payload: { id } });

/** Admits a session of a fresh echo avatar with a key stored on it; null when no worker could take it. */
async function admit(app: TestContext): Promise<TLiveStartAnswer | null> {
  const user = app === t ? owner : await createSignedInUser(app.app, app.database);
  const [a] = await app.database.db
    .insert(avatars)
    .values({ userId: user.id, name: 'A', nlpEngine: 10, setupMode: 1, config: { idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, customData: { agent_pipeline_config: { llm: { base_url: 'https://api.openai.com/v1', api_key: 'sk-stolen-0123456789', model: 'm' } } } } })
    .returning();
  const ip = `203.0.113.${nextIp++}`;
  const res = await app.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: a!.id }, headers: { 'x-forwarded-for': ip }, remoteAddress: ip });
  return res.statusCode === 200 ? (res.json() as TLiveStartAnswer) : null;
}

describe('worker credentials', () => {
  it('a stolen shared secret takes no session and no key: refused where enrolment is off, and from another machine', async () => {
    const stolen = raw(closedBase, TEST_WORKER_SECRET);
    expect(await stolen.register('thief')).toMatchObject({ registered: null });
    expect(stolen.unexpectedStatus).toBe(401);
    // The owner's avatar finds no worker: nothing reaches the thief.
    expect(await admit(closed)).toBeNull();
    expect(stolen.raw.join('')).not.toContain('sk-stolen');

    // WORKER_ENROLMENT=loopback (the default): through a reverse proxy on this machine (forwarded) it is refused…
    const proxied = new RawWorker(base, TEST_WORKER_SECRET, { 'x-forwarded-for': '198.51.100.7' });
    raws.push(proxied);
    expect(await proxied.register('thief-3')).toMatchObject({ registered: null });
    expect(proxied.unexpectedStatus).toBe(401);
    // …and so it is from the machine's network address.
    const lan = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (lan) {
      const port = new URL(base).port;
      const remote = raw(`http://${lan}:${port}`, TEST_WORKER_SECRET);
      expect(await remote.register('thief-2')).toMatchObject({ registered: null });
      expect(remote.unexpectedStatus).toBe(401);
      // Its own credential is accepted from there.
      const own = raw(`http://${lan}:${port}`, (await issue('lan-worker')).credential);
      expect((await own.register('lan-worker')).registered).not.toBeNull();
      own.close();
    }
  });

  it('the shared secret on this machine only enrols: it gets a credential for its vpsId, never a session', async () => {
    const enrolling = raw(base, TEST_WORKER_SECRET);
    const answer = await enrolling.register('enrolled-1');
    expect(answer.registered).toBeNull();
    const [enrolled] = enrolling.of('enrolled');
    expect(enrolled).toMatchObject({ vpsId: 'enrolled-1', credential: expect.stringMatching(/^pswk_/) });
    await until(() => enrolling.closeCode !== null, 4000, 'the enrolment socket closed');
    expect(enrolling.closeCode).toBe(WorkerProtocol.closeEnrolled);
    // Stored as a hash: the list shows the row, never the credential.
    const list = (await t.app.inject({ url: '/api/admin/worker_credentials', headers: admin.headers })).json();
    expect(list.workerCredentials).toContainEqual(expect.objectContaining({ vpsId: 'enrolled-1', issuedBy: 'enrolment', revoked: null }));
    expect(JSON.stringify(list)).not.toContain(String(enrolled!.credential));
    // The credential it was given works, for that vpsId.
    const worker = raw(base, String(enrolled!.credential));
    expect((await worker.register('enrolled-1')).registered).not.toBeNull();
    worker.close();

    // A real worker with only the secret enrols and registers on its own (npm run worker, the embedded worker).
    const agent = startWorker({ serverUrl: base, secret: TEST_WORKER_SECRET, name: 'agent-enrols', pingIntervalMs: 100, minBackoffMs: 50, log: quiet });
    agents.push(agent);
    await agent.registered;
    expect(agent.ticketKeys()).not.toBeNull();
  });

  it('a credential is bound to its vpsId', async () => {
    const { credential } = await issue('bound-a');
    const other = raw(base, credential);
    expect(await other.register('bound-b')).toMatchObject({ registered: null, error: WorkerRefusals.otherVpsId });
    await until(() => other.closeCode !== null, 4000, 'closed');
    expect(other.closeCode).toBe(WorkerProtocol.closeUnauthorized);
  });

  it('a revoked credential is refused, and the worker using it is disconnected (here at once; elsewhere at its next ping)', async () => {
    const { credential, workerCredential } = await issue('revoked-1');
    const worker = raw(base, credential);
    expect((await worker.register('revoked-1')).registered).not.toBeNull();
    expect((await revoke(workerCredential.id)).statusCode).toBe(200);
    await until(() => worker.closeCode !== null, 4000, 'the revoked worker disconnected');
    expect(worker.closeCode).toBe(WorkerProtocol.closeUnauthorized);
    const again = raw(base, credential);
    expect(await again.register('revoked-1')).toMatchObject({ registered: null });
    expect(again.unexpectedStatus).toBe(401);
    expect((await revoke(999_999)).statusCode).toBe(404);

    // Revoked in the database only (the operator CLI, another portal instance): refused at the next ping.
    const second = await issue('revoked-2');
    const pinging = raw(base, second.credential);
    expect((await pinging.register('revoked-2')).registered).not.toBeNull();
    await t.database.db.update(workerCredentials).set({ revokedAt: new Date() }).where(eq(workerCredentials.id, second.workerCredential.id));
    pinging.socket.send(JSON.stringify({ type: 'ping', status: 'AVAILABLE' }));
    await until(() => pinging.closeCode !== null, 4000, 'disconnected at its ping');
    expect(pinging.closeCode).toBe(WorkerProtocol.closeUnauthorized);
  });

  it('a second registration of a live vpsId is refused; the live worker keeps its sessions', async () => {
    const first = raw(base, (await issue('dup')).credential);
    expect((await first.register('dup')).registered).not.toBeNull();
    const second = raw(base, (await issue('dup')).credential);
    expect(await second.register('dup')).toMatchObject({ registered: null, error: WorkerRefusals.duplicate });
    await until(() => second.closeCode !== null, 4000, 'closed');
    expect(second.closeCode).toBe(WorkerProtocol.closeDuplicate);
    // Not displaced: the first is still the worker, and still claims what the portal gives it.
    expect(first.closeCode).toBeNull();
    for (const a of agents) await a.stop();
    const session = await admit(t);
    expect(session).not.toBeNull();
    const claimed = await first.rpc('session.claim', { sessionId: session!.sessionId, jti: ticketClaims(session!.ticket!).jti });
    expect(claimed?.ok, claimed?.text).toBe(true);
    // Once it is gone, the vpsId registers again.
    first.close();
    await until(async () => (await t.app.inject({ url: '/api/list_vps', headers: admin.headers })).json().vpsList.find((v: { vpsId: string }) => v.vpsId === 'dup')?.status === 'DISCONNECTED', 4000, 'dup disconnected');
    const third = raw(base, (await issue('dup')).credential);
    expect((await third.register('dup')).registered).not.toBeNull();
  });
});
