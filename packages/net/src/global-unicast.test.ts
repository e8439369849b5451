import { describe, expect, it } from 'vitest';
import { isGlobalUnicast, isPrivateAddress } from './ip-ranges.js';

/** Addresses as DNS answers them or as they reach the guard: only global unicast may pass. */
const REFUSED: [address: string, what: string][] = [
  ['0.0.0.0', '"this network"'],
  ['0.1.2.3', '"this network"'],
  ['10.1.2.3', 'private'],
  ['100.64.0.1', 'shared address space (CGN)'],
  ['100.127.255.255', 'shared address space, last'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, high'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private, last'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.31.196.1', 'AS112-v4'],
  ['192.52.193.1', 'AMT'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast'],
  ['192.168.1.1', 'private'],
  ['192.175.48.1', 'direct delegation AS112'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking, last'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'limited broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback, long form'],
  ['::ffff:127.0.0.1', 'IPv4-mapped, dotted'],
  ['::ffff:7f00:1', 'IPv4-mapped, hex'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped, long form'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public address: still an embedded form'],
  ['::ffff:0:7f00:1', 'IPv4-translated (SIIT)'],
  ['::127.0.0.1', 'IPv4-compatible, dotted'],
  ['::7f00:1', 'IPv4-compatible, hex'],
  ['64:ff9b::7f00:1', 'NAT64 well-known prefix'],
  ['64:ff9b::8.8.8.8', 'NAT64 to a public address'],
  ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix'],
  ['100::1', 'discard-only'],
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (RFC 4380 example)'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['2001:db8::1', 'documentation'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2002:808:808::1', '6to4 of a public address'],
  ['2620:4f:8000::1', 'direct delegation AS112'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['fc00::1', 'unique local'],
  ['fd12:3456:789a::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone id'],
  ['2001:4860:4860::8888%1', 'a zone id on a global address'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'outside 2000::/3'],
  ['[::1]', 'bracketed loopback'],
  ['0177.0.0.1', 'octal: not a canonical address'],
  ['010.8.8.8', 'leading zero (octal in some parsers)'],
  ['0x7f.0.0.1', 'hex: not a canonical address'],
  ['127.1', 'short form: not a canonical address'],
  ['2130706433', 'decimal: not a canonical address'],
  ['8.8.8.8 ', 'trailing space'],
  ['', 'empty'],
  ['localhost', 'a name, not an address'],
];

const ALLOWED: [address: string, what: string][] = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['142.250.180.14', 'public'],
  ['100.63.255.255', 'just below the CGN block'],
  ['100.128.0.1', 'just above the CGN block'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['198.20.0.1', 'just above benchmarking'],
  ['223.255.255.255', 'last before multicast'],
  ['2a00:1450:4001:80b::200e', 'public IPv6'],
  ['2a00:1450:4001:80b:0:0:0:200e', 'public IPv6, long form'],
  ['2001:4860:4860::8888', 'public IPv6'],
  ['2001:200::1', 'first block after 2001::/23'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['[2a00:1450:4001:80b::200e]', 'bracketed public IPv6'],
];

describe('the outbound address rule: global unicast only', () => {
  it.each(REFUSED)('refuses %s (%s)', (address) => {
    expect(isGlobalUnicast(address)).toBe(false);
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(ALLOWED)('allows %s (%s)', (address) => {
    expect(isGlobalUnicast(address)).toBe(true);
    expect(isPrivateAddress(address)).toBe(false);
  });
});
