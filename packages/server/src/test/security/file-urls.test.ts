// The route × role matrix, for the URLs of stored files (issue 26, item 1): every spelling of a
// private file's URL — a leading slash, `%2F`, dot segments, a backslash, upper case, an encoded
// route prefix… — called by every role, on local storage and on an S3-compatible bucket, over a
// real socket (an HTTP client would tidy the URL first). Never 200, never a shared-cache header,
// never the file's bytes; the signed link works in its one spelling only; a folder no code knows
// is private (deny by default); and on S3 nothing but a canonical key reaches the bucket.
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../build-app.js';
import { multipart, sampleFiles } from '../factories.js';
import { startFakeS3, type FakeS3 } from '../fake-s3.js';
import { setUpSecurity, type Headers, type Role, type Security } from './fixtures.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request as sent on the wire, the URL exactly as given. */
function rawRequest(port: number, method: 'GET' | 'HEAD', url: string, headers: Headers = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('connect', () => {
      const lines = Object.entries({ host: 'portal.test', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
      socket.write(`${method} ${url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const parsed = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers: parsed, body });
    });
  });
}

/** Every other way of writing `/files/<key>` that a router, a file system or a bucket might read as that key. */
function spellings(key: string): string[] {
  const [top = '', ...rest] = key.split('/');
  const tail = rest.join('/');
  const inFolder = [
    `/${key}`,
    `//${key}`,
    `%2F${key}`,
    `%2f${key}`,
    `%2F%2F${key}`,
    `/%2F${key}`,
    `./${key}`,
    `%2e/${key}`,
    `.%2F${key}`,
    key.replaceAll('/', '%2F'),
    `${top}//${tail}`,
    `${top}/./${tail}`,
    `${top}/%2e/${tail}`,
    `avatars/../${key}`,
    `avatars/%2e%2e/${key}`,
    `avatars/..%2F${key}`,
    `avatars%2F..%2F${key}`,
    `\\${key}`,
    `%5C${key}`,
    `${top}\\${rest.join('\\')}`,
    `${top}%5C${rest.join('%5C')}`,
    `${top.toUpperCase()}/${tail}`,
    `${top.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16)}`)}/${tail}`,
    `${key}/`,
    `${key}%20`,
    `%20${key}`,
    `${key}.`,
  ];
  return [...inFolder.map((s) => `/files/${s}`), `/fil%65s/${key}`, `/fil%65s//${key}`, `/%66iles/%2F${key}`];
}

const ROLES: Role[] = ['anonymous', 'A', 'B', 'admin', 'proxy'];
const storages: [string, boolean][] = [
  ['local files', false],
  ['an S3-compatible bucket', true],
];

describe.each(storages)('stored files by URL on %s', (_name, onS3) => {
  let t: TestContext;
  let s: Security;
  let s3: FakeS3 | undefined;
  let port: number;
  const hex = () => randomBytes(16).toString('hex');
  const files = {} as { knowledge: string; photo: string; photoLink: string; unknownFolder: string; media: string };
  const content = `Private harbour notes ${hex()}`;

  beforeAll(async () => {
    s3 = onS3 ? await startFakeS3({ accessKey: 'AKIAFILEURLS', secretKey: 'file/urls+secret', region: 'eu-west-1', bucket: 'persona-files' }) : undefined;
    t = await createTestApp({ EMBEDDINGS: 'off', ...(s3 ? { STORAGE_URL: s3.storageUrl } : {}) });
    s = await setUpSecurity(t.app, t.database);
    const a = s.accounts.A;
    // A's knowledge file (the key the knowledge base gives it) and a file in a folder no code serves.
    files.knowledge = `knowledge/u${a.id}/${hex()}.txt`;
    await t.app.storage.putBuffer(files.knowledge, Buffer.from(content));
    files.unknownFolder = `exports/u${a.id}/${hex()}.txt`;
    await t.app.storage.putBuffer(files.unknownFolder, Buffer.from(content));
    files.media = `avatars/${a.id}/${hex()}.png`;
    await t.app.storage.putBuffer(files.media, sampleFiles.png());
    // A's face photo, sent the way the portal sends it; its signed link as A's own list gives it.
    const form = multipart({ name: 'Face', permissionConfirmed: 'true' }, [{ field: 'photo', filename: 'face.jpg', data: sampleFiles.jpeg() }]);
    const sent = await t.app.inject({ method: 'POST', url: '/api/image_avatar_requests', headers: { ...s.credentials('A', 'session'), ...form.headers }, payload: form.payload });
    expect(sent.statusCode, sent.body).toBe(200);
    files.photoLink = (sent.json() as { request: { photoUrl: string } }).request.photoUrl;
    files.photo = new URL(files.photoLink, 'http://portal.test').pathname.slice('/files/'.length);
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  /** The answers that may come back for a file the caller has no signed link to: refused, or no such file. */
  const refusedOrMissing = (a: Answer) => [400, 403, 404].includes(a.status) && !/public|immutable/.test(a.headers['cache-control'] ?? '') && !a.body.includes(content);

  it("a private file's every spelling is refused to every role, signed in or not", async () => {
    const calls: { role: Role; method: 'GET' | 'HEAD'; url: string; headers: Headers }[] = [];
    for (const key of [files.knowledge, files.photo]) {
      for (const url of [`/files/${key}`, ...spellings(key)]) {
        for (const role of ROLES) {
          for (const headers of role === 'anonymous' ? [{}, s.credentials('anonymous', 'session')] : [s.credentials(role, 'session'), s.credentials(role, 'jwt')]) {
            for (const method of ['GET', 'HEAD'] as const) calls.push({ role, method, url, headers });
          }
        }
      }
    }
    const failures: string[] = [];
    // A few at a time (each on its own connection, well under the per-address cap).
    for (let i = 0; i < calls.length; i += 16) {
      await Promise.all(
        calls.slice(i, i + 16).map(async ({ role, method, url, headers }) => {
          const answer = await rawRequest(port, method, url, headers);
          if (!refusedOrMissing(answer)) failures.push(`${role} ${method} ${url} → ${answer.status} cache-control: ${answer.headers['cache-control']}`);
        }),
      );
    }
    expect(calls.length).toBeGreaterThan(1000);
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('the signed link works in its one spelling; its signature on another spelling of the key is refused', async () => {
    const link = new URL(files.photoLink, 'http://portal.test');
    const ok = await rawRequest(port, 'GET', `${link.pathname}${link.search}`);
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('private, no-store');
    const failures: string[] = [];
    for (const url of spellings(files.photo)) {
      const answer = await rawRequest(port, 'GET', `${url}${link.search}`);
      if (!refusedOrMissing(answer) || answer.status === 200) failures.push(`${url}${link.search} → ${answer.status}`);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('only the known public folders are public: a file in any other folder needs a signed link', async () => {
    const unknown = await rawRequest(port, 'GET', `/files/${files.unknownFolder}`);
    expect(unknown.status).toBe(403);
    expect(unknown.headers['cache-control']).toBe('private, no-store');
    expect(unknown.body).not.toContain(content);
    const signed = new URL(t.app.storage.privateUrl(files.unknownFolder), 'http://portal.test');
    expect((await rawRequest(port, 'GET', `${signed.pathname}${signed.search}`)).body).toContain(content);
  });

  it('public media is served, immutable, in its one spelling; any other is a 404', async () => {
    const media = await rawRequest(port, 'GET', `/files/${files.media}`);
    expect(media.status).toBe(200);
    expect(media.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const failures: string[] = [];
    for (const url of spellings(files.media)) {
      const answer = await rawRequest(port, 'GET', url);
      if (answer.status !== 404 && answer.status !== 400) failures.push(`${url} → ${answer.status}`);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it.runIf(onS3)('nothing but a canonical key reaches the bucket', () => {
    const asked = s3!.requests.map((r) => r.key);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((key) => !/^[a-z0-9_-]+(\/[a-z0-9_-]+)*\.[a-z0-9]+$/.test(key))).toEqual([]);
  });
});
