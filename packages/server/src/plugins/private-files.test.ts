import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { createSignedInUser, multipart, sampleFiles } from '../test/factories.js';

/**
 * Issue 9, item 4: private files (face photos of image-avatar requests, knowledge uploads) are
 * served only through short-lived signed URLs handed to their owner (and administrators), never
 * cached by shared caches; public media keeps its public, immutable route.
 */
let t: TestContext;
let clock = Date.now();
beforeAll(async () => {
  t = await createTestApp({ EMBEDDINGS: 'off' }, { now: () => new Date(clock) });
});
afterAll(async () => {
  await t?.close();
});

const get = (url: string) => {
  const u = new URL(url, 'http://portal.test');
  return t.app.inject({ url: `${u.pathname}${u.search}` });
};

describe('face photos of image-avatar requests', () => {
  it('owner and admin get a working signed URL; the bare URL, a borrowed signature and an expired one are refused', async () => {
    const owner = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    const other = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const send = (headers: Record<string, string>) => {
      const body = multipart({ name: 'Face', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'f.jpg', data: sampleFiles.jpeg() }]);
      return t.app.inject({ method: 'POST', url: '/api/image_avatar_requests', headers: { ...headers, ...body.headers }, payload: body.payload });
    };
    const mine = (await send(owner.headers)).json().request as { id: number; photoUrl: string };
    const theirs = (await send(other.headers)).json().request as { id: number; photoUrl: string };

    const ownList = (await t.app.inject({ url: '/api/image_avatar_requests', headers: owner.headers })).json().requests as { id: number; photoUrl: string }[];
    expect(ownList.map((r) => r.id)).toEqual([mine.id]);
    const ownPhoto = await get(ownList[0]!.photoUrl);
    expect(ownPhoto.statusCode).toBe(200);
    expect(ownPhoto.headers['cache-control']).toBe('private, no-store');
    expect(ownPhoto.headers['content-type']).toBe('image/jpeg');

    const adminList = (await t.app.inject({ url: '/api/admin/image_avatar_requests', headers: admin.headers })).json().requests as { id: number; photoUrl: string }[];
    const adminUrl = adminList.find((r) => r.id === mine.id)!.photoUrl;
    expect((await get(adminUrl)).statusCode).toBe(200);
    // The other account can list only its own requests, not the owner's admin queue.
    expect((await t.app.inject({ url: '/api/admin/image_avatar_requests', headers: other.headers })).statusCode).toBe(403);

    // Anyone with the bare URL (what used to be public and cached for a year): refused.
    const bare = new URL(mine.photoUrl, 'http://portal.test');
    const refused = await get(bare.pathname);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['cache-control']).toBe('private, no-store');
    // The other account's own signature, moved onto the owner's photo: refused.
    const borrowed = await get(`${bare.pathname}${new URL(theirs.photoUrl, 'http://portal.test').search}`);
    expect(borrowed.statusCode).toBe(403);
    // A tampered expiry: refused.
    const params = new URL(mine.photoUrl, 'http://portal.test').searchParams;
    expect((await get(`${bare.pathname}?expires=${Number(params.get('expires')) + 3600}&signature=${params.get('signature')}`)).statusCode).toBe(403);

    // Sixteen minutes later the owner's link has expired.
    clock += 16 * 60 * 1000;
    const expired = await get(ownList[0]!.photoUrl);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().errors).toEqual(['This link has expired. Reload the page to get a new one.']);
    const fresh = (await t.app.inject({ url: '/api/image_avatar_requests', headers: owner.headers })).json().requests[0].photoUrl as string;
    expect((await get(fresh)).statusCode).toBe(200);
  });
});

describe('knowledge files', () => {
  it('only the owner gets the signed link; the final_url alone is refused', async () => {
    const owner = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const jwt = async (h: Record<string, string>) => ({ authorization: `Bearer ${(await t.app.inject({ url: '/api/token/jwt', headers: h })).json().jwtToken as string}` });
    const bearer = await jwt(owner.headers);
    const collection = (await t.app.inject({ method: 'POST', url: '/knowledge_collection', headers: bearer, payload: { name: 'Private' } })).json().data as { id: number };
    const presigned = (await t.app.inject({ method: 'POST', url: '/knowledge/generate-s3-url', headers: bearer, payload: { file_type: 'text/plain' } })).json() as { form: Record<string, string>; final_url: string };
    const uploaded = await t.app.inject({ method: 'POST', url: '/knowledge/upload', ...multipart(presigned.form, [{ field: 'file', filename: 'notes.txt', data: Buffer.from('Secret harbour notes.'), type: 'text/plain' }]) });
    expect(uploaded.statusCode).toBe(204);
    const created = await t.app.inject({
      method: 'POST',
      url: '/knowledge',
      headers: bearer,
      payload: { collection_id: collection.id, name: 'Notes', knowledge_type: 'file', url: presigned.final_url, file_name: 'notes.txt', file_type: 'text/plain' },
    });
    expect(created.statusCode).toBe(200);

    const items = (await t.app.inject({ url: `/knowledge?collection_id=${collection.id}`, headers: bearer })).json().data as { url: string; file_url: string }[];
    expect(items[0]!.url).toBe(presigned.final_url);
    const file = await get(items[0]!.file_url);
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe('Secret harbour notes.');
    expect(file.headers['cache-control']).toBe('private, no-store');

    expect((await get(presigned.final_url)).statusCode).toBe(403);
    const otherBearer = await jwt(other.headers);
    expect((await t.app.inject({ url: `/knowledge?collection_id=${collection.id}`, headers: otherBearer })).statusCode).toBe(404);
  });
});

describe('public media', () => {
  it('stays public and immutable', async () => {
    const key = 'avatars/1/0123456789abcdef0123456789abcdef.png';
    await t.app.storage.putBuffer(key, sampleFiles.png());
    const res = await get(t.app.storage.url(key));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});
