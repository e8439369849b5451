import type { lookup as dnsLookup } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedFetchError } from './guarded-fetch.js';
import { checkSocketUrl, openGuardedSocket } from './guarded-socket.js';
import { FAKE_SOCKET_KEY, startFakeSocketServer, type FakeSocketServer } from './test/ws-fake.js';

/** A resolver that answers `address` for every name (a public-looking name on a private address). */
const resolvesTo = (address: string) =>
  ((_host: string, _opts: unknown, cb: (err: null, addresses: { address: string; family: number }[]) => void) => cb(null, [{ address, family: 4 }])) as unknown as typeof dnsLookup;

const outcome = (ws: ReturnType<typeof openGuardedSocket>) =>
  new Promise<string>((resolve) => {
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('error', (err) => resolve(`error: ${err.message}`));
  });

let fake: FakeSocketServer;
beforeAll(async () => {
  fake = await startFakeSocketServer();
});
afterAll(() => fake.close());

// The realtime URL is typed by the avatar's owner: the worker's outbound rules apply to it too.
describe('the guarded WebSocket for a user-supplied realtime URL', () => {
  it('refuses private, loopback and link-local literals unless the portal allows private URLs', () => {
    for (const url of ['ws://10.0.0.5/v1/realtime', 'wss://127.0.0.1:8443/v1/realtime', 'wss://[::1]/v1/realtime', 'ws://169.254.169.254/latest', 'https://192.168.1.2/v1/realtime']) {
      expect(() => checkSocketUrl(url, { allowPrivate: false }), url).toThrow(/not a public address/);
    }
    expect(checkSocketUrl('ws://10.0.0.5/v1/realtime', { allowPrivate: true }).host).toBe('10.0.0.5');
    expect(checkSocketUrl('https://api.openai.com/v1/realtime', { allowPrivate: false }).protocol).toBe('wss:');
  });

  it('refuses other schemes and credentials in the URL', () => {
    for (const url of ['ftp://api.example.com/x', 'file:///etc/passwd', 'wss://user:pw@api.example.com/v1/realtime', 'not a url']) {
      expect(() => checkSocketUrl(url, { allowPrivate: false }), url).toThrow(GuardedFetchError);
    }
  });

  it('checks the address a name resolves to inside the connection (no socket to a private address)', async () => {
    const port = new URL(fake.url).port;
    const before = fake.connections.length;
    const refused = openGuardedSocket(`ws://realtime.example.com:${port}/v1/realtime?model=m`, { allowPrivate: false, lookup: resolvesTo('127.0.0.1'), headers: { authorization: `Bearer ${FAKE_SOCKET_KEY}` } });
    expect(await outcome(refused)).toMatch(/realtime\.example\.com \(127\.0\.0\.1\) is not a public address/);
    expect(fake.connections.length).toBe(before);

    const allowed = openGuardedSocket(`ws://realtime.example.com:${port}/v1/realtime?model=m`, { allowPrivate: true, lookup: resolvesTo('127.0.0.1'), headers: { authorization: `Bearer ${FAKE_SOCKET_KEY}` } });
    expect(await outcome(allowed)).toBe('open');
  });
});
