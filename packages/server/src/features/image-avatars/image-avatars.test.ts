import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvatarMessages, ImageAvatarMessages, SubscriptionType } from '@persona/contract';
import { createTestApp, flush, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, multipart, sampleFiles } from '../../test/factories.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const send = (headers: Record<string, string>, url: string, fields: Record<string, string>, files: Parameters<typeof multipart>[1] = []) => {
  const body = multipart(fields, files);
  return t.app.inject({ method: 'POST', url, headers: { ...headers, ...body.headers }, payload: body.payload });
};

describe('image avatars', () => {
  it('PRO customer sends a photo; the admin attaches the finished avatar; it shows in IMAGE AVATARS', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    const res = await send(user.headers, '/api/image_avatar_requests', { name: 'Dr. Smith', notes: 'Friendly', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'face.jpg', data: sampleFiles.jpeg() }]);
    expect(res.statusCode).toBe(200);
    const request = res.json().request;
    expect(request).toMatchObject({ status: 'PENDING', name: 'Dr. Smith', email: user.email });
    await flush();
    expect(t.mail.sent.some((m) => m.to === admin.email && m.subject.includes('Image avatar request'))).toBe(true);

    const queue = await t.app.inject({ url: '/api/admin/image_avatar_requests?status=PENDING', headers: admin.headers });
    expect(queue.json().requests.map((r: { id: number }) => r.id)).toContain(request.id);
    // The photo is private: the admin's list hands out a signed URL, relative so that the admin's
    // page loads it from whatever address it was opened at (private-files.test.ts has the rest).
    const listed = queue.json().requests.find((r: { id: number }) => r.id === request.id) as { photoUrl: string };
    expect(listed.photoUrl).toMatch(/^\/files\//);
    const photo = await t.app.inject({ url: listed.photoUrl });
    expect(photo.statusCode).toBe(200);

    const done = await send(admin.headers, '/api/admin/image_avatar_requests/decide', { requestId: String(request.id), decision: 'complete' }, [{ field: 'thumbnail', filename: 'smith.png', data: sampleFiles.png() }]);
    expect(done.statusCode).toBe(200);
    expect(done.json().request.status).toBe('COMPLETED');

    const custom = (await t.app.inject({ url: '/api/custom_avatars', headers: user.headers })).json().image;
    expect(custom).toHaveLength(1);
    expect(custom[0]).toMatchObject({ name: 'Dr. Smith', dhType: 1 });
    const config = await t.app.inject({ url: new URL(custom[0].avatarConfigURL, 'http://portal.test').pathname });
    expect(config.json().ParentConfig).toBe('/catalog/avatar-configs/base-image.json');
    await flush();
    expect(t.mail.sent.some((m) => m.to === user.email && m.subject === 'Your image avatar is ready')).toBe(true);

    const twice = await send(admin.headers, '/api/admin/image_avatar_requests/decide', { requestId: String(request.id), decision: 'decline' });
    expect(twice.statusCode).toBe(409);
  });

  it('keeps the face landmarks found when the admin attached the photo (a talking photo), and refuses bad ones', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    const ask = async () =>
      (await send(user.headers, '/api/image_avatar_requests', { name: 'Talking', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'face.jpg', data: sampleFiles.jpeg() }])).json().request;
    const pts = (n: number, x: number) => Array.from({ length: n }, (_, i) => [x + i, 100 + i]);
    // With the brows and nose (kept since the talking photo's brows and nose move; optional for older ones).
    const landmarks = { width: 640, height: 800, jaw: pts(17, 100), leftEye: pts(6, 200), rightEye: pts(6, 300), mouth: pts(20, 250), leftBrow: pts(5, 190), rightBrow: pts(5, 290), nose: pts(9, 260) };
    const decide = (requestId: number, value: string) =>
      send(admin.headers, '/api/admin/image_avatar_requests/decide', { requestId: String(requestId), decision: 'complete', landmarks: value }, [{ field: 'thumbnail', filename: 't.png', data: sampleFiles.png() }]);

    const first = await ask();
    for (const bad of ['{not json', JSON.stringify({ ...landmarks, mouth: pts(19, 250) }), JSON.stringify({ ...landmarks, width: -1 }), JSON.stringify({ ...landmarks, jaw: [[1, 'x'], ...pts(16, 1)] }), JSON.stringify({ ...landmarks, nose: pts(8, 260) })]) {
      const refused = await decide(first.id, bad);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().errors).toEqual([ImageAvatarMessages.landmarksInvalid]);
    }
    expect((await decide(first.id, JSON.stringify(landmarks))).statusCode).toBe(200);
    const [custom] = (await t.app.inject({ url: '/api/custom_avatars', headers: user.headers })).json().image;
    const config = (await t.app.inject({ url: new URL(custom.avatarConfigURL, 'http://portal.test').pathname })).json();
    expect(config.Avatar.landmarks).toEqual(landmarks);
  });

  it('lower plans get Higher Subscription Plan Required; the permission statement and photo are required', async () => {
    const starter = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.STARTER });
    const res = await send(starter.headers, '/api/image_avatar_requests', { name: 'X', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'f.jpg', data: sampleFiles.jpeg() }]);
    expect(res.statusCode).toBe(403);
    expect(res.json().errors).toEqual([AvatarMessages.higherPlanRequired]);

    const pro = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    const noPermission = await send(pro.headers, '/api/image_avatar_requests', { name: 'X' }, [{ field: 'photo', filename: 'f.jpg', data: sampleFiles.jpeg() }]);
    expect(noPermission.statusCode).toBe(400);
    expect(noPermission.json().errors).toContain(ImageAvatarMessages.permissionRequired);
    const noPhoto = await send(pro.headers, '/api/image_avatar_requests', { name: 'X', permissionConfirmed: 'true' });
    expect(noPhoto.json().errors).toContain(ImageAvatarMessages.photoRequired);
    const disguised = await send(pro.headers, '/api/image_avatar_requests', { name: 'X', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'f.jpg', data: sampleFiles.zip() }]);
    expect(disguised.statusCode).toBe(400);
  });

  it('admin calls are 403 for users', async () => {
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    expect((await t.app.inject({ url: '/api/admin/image_avatar_requests', headers: user.headers })).statusCode).toBe(403);
    expect((await send(user.headers, '/api/admin/image_avatar_requests/decide', { requestId: '1', decision: 'decline' })).statusCode).toBe(403);
  });
});
