// Issue 26, item 6: the access log wrote signed URLs and query-string tokens. Through the app's
// own logger (the options main.ts gets): every URL a credential travels in — a private file's
// signed link, the OAuth callback, a protected avatar's page, the e-mail links, a URL Fastify
// refuses before routing — and the other ways URLs reach the log (an error's message, a log line's
// fields, e.g. the embedded worker's) leave no credential in any line.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../build-app.js';
import { createSignedInUser, multipart, sampleFiles } from '../factories.js';

const secret = () => `zsecret${randomBytes(6).toString('hex')}`;
const lines: string[] = [];
const stream = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ EMBEDDINGS: 'off' }, { logger: { level: 'info', stream } });
});
afterAll(async () => {
  await t?.close();
});

const urlsLogged = () => lines.map((l) => JSON.parse(l) as { req?: { url?: string }; msg?: string }).filter((l) => l.msg === 'request completed').map((l) => l.req?.url);

describe('URLs in the log', () => {
  it('the access log shows the path and redacts every credential of the query and of the e-mail links', async () => {
    const owner = await createSignedInUser(t.app, t.database, { subscriptionType: 2 });
    const form = multipart({ name: 'Face', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'f.jpg', data: sampleFiles.jpeg() }]);
    const photoUrl = (await t.app.inject({ method: 'POST', url: '/api/image_avatar_requests', headers: { ...owner.headers, ...form.headers }, payload: form.payload })).json().request.photoUrl as string;
    const signature = new URL(photoUrl, 'http://portal.test').searchParams.get('signature')!;
    const secrets = Array.from({ length: 8 }, secret);
    const [code, state, token, oauthCode, reset, verify, refused, ticket] = secrets;
    const calls = [
      photoUrl,
      `/api/oauth/callback/1?code=${code}&state=${state}`,
      `/avatar/1?token=${token}&oauthCode=${oauthCode}&hideFS=true`,
      `/react/reset-password/${reset}`,
      `/react/email-verification/${verify}`,
      `/api/%zz?token=${refused}`,
      `/avatar-ws?ticket=${ticket}`,
    ];
    lines.length = 0;
    for (const url of calls) await t.app.inject({ url });
    const text = lines.join('\n');
    for (const s of [signature, ...secrets]) expect(text, s).not.toContain(s);
    const logged = urlsLogged();
    expect(logged).toHaveLength(calls.length);
    expect(logged).toContain(`${new URL(photoUrl, 'http://portal.test').pathname}?expires=${new URL(photoUrl, 'http://portal.test').searchParams.get('expires')}&signature=[REDACTED]`);
    expect(logged).toContain('/api/oauth/callback/1?code=[REDACTED]&state=[REDACTED]');
    expect(logged).toContain('/avatar/1?token=[REDACTED]&oauthCode=[REDACTED]&hideFS=true');
    expect(logged).toContain('/react/reset-password/[REDACTED]');
    expect(logged).toContain('/react/email-verification/[REDACTED]');
    expect(logged).toContain('/api/%zz?token=[REDACTED]');
  });

  it("an error's message and a log line's text and fields lose their credentials too (the embedded worker logs through here)", () => {
    const [a, b, c, d] = Array.from({ length: 4 }, secret);
    lines.length = 0;
    t.app.log.error({ err: new Error(`GET https://api.example/v1/models?key=${a} failed`) }, 'provider failed');
    t.app.log.warn({ server: `wss://portal.example/api/worker/ws?token=${b}` }, `embedded worker: reconnecting to https://u:${c}@portal.example/?secret=${d}`);
    const text = lines.join('\n');
    for (const s of [a, b, c, d]) expect(text, s).not.toContain(s);
    for (const shown of ['models?key=[REDACTED]', 'ws?token=[REDACTED]', 'u:[REDACTED]@portal', '?secret=[REDACTED]']) expect(text).toContain(shown);
  });
});
