import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailReason, SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { createSignedInUser, multipart, sampleFiles, validAvatar } from '../test/factories.js';
import { startFakeS3, type FakeS3 } from '../test/fake-s3.js';

/**
 * Issue 16: with STORAGE_URL naming a bucket, every file goes there, and every portal instance
 * serves every file. Two app instances share only the bucket (the fake checks each request's
 * signature) and the database; each has its own DATA_DIR, as on two machines.
 */
let s3: FakeS3;
let a: TestContext;
let b: TestContext;
beforeAll(async () => {
  s3 = await startFakeS3({ accessKey: 'AKIAINSTANCES', secretKey: 'shared/bucket+secret', region: 'eu-west-3', bucket: 'persona-media' });
  a = await createTestApp({ STORAGE_URL: s3.storageUrl, EMBEDDINGS: 'off' });
  b = await createTestApp({ STORAGE_URL: s3.storageUrl, EMBEDDINGS: 'off' }, { database: a.database });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await s3?.close();
});

type User = Awaited<ReturnType<typeof createSignedInUser>>;
const addV2 = (app: TestContext, user: User, json: object, files: Parameters<typeof multipart>[1] = []) => {
  const body = multipart({ json: JSON.stringify(json) }, files);
  return app.app.inject({ method: 'POST', url: '/api/add_avatar_v2', headers: { ...user.headers, ...body.headers }, payload: body.payload });
};
const get = (app: TestContext, url: string) => {
  const u = new URL(url, 'http://portal.test');
  return app.app.inject({ url: `${u.pathname}${u.search}` });
};
const filesUnder = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : []);
const puts = () => s3.requests.filter((r) => r.method === 'PUT').length;

