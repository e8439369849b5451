import { isGlobalUnicast as isGlobalUnicastAddress, nonGlobalReason } from '@persona/worker';

/**
 * Which addresses the server may connect to on behalf of a user (OAuth token endpoints, knowledge
 * URLs and crawls, billing-auth URLs), unless ALLOW_PRIVATE_URLS is set: global unicast only, and
 * none of this machine's own addresses.
 * One rule for the whole product: the classifier lives in the worker package
 * (packages/worker/src/net/ip-ranges.ts), which the worker's own outbound calls (REST brain,
 * functions' network helper) use too.
 */
export function isGlobalUnicast(address: string): boolean {
  return isGlobalUnicastAddress(address);
}

/** Not global unicast: loopback, private, link-local, reserved, embedded-IPv4 forms, or not an address. */
export function isPrivateAddress(address: string): boolean {
  return !isGlobalUnicastAddress(address);
}

export { nonGlobalReason };
