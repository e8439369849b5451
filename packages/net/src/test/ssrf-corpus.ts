import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { domainToASCII } from 'node:url';
import type { LookupAddress } from 'node:dns';
import type { NetworkInterfaceInfo } from 'node:os';

/**
 * The SSRF corpus (issue 16): URLs a user could type into any field the product later fetches or
 * connects to (knowledge URL items and crawls, OAuth token endpoint, billing-auth URL, custom LLM /
 * STT / TTS base URLs, REST brain, realtime URL, Dialogflow token_uri, the functions' network
 * helper). Every one of them aims at the loopback canary (or a private/metadata address) in some
 * disguise: address forms the URL parser rewrites, IPv6 and its IPv4-transition ranges, host names
 * that resolve to loopback or private addresses, URL-parser tricks, and redirects from a "public"
 * server. Each must be refused, and the canary must see no connection at all.
 *
 * Tests never use the network:
 * - names resolve through `ssrfDnsLookup` (installed with `vi.mock('node:dns', …mockedDns)`), which
 *   answers from SSRF_DNS and says ENOTFOUND for anything else;
 * - "the public internet" is one address, PUBLIC_STAND_IN (127.0.0.3), where the redirector listens;
 *   `withPublicStandIn` wraps the one address classifier (@persona/net's ip-ranges.ts) so that this address
 *   counts as global unicast, and OWN_PUBLIC_ADDRESS (127.0.0.4) plays this machine's public IP
 *   (global by its range, on one of the machine's interfaces). Every other address keeps the
 *   production rule.
 *
 * The canary listens on every local address; the redirector answers /<status>/<base64url(location)>/.
 */

/** The address that plays "a public server on the internet" in these tests. */
export const PUBLIC_STAND_IN = '127.0.0.3';
/**
 * This machine's own public address in these tests: global unicast by the ranges (like a VPS's
 * public IP on its interface), and every service listening on all interfaces — the canary
 * included — answers there. Only the guard's own-address rule can refuse it.
 */
export const OWN_PUBLIC_ADDRESS = '127.0.0.4';
/** The redirector's name (resolves to PUBLIC_STAND_IN). */
export const REDIRECTOR_HOST = 'public-redirector.example';

export interface SsrfTargets {
  /** The canary's port (it listens on every local address, IPv4 and IPv6). */
  port: number;
  /** http://public-redirector.example:PORT — answers /<status>/<base64url(location)>/… with that redirect. */
  redirector: string;
}

/**
 * Where a payload is refused by a correct guard:
 * - `parse`: from the URL alone, before any DNS (scheme, credentials, literal non-public address);
 * - `dns`: when the connection resolves the name (every answer must be public);
 * - `redirect`: on a later hop (only entry points that follow redirects get there; the others
 *   refuse the redirect itself).
 */
export type SsrfStage = 'parse' | 'dns' | 'redirect';

export interface SsrfPayload {
  id: string;
  group: 'ipv4' | 'ipv6' | 'transition' | 'self' | 'parser' | 'scheme' | 'dns' | 'redirect';
  url: (t: SsrfTargets) => string;
  /** The guard's error kind: 'blocked' (not a public address) or 'invalid' (scheme, credentials, unparsable). */
  refusal: 'blocked' | 'invalid';
  stage: SsrfStage;
}

/** The Cyrillic "о" in a name that looks like localhost (IDNA turns it into xn--…). */
const HOMOGLYPH_LOCALHOST = 'l\u043ecalhost.ssrf.test';

/**
 * What the test resolver answers (names as the URL parser hands them over: lower case, ASCII;
 * a trailing dot is ignored as real resolvers do).
 */
