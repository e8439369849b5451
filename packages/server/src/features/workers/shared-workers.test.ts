import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type WorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { testDriver } from '../../test/db.js';
import { until } from '../../test/live.js';

// Two instances with one REDIS_URL (a Redis database of this test's own per driver: the two
// projects run at the same time): a worker holding the operator's realtime key registered with
// one instance makes the product's realtime available in the editor served by the other.
const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
redisUrl.pathname = testDriver === 'postgres' ? '/12' : '/11';

describe("the product's realtime across instances", () => {
  let a: TestContext;
  let b: TestContext;
  let base: string;
  const workers: WorkerHandle[] = [];
  beforeAll(async () => {
    a = await createTestApp({ REDIS_URL: redisUrl.toString() });
    b = await createTestApp({ REDIS_URL: redisUrl.toString() });
    base = await a.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await a.close();
    await b.close();
  });

  it('is shown by every instance while a worker holding the key is connected to any of them', async () => {
    const user = await createSignedInUser(b.app, b.database);
    const platform = async () => (await b.app.inject({ url: '/api/lookups/platform', headers: user.headers })).json() as { realtime: boolean };
    expect((await platform()).realtime).toBe(false);
    const keyed = startWorker({ serverUrl: base, secret: 'test-worker-secret-0123456789', name: 'keyed-shared', productRealtime: true, pingIntervalMs: 100, log: { info() {}, warn() {}, error() {} } });
    workers.push(keyed);
    await keyed.registered;
    await until(async () => (await platform()).realtime, 3000, 'realtime on instance B');
    await keyed.stop();
    await until(async () => !(await platform()).realtime, 3000, 'realtime gone on instance B');
  });
});
