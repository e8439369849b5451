// The Redis revocation bus's subscription (ADR 078): reliable only once subscribed, and
// subscribed whenever it can be — at start, on each connection, and again while a SUBSCRIBE is
// refused on a live connection (here: a Redis user not yet allowed the channel).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../test/live.js';
import { REDIS_OPTIONS } from './redis.js';
import { createRedisRevocationBus, REVOCATION_CHANNEL, sendRevocation } from './revocations.js';

const redisUrl = process.env.TEST_REDIS_URL;
const quiet = { warn() {}, info() {}, error() {} } as unknown as Parameters<typeof createRedisRevocationBus>[1];

describe.skipIf(!redisUrl)('the Redis revocation bus', () => {
  const admin = redisUrl ? new Redis(redisUrl) : undefined;
  const user = `test-revocations-${randomUUID()}`;
  afterAll(async () => {
    await admin?.call('ACL', 'DELUSER', user);
    admin?.disconnect();
  });

  it('a SUBSCRIBE refused on a live connection is tried again: reliable once it is allowed, and it hears revocations', { timeout: 30_000 }, async () => {
    // A user that may do everything but subscribe to the revocation channel, for now.
    await admin!.call('ACL', 'SETUSER', user, 'on', '>pw', '~*', '+@all', '&other-channel');
    const url = new URL(redisUrl!);
    url.username = user;
    url.password = 'pw';
    const redis = new Redis(url.toString(), REDIS_OPTIONS);
    await redis.connect();
    const bus = await createRedisRevocationBus(redis, quiet);
    try {
      expect(bus.isReliable()).toBe(false);
      const heard: unknown[] = [];
      bus.subscribe((r) => heard.push(r));
      await admin!.call('ACL', 'SETUSER', user, 'resetchannels', `&${REVOCATION_CHANNEL}`);
      await until(() => bus.isReliable(), 8000, 'subscribed once allowed');
      await sendRevocation(admin!, { kind: 'user', userId: 424242 });
      await until(() => heard.some((r) => JSON.stringify(r) === JSON.stringify({ kind: 'user', userId: 424242 })), 3000, 'the revocation heard');
    } finally {
      await bus.close();
      redis.disconnect();
    }
  });
});
