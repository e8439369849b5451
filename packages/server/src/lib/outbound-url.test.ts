import { describe, expect, it } from 'vitest';
import { assertOutboundUrl, isPrivateAddress } from './outbound-url.js';

describe('outbound URLs', () => {
  it('knows private, local and reserved addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '142.250.180.14', '2a00:1450:4001:80b::200e']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('refuses non-http(s), credentials and private hosts unless allowed', async () => {
    await expect(assertOutboundUrl('ftp://example.com/', { allowPrivate: false })).rejects.toThrow('only http and https');
    await expect(assertOutboundUrl('https://user:pw@example.com/', { allowPrivate: false })).rejects.toThrow('credentials');
    await expect(assertOutboundUrl('http://127.0.0.1:8080/token', { allowPrivate: false })).rejects.toThrow('private or local address');
    await expect(assertOutboundUrl('http://[::1]/token', { allowPrivate: false })).rejects.toThrow('private or local address');
    await expect(assertOutboundUrl('http://localhost/token', { allowPrivate: false })).rejects.toThrow(/private or local address|cannot be resolved/);
    await expect(assertOutboundUrl('http://127.0.0.1:8080/token', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
    await expect(assertOutboundUrl('https://8.8.8.8/', { allowPrivate: false })).resolves.toBeInstanceOf(URL);
  });
});
