// @persona/net: the product's outbound-network rules, one implementation for the server and the
// workers (ADR 014): which addresses a user's URL may reach, the guarded fetch and WebSocket that
// enforce it at connect time, and the limits of a listener that anybody can reach.
export { isGlobalUnicast, isPrivateAddress, nonGlobalReason, ownAddressReason } from './ip-ranges.js';
export {
  checkFetchUrl,
  createGuardedFetch,
  createGuardedLookup,
  CROSS_ORIGIN_SAFE_HEADERS,
  dropUnsafeHeaders,
  GuardedFetchError,
  literalHostRefusal,
  sharedGuardedFetch,
  type GuardedFetch,
  type GuardedFetchErrorFacts,
  type GuardedFetchErrorKind,
  type GuardedFetchHandle,
  type GuardedFetchOptions,
} from './guarded-fetch.js';
export { checkSocketUrl, openGuardedSocket, type GuardedSocketOptions } from './guarded-socket.js';
export { checkUrl, decodeBody, guardedFetch, SafeFetchError, type DnsLookup, type FetchedResource, type FetchErrorKind, type FetchResourceOptions } from './fetch-resource.js';
export { DEFAULT_CONNECTION_LIMITS, guardConnections, httpServerOptions, type ConnectionGuard, type ConnectionLimits } from './connection-guard.js';