export const SSRF_DNS: Readonly<Record<string, readonly string[]>> = {
  localhost: ['127.0.0.1', '::1'],
  'api.localhost': ['127.0.0.1'],
  'localtest.me': ['127.0.0.1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  '7f000001.c0a80001.rbndr.us': ['127.0.0.1'],
  'metadata.google.internal': ['169.254.169.254'],
  'ip6-localhost': ['::1'],
  'mapped.ssrf.test': ['::ffff:127.0.0.1'],
  'nat64.ssrf.test': ['64:ff9b::7f00:1'],
  'sixtofour.ssrf.test': ['2002:7f00:1::1'],
  'teredo.ssrf.test': ['2001:0:4136:e378:8000:63bf:80ff:fffe'],
  // A public answer first, loopback second: one public address is not enough.
  'mixed.ssrf.test': [PUBLIC_STAND_IN, '127.0.0.1'],
  'mixed6.ssrf.test': [PUBLIC_STAND_IN, '::1'],
  'zero.ssrf.test': ['0.0.0.0'],
  'ten.ssrf.test': ['10.0.0.1'],
  'cgnat.ssrf.test': ['100.64.0.1'],
  'ula.ssrf.test': ['fd00::1'],
  'linklocal6.ssrf.test': ['fe80::1'],
  [domainToASCII(HOMOGLYPH_LOCALHOST)]: ['127.0.0.1'],
  'self.ssrf.test': [OWN_PUBLIC_ADDRESS],
  [REDIRECTOR_HOST]: [PUBLIC_STAND_IN],
};

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
/** A URL on the "public" redirector that answers `status` with `Location: location`. */
export const redirectVia = (t: SsrfTargets, status: number, location: string) => `${t.redirector}/${status}/${b64(location)}/`;

const lit = (group: SsrfPayload['group'], id: string, url: (t: SsrfTargets) => string, refusal: SsrfPayload['refusal'] = 'blocked'): SsrfPayload => ({ id, group, url, refusal, stage: 'parse' });
const name = (id: string, url: (t: SsrfTargets) => string): SsrfPayload => ({ id, group: 'dns', url, refusal: 'blocked', stage: 'dns' });
const hop = (id: string, status: number, location: (t: SsrfTargets) => string, refusal: SsrfPayload['refusal'] = 'blocked'): SsrfPayload => ({
  id,
  group: 'redirect',
  url: (t) => redirectVia(t, status, location(t)),
  refusal,
  stage: 'redirect',
});

export const SSRF_PAYLOADS: readonly SsrfPayload[] = [
  // ── IPv4 in every form the WHATWG URL parser turns into an address ──
  lit('ipv4', 'dotted loopback', (t) => `http://127.0.0.1:${t.port}/`),
  lit('ipv4', 'short form 127.1', (t) => `http://127.1:${t.port}/`),
  lit('ipv4', 'short form 127.0.1', (t) => `http://127.0.1:${t.port}/`),
  lit('ipv4', 'decimal 2130706433', (t) => `http://2130706433:${t.port}/`),
  lit('ipv4', 'hex 0x7f000001', (t) => `http://0x7f000001:${t.port}/`),
  lit('ipv4', 'octal 017700000001', (t) => `http://017700000001:${t.port}/`),
  lit('ipv4', 'octal dotted 0177.0.0.1', (t) => `http://0177.0.0.1:${t.port}/`),
  lit('ipv4', 'hex short 0x7f.1', (t) => `http://0x7f.1:${t.port}/`),
  lit('ipv4', 'hex dotted 0x7F.0x00.0x00.0x01', (t) => `http://0x7F.0x00.0x00.0x01:${t.port}/`),
  lit('ipv4', 'octal short 0177.1', (t) => `http://0177.1:${t.port}/`),
  lit('ipv4', 'leading zeros 00000177.0.0.1', (t) => `http://00000177.0.0.1:${t.port}/`),
  lit('ipv4', 'trailing dot 127.0.0.1.', (t) => `http://127.0.0.1.:${t.port}/`),
  lit('ipv4', 'other loopback 127.255.255.254', (t) => `http://127.255.255.254:${t.port}/`),
  lit('ipv4', 'unspecified 0.0.0.0', (t) => `http://0.0.0.0:${t.port}/`),
  lit('ipv4', 'zero 0', (t) => `http://0:${t.port}/`),
  lit('ipv4', 'percent-encoded %31%32%37.0.0.1', (t) => `http://%31%32%37.0.0.1:${t.port}/`),
  lit('ipv4', 'ideographic full stops 127。0。0。1', (t) => `http://127\u30020\u30020\u30021:${t.port}/`),
  lit('ipv4', 'fullwidth digits １２７.０.０.１', (t) => `http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:${t.port}/`),
  lit('ipv4', 'metadata 169.254.169.254', (t) => `http://169.254.169.254:${t.port}/latest/meta-data/`),
  lit('ipv4', 'metadata hex 0xa9fea9fe', (t) => `http://0xa9fea9fe:${t.port}/latest/meta-data/`),
  lit('ipv4', 'metadata decimal 2852039166', (t) => `http://2852039166:${t.port}/latest/meta-data/`),
  lit('ipv4', 'metadata octal 0251.0376.0251.0376', (t) => `http://0251.0376.0251.0376:${t.port}/latest/meta-data/`),
  lit('ipv4', 'private 10.0.0.1', (t) => `http://10.0.0.1:${t.port}/`),
  lit('ipv4', 'private 172.16.0.1', (t) => `http://172.16.0.1:${t.port}/`),
  lit('ipv4', 'private 172.31.255.254', (t) => `http://172.31.255.254:${t.port}/`),
  lit('ipv4', 'private 192.168.0.1', (t) => `http://192.168.0.1:${t.port}/`),
  lit('ipv4', 'CGNAT 100.64.0.1', (t) => `http://100.64.0.1:${t.port}/`),
  lit('ipv4', 'CGNAT 100.127.255.254', (t) => `http://100.127.255.254:${t.port}/`),
  lit('ipv4', 'benchmarking 198.18.0.1', (t) => `http://198.18.0.1:${t.port}/`),
  lit('ipv4', 'IETF 192.0.0.170 (NAT64 discovery)', (t) => `http://192.0.0.170:${t.port}/`),
  lit('ipv4', '6to4 relay 192.88.99.1', (t) => `http://192.88.99.1:${t.port}/`),
  lit('ipv4', 'multicast 224.0.0.1', (t) => `http://224.0.0.1:${t.port}/`),
  lit('ipv4', 'reserved 240.0.0.1', (t) => `http://240.0.0.1:${t.port}/`),
  lit('ipv4', 'broadcast 255.255.255.255', (t) => `http://255.255.255.255:${t.port}/`),

  // ── IPv6 ──
  lit('ipv6', 'loopback [::1]', (t) => `http://[::1]:${t.port}/`),
  lit('ipv6', 'loopback long [0:0:0:0:0:0:0:1]', (t) => `http://[0:0:0:0:0:0:0:1]:${t.port}/`),
  lit('ipv6', 'loopback zero-padded [0000::0001]', (t) => `http://[0000::0001]:${t.port}/`),
  lit('ipv6', 'unspecified [::]', (t) => `http://[::]:${t.port}/`),
  lit('ipv6', 'link-local [fe80::1]', (t) => `http://[fe80::1]:${t.port}/`),
  lit('ipv6', 'link-local with zone [fe80::1%25lo]', (t) => `http://[fe80::1%25lo]:${t.port}/`, 'invalid'),
  lit('ipv6', 'unique local [fc00::1]', (t) => `http://[fc00::1]:${t.port}/`),
  lit('ipv6', 'AWS IMDS [fd00:ec2::254]', (t) => `http://[fd00:ec2::254]:${t.port}/latest/meta-data/`),
  lit('ipv6', 'site-local [fec0::1]', (t) => `http://[fec0::1]:${t.port}/`),
  lit('ipv6', 'multicast [ff02::1]', (t) => `http://[ff02::1]:${t.port}/`),
  lit('ipv6', 'discard-only [100::1]', (t) => `http://[100::1]:${t.port}/`),
  lit('ipv6', 'documentation [2001:db8::1]', (t) => `http://[2001:db8::1]:${t.port}/`),

  // ── IPv6 forms that carry an IPv4 address (transition ranges) ──
  lit('transition', 'IPv4-mapped [::ffff:127.0.0.1]', (t) => `http://[::ffff:127.0.0.1]:${t.port}/`),
  lit('transition', 'IPv4-mapped hex [::ffff:7f00:1]', (t) => `http://[::ffff:7f00:1]:${t.port}/`),
  lit('transition', 'IPv4-mapped long [0:0:0:0:0:ffff:127.0.0.1]', (t) => `http://[0:0:0:0:0:ffff:127.0.0.1]:${t.port}/`),
  lit('transition', 'IPv4-mapped metadata [::ffff:a9fe:a9fe]', (t) => `http://[::ffff:a9fe:a9fe]:${t.port}/`),
  lit('transition', 'IPv4-translated [::ffff:0:7f00:1]', (t) => `http://[::ffff:0:7f00:1]:${t.port}/`),
  lit('transition', 'IPv4-compatible [::127.0.0.1]', (t) => `http://[::127.0.0.1]:${t.port}/`),
  lit('transition', 'NAT64 [64:ff9b::7f00:1]', (t) => `http://[64:ff9b::7f00:1]:${t.port}/`),
  lit('transition', 'NAT64 dotted [64:ff9b::127.0.0.1]', (t) => `http://[64:ff9b::127.0.0.1]:${t.port}/`),
  lit('transition', 'NAT64 local-use [64:ff9b:1::7f00:1]', (t) => `http://[64:ff9b:1::7f00:1]:${t.port}/`),
  lit('transition', '6to4 [2002:7f00:1::]', (t) => `http://[2002:7f00:1::]:${t.port}/`),
  lit('transition', '6to4 metadata [2002:a9fe:a9fe::1]', (t) => `http://[2002:a9fe:a9fe::1]:${t.port}/`),
  lit('transition', 'Teredo to 127.0.0.1', (t) => `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${t.port}/`),

  // ── This machine's own public address (services bound to every interface answer there) ──
  lit('self', "this machine's own public address", (t) => `http://${OWN_PUBLIC_ADDRESS}:${t.port}/`),
  name("name → this machine's own public address", (t) => `http://self.ssrf.test:${t.port}/`),
  hop("302 → this machine's own public address", 302, (t) => `http://${OWN_PUBLIC_ADDRESS}:${t.port}/`),

  // ── URL-parser tricks (the real host is the canary) ──
  lit('parser', 'userinfo public@127.0.0.1', (t) => `http://${REDIRECTOR_HOST}@127.0.0.1:${t.port}/`, 'invalid'),
  lit('parser', 'userinfo user:pass@[::1]', (t) => `http://user:pass@[::1]:${t.port}/`, 'invalid'),
  lit('parser', 'backslash 127.0.0.1\\@public', (t) => `http://127.0.0.1:${t.port}\\@${REDIRECTOR_HOST}/`),
  lit('parser', 'fragment 127.0.0.1#@public', (t) => `http://127.0.0.1:${t.port}#@${REDIRECTOR_HOST}/`),
  lit('parser', 'query 127.0.0.1?@public', (t) => `http://127.0.0.1:${t.port}?@${REDIRECTOR_HOST}/`),
  lit('parser', 'tab inside the host', (t) => `http://127.0.0.\t1:${t.port}/`),
  lit('parser', 'leading spaces and upper-case scheme', (t) => `  HTTP://127.0.0.1:${t.port}/`),
  lit('parser', 'backslashes for slashes', (t) => `http:\\\\127.0.0.1:${t.port}\\`),
  lit('parser', 'missing slashes http:127.0.0.1', (t) => `http:127.0.0.1:${t.port}/`),
  lit('scheme', 'file:///etc/passwd', () => 'file:///etc/passwd', 'invalid'),
  lit('scheme', 'gopher to the canary', (t) => `gopher://127.0.0.1:${t.port}/_GET%20/`, 'invalid'),
  lit('scheme', 'dict to the canary', (t) => `dict://127.0.0.1:${t.port}/info`, 'invalid'),
  lit('scheme', 'ftp to the canary', (t) => `ftp://127.0.0.1:${t.port}/`, 'invalid'),
  lit('scheme', 'data: URL', () => 'data:text/plain,hello', 'invalid'),
  lit('scheme', 'not a URL', () => 'not a url', 'invalid'),

  // ── Host names that resolve to loopback, private or metadata addresses (test resolver) ──
  name('localhost', (t) => `http://localhost:${t.port}/`),
  name('localhost。 ideographic trailing dot', (t) => `http://localhost\u3002:${t.port}/`),
  name('LOCALHOST upper case', (t) => `http://LOCALHOST:${t.port}/`),
  name('localhost. trailing dot', (t) => `http://localhost.:${t.port}/`),
  name('percent-encoded localhost', (t) => `http://%6C%6F%63%61%6C%68%6F%73%74:${t.port}/`),
  name('fullwidth ｌｏｃａｌｈｏｓｔ (IDNA)', (t) => `http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:${t.port}/`),
  name('sub.localhost', (t) => `http://api.localhost:${t.port}/`),
  name('localtest.me style', (t) => `http://localtest.me:${t.port}/`),
  name('nip.io style', (t) => `http://127.0.0.1.nip.io:${t.port}/`),
  name('rbndr.us style', (t) => `http://7f000001.c0a80001.rbndr.us:${t.port}/`),
  name('metadata.google.internal', (t) => `http://metadata.google.internal:${t.port}/computeMetadata/v1/`),
  name('ip6-localhost (::1)', (t) => `http://ip6-localhost:${t.port}/`),
  name('name → ::ffff:127.0.0.1', (t) => `http://mapped.ssrf.test:${t.port}/`),
  name('name → NAT64 64:ff9b::7f00:1', (t) => `http://nat64.ssrf.test:${t.port}/`),
  name('name → 6to4 2002:7f00:1::1', (t) => `http://sixtofour.ssrf.test:${t.port}/`),
  name('name → Teredo', (t) => `http://teredo.ssrf.test:${t.port}/`),
  name('name → public and 127.0.0.1', (t) => `http://mixed.ssrf.test:${t.port}/`),
  name('name → public and ::1', (t) => `http://mixed6.ssrf.test:${t.port}/`),
  name('name → 0.0.0.0', (t) => `http://zero.ssrf.test:${t.port}/`),
  name('name → 10.0.0.1', (t) => `http://ten.ssrf.test:${t.port}/`),
  name('name → CGNAT 100.64.0.1', (t) => `http://cgnat.ssrf.test:${t.port}/`),
  name('name → ULA fd00::1', (t) => `http://ula.ssrf.test:${t.port}/`),
  name('name → link-local fe80::1', (t) => `http://linklocal6.ssrf.test:${t.port}/`),
  name('homoglyph lоcalhost (IDNA xn--)', (t) => `http://${HOMOGLYPH_LOCALHOST}:${t.port}/`),

  // ── Redirects from the "public" redirector to the canary ──
  hop('302 → 127.0.0.1', 302, (t) => `http://127.0.0.1:${t.port}/`),
  hop('301 → [::1]', 301, (t) => `http://[::1]:${t.port}/`),
  hop('303 → localhost', 303, (t) => `http://localhost:${t.port}/`),
  hop('307 → metadata 169.254.169.254', 307, (t) => `http://169.254.169.254:${t.port}/latest/meta-data/`),
  hop('308 → decimal 2130706433', 308, (t) => `http://2130706433:${t.port}/`),
  hop('302 → [::ffff:127.0.0.1]', 302, (t) => `http://[::ffff:127.0.0.1]:${t.port}/`),
  hop('302 → protocol-relative //127.0.0.1', 302, (t) => `//127.0.0.1:${t.port}/`),
  hop('302 → 0.0.0.0', 302, (t) => `http://0.0.0.0:${t.port}/`),
  hop('302 → NAT64 [64:ff9b::7f00:1]', 302, (t) => `http://[64:ff9b::7f00:1]:${t.port}/`),
  hop('302 → a name on public and loopback', 302, (t) => `http://mixed.ssrf.test:${t.port}/`),
  hop('302 → 307 → 127.0.0.1 (chain)', 302, (t) => redirectVia(t, 307, `http://127.0.0.1:${t.port}/`)),
  hop('302 → userinfo public@127.0.0.1', 302, (t) => `http://${REDIRECTOR_HOST}@127.0.0.1:${t.port}/`, 'invalid'),
  hop('302 → gopher://127.0.0.1', 302, (t) => `gopher://127.0.0.1:${t.port}/_x`, 'invalid'),
];

// ── The test resolver ──

type LookupOptions = { family?: number | string; all?: boolean } | number | undefined;
type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

/** Answers from SSRF_DNS (ENOTFOUND otherwise), with dns.lookup's signatures. Never uses the network. */
export function ssrfDnsLookup(hostname: string, options: LookupOptions | LookupCallback, callback?: LookupCallback): void {
  const cb = (typeof options === 'function' ? options : callback)!;
  const o = typeof options === 'function' || options === undefined ? {} : typeof options === 'number' ? { family: options } : options;
  const family = o.family === 4 || o.family === 'IPv4' ? 4 : o.family === 6 || o.family === 'IPv6' ? 6 : 0;
  const key = hostname.toLowerCase().replace(/\.$/, '');
  const answers = (SSRF_DNS[key] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })).filter((a) => !family || a.family === family);
  process.nextTick(() => {
    if (answers.length === 0) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
    if (o.all) return cb(null, answers);
    cb(null, answers[0]!.address, answers[0]!.family);
  });
}

