import { BlockList, isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/**
 * Which addresses outbound calls to user-supplied URLs may reach: global unicast only.
 *
 * IPv4: everything except the IANA IPv4 Special-Purpose Address Registry (every entry, even the
 * few anycast services marked globally reachable — no HTTP API lives there), multicast,
 * the reserved 240/4 and broadcast.
 * IPv6: only 2000::/3 (global unicast), minus its special-purpose blocks (IETF protocol
 * assignments incl. Teredo, documentation, 6to4, AS112). Everything outside 2000::/3 is refused,
 * which covers ::, ::1, IPv4-mapped (::ffff:0:0/96), IPv4-compatible, NAT64 (64:ff9b::/96 and
 * 64:ff9b:1::/48), discard-only, ULA, link-local and multicast.
 *
 * And, whatever its range, no address of this machine's own interfaces: a VPS's public IP is
 * global unicast, yet a request to it reaches every service listening on all interfaces (a
 * worker's port, metrics, a database bound to 0.0.0.0), past a firewall that guards them from
 * outside.
 *
 * The one rule for the whole product: the server's and the worker's outbound calls both use it
 * (through guarded-fetch.ts, guarded-socket.ts and fetch-resource.ts).
 */
const IPV4_SPECIAL: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.31.196.0', 24, 'AS112'],
  ['192.52.193.0', 24, 'AMT'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'AS112 direct delegation'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** Special-purpose blocks inside 2000::/3. */
const IPV6_SPECIAL_IN_GLOBAL: readonly (readonly [string, number, string])[] = [
  ['2001::', 23, 'IETF protocol assignments (incl. Teredo, benchmarking, ORCHID)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['2620:4f:8000::', 48, 'AS112 direct delegation'],
  ['3fff::', 20, 'documentation'],
];

/** Named blocks outside 2000::/3, for clearer messages (all of them are refused anyway). */
const IPV6_NAMED_OUTSIDE: readonly (readonly [string, number, string])[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'NAT64 (local use)'],
  ['100::', 64, 'discard-only'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
];

function listOf(entries: readonly (readonly [string, number, string])[], family: 'ipv4' | 'ipv6') {
  return entries.map(([net, prefix, name]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, name: `${name} (${net}/${prefix})` };
  });
}

const v4Special = listOf(IPV4_SPECIAL, 'ipv4');
const v6Special = listOf(IPV6_SPECIAL_IN_GLOBAL, 'ipv6');
const v6Named = listOf(IPV6_NAMED_OUTSIDE, 'ipv6');
const v6Global = new BlockList();
v6Global.addSubnet('2000::', 3, 'ipv6');

/** Strips URL brackets and refuses zone ids (fe80::1%eth0 is link-local by definition). */
function normalise(address: string): string {
  return address.replace(/^\[|\]$/g, '');
}

/** Why an address is outside global unicast by its range, or null. */
function rangeReason(ip: string): string | null {
  const family = isIP(ip);
  if (family === 4) {
    if (ip === '255.255.255.255') return 'broadcast';
    return v4Special.find((b) => b.list.check(ip, 'ipv4'))?.name ?? null;
  }
  if (family === 6) {
    if (ip.includes('%')) return 'scoped (zone id)';
    // BlockList matches IPv4-mapped IPv6 addresses against IPv4 rules too; none of ours are IPv4.
    if (!v6Global.check(ip, 'ipv6')) return v6Named.find((b) => b.list.check(ip, 'ipv6'))?.name ?? 'outside global unicast (2000::/3)';
    return v6Special.find((b) => b.list.check(ip, 'ipv6'))?.name ?? null;
  }
  return 'not an IP address';
}

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** Every address on the given interfaces, as a BlockList (it compares any textual form of an address). */
function interfaceList(interfaces: Interfaces): BlockList {
  const list = new BlockList();
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      const ip = info.address.split('%')[0]!;
      const family = isIP(ip);
      if (family) list.addAddress(ip, family === 6 ? 'ipv6' : 'ipv4');
    }
  }
  return list;
}

/** Interfaces change (DHCP, a new IPv6 address): re-read them at most this often. */
const OWN_ADDRESSES_TTL_MS = 5_000;
let own: { at: number; list: BlockList } | null = null;

function ownList(): BlockList {
  const now = Date.now();
  if (!own || now - own.at > OWN_ADDRESSES_TTL_MS) {
    let interfaces: Interfaces = {};
    try {
      interfaces = networkInterfaces();
    } catch {
      // Some sandboxes refuse to list interfaces: the ranges still apply.
    }
    own = { at: now, list: interfaceList(interfaces) };
  }
  return own.list;
}

/** "this machine's own address" when `address` is on one of its interfaces (default: the real ones), else null. */
export function ownAddressReason(address: string, interfaces?: Interfaces): string | null {
  const ip = normalise(address);
  const family = isIP(ip);
  if (!family || ip.includes('%')) return null;
  const list = interfaces ? interfaceList(interfaces) : ownList();
  return list.check(ip, family === 6 ? 'ipv6' : 'ipv4') ? "this machine's own address" : null;
}

/**
 * Why an address may not be reached (e.g. "loopback (127.0.0.0/8)", "this machine's own
 * address"), or null when it is a global unicast address of another machine. Anything that is
 * not an IP address is refused ("not an IP address").
 */
export function nonGlobalReason(address: string): string | null {
  const ip = normalise(address);
  return rangeReason(ip) ?? ownAddressReason(ip);
}

/** True when outbound calls may connect to this address (see nonGlobalReason). */
export function isGlobalUnicast(address: string): boolean {
  return nonGlobalReason(address) === null;
}

/** Not global unicast: loopback, private, link-local, reserved, embedded-IPv4 forms, or not an address. */
export function isPrivateAddress(address: string): boolean {
  return !isGlobalUnicast(address);
}
