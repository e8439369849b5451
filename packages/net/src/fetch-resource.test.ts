import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, SafeFetchError, type DnsLookup } from './fetch-resource.js';

/** A site on loopback that records what reached it. */
let server: http.Server;
let port: number;
const hits: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', body });
      if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/moved') return res.writeHead(307, { location: '/token' }).end();
      if (req.url === '/refused') return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A resolver with fixed answers, counting its calls. */
function fakeDns(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup: DnsLookup = (hostname, callback) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { lookup, calls };
}

const opts = { allowPrivate: false, timeoutMs: 3000, maxBytes: 64 * 1024 };

/** Literal addresses in URLs, in every form the URL parser turns into a loopback, private or embedded address. */
const LITERAL_URLS = [
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://017700000001/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://0x7f.1/',
  'http://127.1/',
  'http://127.0.0.1./',
  'http://%31%32%37.0.0.1/',
  'http://127。0。0。1/',
  'http://0/',
  'http://0251.0376.0251.0376/latest/meta-data/',
  'http://0xa9fea9fe/latest/meta-data/',
  'http://2852039166/latest/meta-data/',
  'http://192.88.99.1/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[0:0:0:0:0:ffff:7f00:1]/',
  'http://[::ffff:0:7f00:1]/',
  'http://[::127.0.0.1]/',
  'http://[2002:7f00:1::]/',
  'http://[2001::1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b:1::7f00:1]/',
  'http://[fec0::1]/',
  'http://[fe80::1%25eth0]/',
  'http://[fd00::1]:8080/',
];

describe('guardedFetch', () => {
  it.each(LITERAL_URLS)('refuses %s without connecting', async (url) => {
    const dns = fakeDns({});
    const err = await guardedFetch(url, { ...opts, lookup: dns.lookup }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SafeFetchError);
    expect(['blocked', 'invalid']).toContain((err as SafeFetchError).kind);
    expect(dns.calls).toEqual([]);
  });

  it('resolves a host name once, in the connection, and refuses any non-public answer', async () => {
    for (const answer of [['127.0.0.1'], ['10.0.0.5'], ['::ffff:7f00:1'], ['2002:7f00:1::'], ['fec0::1'], ['8.8.8.8', '192.168.0.1']]) {
      const dns = fakeDns({ 'api.example.test': answer });
      const err = await guardedFetch(`http://api.example.test:${port}/token`, { ...opts, lookup: dns.lookup }).catch((e: unknown) => e);
      expect(err, answer.join()).toBeInstanceOf(SafeFetchError);
      expect((err as SafeFetchError).kind).toBe('blocked');
      expect(dns.calls).toEqual(['api.example.test']);
    }
    expect(hits).toEqual([]);
  });

  it('says the same thing for a name that resolves to a private address and one that does not resolve; the log gets the reason', async () => {
    const dns = fakeDns({ 'intranet.example.test': ['10.0.0.5'] });
    const privateName = (await guardedFetch(`http://intranet.example.test/`, { ...opts, lookup: dns.lookup }).catch((e: unknown) => e)) as SafeFetchError;
    const unknownName = (await guardedFetch(`http://nowhere.example.test/`, { ...opts, lookup: dns.lookup }).catch((e: unknown) => e)) as SafeFetchError;
    expect(privateName.message.replace('intranet', 'X')).toBe(unknownName.message.replace('nowhere', 'X'));
    expect(privateName.kind).toBe(unknownName.kind);
    expect(privateName.detail).toContain('10.0.0.5');
    expect(unknownName.detail).toContain('ENOTFOUND');
  });

  it('connects to the address it checked (no second resolution), and POSTs the body', async () => {
    const dns = fakeDns({ 'token.provider.test': ['127.0.0.1'] });
    const res = await guardedFetch(`http://token.provider.test:${port}/token`, {
      ...opts,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=abc',
      lookup: dns.lookup,
      // Loopback stands in for a public address in this test.
      isBlockedAddress: (a) => a !== '127.0.0.1',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ method: 'POST', body: 'grant_type=authorization_code&code=abc' });
    expect(dns.calls).toEqual(['token.provider.test']);
  });

  it('checks every redirect hop, never follows one for POST, and can hand back error answers', async () => {
    const publicLoopback = { ...opts, isBlockedAddress: (a: string) => a !== '127.0.0.1' };
    await expect(guardedFetch(`http://127.0.0.1:${port}/redirect`, publicLoopback)).rejects.toThrow(/169\.254\.169\.254 is a private, local or reserved address/);
    await expect(guardedFetch(`http://127.0.0.1:${port}/moved`, { ...publicLoopback, method: 'POST', body: 'x' })).rejects.toMatchObject({ kind: 'http', status: 307 });
    expect(hits.filter((h) => h.url === '/token')).toHaveLength(1);
    await expect(guardedFetch(`http://127.0.0.1:${port}/refused`, { ...publicLoopback, method: 'POST', body: 'x' })).rejects.toMatchObject({ kind: 'http', status: 400 });
    const refused = await guardedFetch(`http://127.0.0.1:${port}/refused`, { ...publicLoopback, method: 'POST', body: 'x', acceptErrorStatus: true });
    expect(refused.status).toBe(400);
    expect(refused.body.toString()).toContain('invalid_grant');
    await expect(guardedFetch(`http://127.0.0.1:${port}/token`, { ...publicLoopback, maxBytes: 5 })).rejects.toMatchObject({ kind: 'too-large' });
  });

  it('a cross-origin redirect drops every header off the safe list (any key name); a same-origin one keeps them', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const other = http.createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('landed');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    const otherOrigin = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    const first = http.createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/hop') return res.writeHead(302, { location: '/away' }).end();
      res.writeHead(302, { location: `${otherOrigin}/landed` }).end();
    });
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    try {
      const keys = { authorization: 'Bearer secret', 'x-api-key': 'k1', 'x-goog-api-key': 'k2', 'xi-api-key': 'k3', 'ocp-apim-subscription-key': 'k4', cookie: 'sid=1' };
      const res = await guardedFetch(`http://127.0.0.1:${(first.address() as AddressInfo).port}/hop`, {
        ...opts,
        allowPrivate: true,
        headers: { ...keys, accept: 'application/json', 'accept-language': 'de' },
      });
      expect(res.body.toString()).toBe('landed');
      expect(seen).toHaveLength(3);
      for (const [name, value] of Object.entries(keys)) expect(seen[1]![name]).toBe(value);
      const landed = seen[2]!;
      for (const name of Object.keys(keys)) expect(landed[name]).toBeUndefined();
      expect(Object.keys(landed).sort()).toEqual(['accept', 'accept-language', 'connection', 'host', 'user-agent']);
    } finally {
      await new Promise((resolve) => other.close(resolve));
      await new Promise((resolve) => first.close(resolve));
    }
  });

  it('reaches private addresses when they are allowed', async () => {
    const res = await guardedFetch(`http://127.0.0.1:${port}/token`, { ...opts, allowPrivate: true });
    expect(res.status).toBe(200);
  });
});