/** The node:dns module with `lookup` replaced by the test resolver (for `vi.mock('node:dns', …)`). */
export function mockedDns<T extends object>(actual: T): T {
  const lookup = ssrfDnsLookup;
  const promises = {
    ...(actual as { promises?: object }).promises,
    lookup: (hostname: string, options?: LookupOptions) =>
      new Promise((resolve, reject) => ssrfDnsLookup(hostname, options, (err, address, family) => (err ? reject(err) : resolve(Array.isArray(address) ? address : { address, family })))),
  };
  const base = (actual as { default?: object }).default ?? actual;
  return { ...actual, lookup, promises, default: { ...base, lookup, promises } } as T;
}

/** The interfaces of the machine in these tests: its real ones plus OWN_PUBLIC_ADDRESS (a public IP on an interface). */
export function rigInterfaces(real: NodeJS.Dict<NetworkInterfaceInfo[]>): NodeJS.Dict<NetworkInterfaceInfo[]> {
  const own: NetworkInterfaceInfo = { address: OWN_PUBLIC_ADDRESS, netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:04', internal: false, cidr: `${OWN_PUBLIC_ADDRESS}/24` };
  return { ...real, 'rig-public0': [own] };
}

type Classifier = { nonGlobalReason: (address: string) => string | null; ownAddressReason?: (address: string, interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>) => string | null };

/**
 * The address classifier (@persona/net's ip-ranges.ts) for the rig (`vi.mock`): PUBLIC_STAND_IN (a server on
 * the internet) and OWN_PUBLIC_ADDRESS (this machine's public IP) are global unicast by the
 * ranges; the latter is still judged by the classifier's own-address rule, with the rig's
 * interfaces. Every other address keeps the production rule.
 */
export function withPublicStandIn<T extends Classifier>(actual: T, real: NodeJS.Dict<NetworkInterfaceInfo[]> = {}): T {
  const nonGlobalReason = (address: string) => {
    const ip = address.replace(/^\[|\]$/g, '');
    if (ip === PUBLIC_STAND_IN) return null;
    if (ip === OWN_PUBLIC_ADDRESS) return actual.ownAddressReason?.(ip, rigInterfaces(real)) ?? null;
    return actual.nonGlobalReason(address);
  };
  return { ...actual, nonGlobalReason, isGlobalUnicast: (address: string) => nonGlobalReason(address) === null };
}

// ── The canary and the redirector ──

export interface Canary {
  port: number;
  /** Every TCP connection, HTTP request and WebSocket upgrade that reached it. */
  hits: string[];
  close(): Promise<void>;
}

async function serve(server: http.Server, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host, ipv6Only: false }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The loopback canary: an HTTP and WebSocket server on every local address (`::`, dual stack:
 * 127.0.0.0/8, ::1, ::ffff:127.0.0.1, 0.0.0.0 and the machine's own addresses all reach it) that
 * records any connection. A request that reaches it answers 200 with a plausible body, so a
 * bypass does not hide behind an error.
 */
export async function startCanary(): Promise<Canary> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`request ${req.method} ${req.headers.host} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"OK","reply":"canary","access_token":"canary","data":[]}');
  });
  server.on('connection', (s: Socket) => hits.push(`connection from ${s.remoteAddress}`));
  server.on('upgrade', (req, socket: Socket) => {
    hits.push(`upgrade ${req.headers.host} ${req.url}`);
    socket.destroy();
  });
  const listening = await serve(server, '::').catch(() => serve(server, '127.0.0.1'));
  return { port: listening.port, hits, close: listening.close };
}

export interface Redirector {
  /** http://public-redirector.example:PORT */
  origin: string;
  hits: string[];
  close(): Promise<void>;
}

/** The "public" server at PUBLIC_STAND_IN: /<status>/<base64url(location)>/… answers that redirect (HTTP and WebSocket upgrades alike). */
export async function startRedirector(): Promise<Redirector> {
  const hits: string[] = [];
  const target = (url: string | undefined) => {
    const m = /^\/(\d{3})\/([A-Za-z0-9_-]+)\//.exec(url ?? '');
    return m ? { status: Number(m[1]), location: Buffer.from(m[2]!, 'base64url').toString('utf8') } : null;
  };
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    const t = target(req.url);
    if (!t) return res.writeHead(404).end();
    res.writeHead(t.status, { location: t.location, 'content-length': '0' });
    res.end();
  });
  server.on('upgrade', (req, socket: Socket) => {
    hits.push(`upgrade ${req.url}`);
    const t = target(req.url);
    socket.end(t ? `HTTP/1.1 ${t.status} Redirect\r\nLocation: ${t.location}\r\nContent-Length: 0\r\n\r\n` : 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
  });
  const listening = await serve(server, PUBLIC_STAND_IN);
  return { origin: `http://${REDIRECTOR_HOST}:${listening.port}`, hits, close: listening.close };
}

/** Canary and redirector together, and the targets the payloads are built from. */
export async function startSsrfRig(): Promise<{ canary: Canary; redirector: Redirector; targets: SsrfTargets; close(): Promise<void> }> {
  const [canary, redirector] = await Promise.all([startCanary(), startRedirector()]);
  return {
    canary,
    redirector,
    targets: { port: canary.port, redirector: redirector.origin },
    close: async () => {
      await Promise.all([canary.close(), redirector.close()]);
    },
  };
}
