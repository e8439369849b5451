import { describe, expect, it } from 'vitest';
import { isGlobalUnicast, nonGlobalReason } from './ip-ranges.js';

describe('global unicast addresses', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
  ])('%s may be reached', (a) => {
    expect(nonGlobalReason(a)).toBeNull();
    expect(isGlobalUnicast(a)).toBe(true);
  });

  it.each([
    ['0.0.0.0', '"this network"'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'shared address space'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.170', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', '6to4 relay'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.251', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::7f00:1', 'outside global unicast'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['64:ff9b:1::1', 'NAT64'],
    ['100::1', 'discard-only'],
    ['2001::1', 'IETF protocol assignments'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'IETF protocol assignments'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::1', '6to4'],
    ['3fff::1', 'documentation'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'zone id'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'outside global unicast'],
    ['localhost', 'not an IP address'],
    ['2130706433', 'not an IP address'],
  ])('%s is refused (%s)', (a, why) => {
    expect(nonGlobalReason(a)).toContain(why);
    expect(isGlobalUnicast(a)).toBe(false);
  });
});