describe('two portal instances on one bucket', () => {
  it('an upload through one instance is served by the other, with the public cache headers, and nothing is kept on either disk', async () => {
    const user = await createSignedInUser(a.app, a.database, { subscriptionType: SubscriptionType.ENTERPRISE });
    const png = sampleFiles.png(100_000);
    const glb = sampleFiles.glb(30_000);
    const res = await addV2(a, user, validAvatar(), [
      { field: 'backgroundImage', filename: 'office.png', data: png, type: 'image/png' },
      { field: 'scene', filename: 'room.glb', data: glb },
    ]);
    expect(res.statusCode).toBe(200);
    const media = res.json().agent.mediaDetails as Record<string, { url: string }[]>;
    const imageUrl = media.backgroundImage![0]!.url;
    const key = imageUrl.replace(/^\/files\//, '');
    expect(s3.objects.get(key)?.type).toBe('image/png');
    expect(s3.objects.get(key)?.body.equals(png)).toBe(true);

    const served = await get(b, imageUrl);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(png)).toBe(true);
    expect(served.headers).toMatchObject({ 'content-type': 'image/png', 'content-length': '100000', 'cache-control': 'public, max-age=31536000, immutable', 'cross-origin-resource-policy': 'cross-origin' });
    const scene = await get(b, media.scene![0]!.url);
    expect(scene.headers['content-type']).toBe('model/gltf-binary');
    expect(scene.rawPayload.equals(glb)).toBe(true);
    // The other instance lists the avatar with the same URLs.
    const listed = (await b.app.inject({ url: '/api/list_avatar', headers: user.headers })).json().agents[0];
    expect(listed.mediaDetails.backgroundImage[0].url).toBe(imageUrl);

    for (const t of [a, b]) {
      expect(filesUnder(path.join(t.config.dataDir, 'files'))).toEqual([]);
      expect(filesUnder(path.join(t.config.dataDir, 'tmp'))).toEqual([]);
    }
    expect(s3.refused).toEqual([]);
  });

  it('a disguised or over-size upload leaves no object in the bucket and no temporary file', async () => {
    const user = await createSignedInUser(a.app, a.database, { subscriptionType: SubscriptionType.ENTERPRISE });
    const objects = s3.objects.size;
    const before = puts();
    const disguised = await addV2(a, user, validAvatar(), [{ field: 'backgroundImage', filename: 'photo.png', data: sampleFiles.zip(50_000), type: 'image/png' }]);
    expect(disguised.statusCode).toBe(400);
    expect(disguised.json().errors[0]).toMatch(/must be a \.jpg or \.png image/);
    const big = await addV2(a, user, validAvatar(), [{ field: 'backgroundImage', filename: 'big.jpg', data: sampleFiles.jpeg(10 * 1024 * 1024 + 1) }]);
    expect(big.statusCode).toBe(413);
    expect(big.json().errors).toEqual(['File size exceeds 10MB for image.']);
    // A good file followed by an avatar the save refuses: stored, then deleted again.
    const refused = await addV2(a, user, validAvatar({ name: '' }), [{ field: 'backgroundImage', filename: 'ok.png', data: sampleFiles.png() }]);
    expect(refused.statusCode).toBe(400);
    expect(puts()).toBe(before + 1);
    expect(s3.objects.size).toBe(objects);
    expect(filesUnder(path.join(a.config.dataDir, 'tmp'))).toEqual([]);
  });

  it('a private file (an image-avatar face photo) is served by the other instance only with a valid signature', async () => {
    const owner = await createSignedInUser(a.app, a.database, { subscriptionType: SubscriptionType.PRO });
    const body = multipart({ name: 'Face', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'f.jpg', data: sampleFiles.jpeg(20_000) }]);
    const sent = await a.app.inject({ method: 'POST', url: '/api/image_avatar_requests', headers: { ...owner.headers, ...body.headers }, payload: body.payload });
    expect(sent.statusCode).toBe(200);
    const photoUrl = sent.json().request.photoUrl as string;
    const bare = new URL(photoUrl, 'http://portal.test').pathname;
    expect(s3.objects.has(bare.replace(/^\/files\//, ''))).toBe(true);

    const signed = await get(b, photoUrl);
    expect(signed.statusCode).toBe(200);
    expect(signed.rawPayload.equals(sampleFiles.jpeg(20_000))).toBe(true);
    expect(signed.headers['cache-control']).toBe('private, no-store');
    expect(signed.headers['cross-origin-resource-policy']).toBe('same-origin');
    const unsigned = await get(b, bare);
    expect(unsigned.statusCode).toBe(403);
    expect(unsigned.json().errors).toEqual(['This file is private.']);
    // Refused before the bucket is asked.
    expect(s3.requests.filter((r) => r.key === bare.replace(/^\/files\//, '') && r.method === 'GET')).toHaveLength(1);
  });

  it('deleting an avatar through one instance deletes its objects; the other then answers 404', async () => {
    const user = await createSignedInUser(a.app, a.database, { subscriptionType: SubscriptionType.ENTERPRISE });
    const { agent } = (await addV2(a, user, validAvatar(), [{ field: 'backgroundImage', filename: 'a.png', data: sampleFiles.png() }])).json();
    const url = agent.mediaDetails.backgroundImage[0].url as string;
    const key = url.replace(/^\/files\//, '');
    expect(s3.objects.has(key)).toBe(true);
    const res = await b.app.inject({ method: 'POST', url: '/api/del_avatar', headers: user.headers, payload: { agentId: agent.id, mode: 'delete' } });
    expect(res.json()).toMatchObject({ status: 'OK', agentId: agent.id });
    expect(s3.objects.has(key)).toBe(false);
    expect((await get(a, url)).statusCode).toBe(404);
  });

  it('a bucket that fails or cannot be reached gives a clean 503, never a 500 with a stack', async () => {
    const user = await createSignedInUser(a.app, a.database, { subscriptionType: SubscriptionType.ENTERPRISE });
    const { agent } = (await addV2(a, user, validAvatar(), [{ field: 'backgroundImage', filename: 'a.png', data: sampleFiles.png() }])).json();
    const url = agent.mediaDetails.backgroundImage[0].url as string;

    s3.failNext(500);
    const failing = await get(b, url);
    expect(failing.statusCode).toBe(503);
    expect(failing.json()).toEqual({ status: 'FAIL', errors: ['File storage is unavailable at the moment. Please try again in a minute.'], failReason: FailReason.RequestFail });
    expect(failing.headers['cache-control']).toBe('no-store');
    expect(failing.headers['retry-after']).toBe('5');
    expect((await get(b, url)).statusCode).toBe(200);

    s3.failNext(503);
    const upload = await addV2(b, user, validAvatar({ id: agent.id, version: agent.version }), [{ field: 'backgroundImage', filename: 'b.png', data: sampleFiles.png(30_000) }]);
    expect(upload.statusCode).toBe(503);
    expect(upload.body).not.toMatch(/at .*\.ts|stack|S3RequestError/);
    expect(filesUnder(path.join(b.config.dataDir, 'tmp'))).toEqual([]);

    // An instance whose bucket is not there at all (nothing listens on that port).
    const gone = await startFakeS3({ accessKey: 'AKIAINSTANCES', secretKey: 'shared/bucket+secret', region: 'eu-west-3', bucket: 'persona-media' });
    await gone.close();
    const c = await createTestApp({ STORAGE_URL: gone.storageUrl, EMBEDDINGS: 'off' }, { database: a.database });
    try {
      const unreachable = await get(c, url);
      expect(unreachable.statusCode).toBe(503);
      expect(unreachable.json().errors).toEqual(['File storage is unavailable at the moment. Please try again in a minute.']);
      const noUpload = await addV2(c, user, validAvatar(), [{ field: 'backgroundImage', filename: 'c.png', data: sampleFiles.png() }]);
      expect(noUpload.statusCode).toBe(503);
      expect(filesUnder(path.join(c.config.dataDir, 'tmp'))).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
