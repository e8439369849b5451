import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Guards requests the server makes to URLs users typed (OAuth token endpoints, crawls): only
 * http(s), and unless ALLOW_PRIVATE_URLS is set, never to loopback, private, link-local or other
 * non-public addresses (checked after DNS resolution).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    // The same IPv4-mapped address as URLs normalise it (::ffff:7f00:1 is 127.0.0.1).
    const hexMapped = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (hexMapped) {
      const hi = parseInt(hexMapped[1]!, 16);
      const lo = parseInt(hexMapped[2]!, 16);
      return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
    // IPv4-compatible addresses (::7f00:1, deprecated) are never a public server.
    if (/^(?:0{0,4}:){0,6}:?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.test(address) && !/[1-9a-f]/i.test(address.split(':').slice(0, -2).join(''))) return true;
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export class OutboundUrlError extends Error {
  override readonly name = 'OutboundUrlError';
}

/** Throws OutboundUrlError unless the URL is http(s) and (when required) resolves to public addresses only. */
export async function assertOutboundUrl(value: string, opts: { allowPrivate: boolean }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OutboundUrlError('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundUrlError('only http and https URLs are allowed');
  if (url.username || url.password) throw new OutboundUrlError('URLs with credentials are not allowed');
  if (opts.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new OutboundUrlError(`${host} cannot be resolved`);
  if (addresses.some(isPrivateAddress)) throw new OutboundUrlError(`${host} is a private or local address`);
  return url;
}
