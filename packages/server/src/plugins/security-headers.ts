import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest, onSendHookHandler } from 'fastify';
import helmet, { contentSecurityPolicy, type HelmetOptions } from 'helmet';

type Directives = Record<string, string[] | null>;

/** Where the pages' scripts may connect: never a bare scheme such as `wss:` (any host). */
export interface ConnectSources {
  /** PUBLIC_URL: the portal's own origin, over http(s) and ws(s) (the embedded worker shares it). */
  publicUrl: string;
  /** WORKER_WS_ORIGINS: workers on other hosts, whose `webSocket` addresses live pages open. */
  workerWsOrigins: readonly string[];
  /** The storage bucket the browser uploads to, from STORAGE_URL. */
  storageOrigin?: string;
}

/** The connect-src list: 'self', the portal's own ws(s) origin, the configured workers and bucket. */
export function connectSources(sources: ConnectSources): string[] {
  const own = new URL(sources.publicUrl);
  const ownWs = `${own.protocol === 'https:' ? 'wss:' : 'ws:'}//${own.host}`;
  return [...new Set(["'self'", ownWs, ...sources.workerWsOrigins, ...(sources.storageOrigin ? [sources.storageOrigin] : [])])];
}

/**
 * The portal's CSP directives. Another page (e.g. the embeddable avatar page) builds its own from
 * the same sources and overrides what differs (frame-ancestors, media), then sets
 * `cspHeaderValue(...)` on its reply.
 */
export function portalCspDirectives(sources: ConnectSources, overrides: Directives = {}): Directives {
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
    mediaSrc: ["'self'", 'blob:', 'https:'],
    connectSrc: connectSources(sources),
    frameSrc: ["'self'"],
    fontSrc: ["'self'", 'data:'],
    objectSrc: ["'none'"],
    upgradeInsecureRequests: null,
    ...overrides,
  };
}

/**
 * The Content-Security-Policy header value for these directives, with helmet's defaults for what
 * they leave out (base-uri, form-action, frame-ancestors 'self', script-src-attr 'none'), as the
 * portal's own header has them. Compute it once, not per request.
 */
export function cspHeaderValue(directives: Directives): string {
  let value = '';
  const recorder = {
    setHeader(_name: string, header: string) {
      value = header;
    },
  };
  contentSecurityPolicy({ directives })({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return value;
}

/**
 * What an API answer (JSON, files) carries: the headers that protect a response that is not a
 * page: no sniffing, no framing, no sub-resources if it is ever opened as a document, no
 * cross-origin reads, HSTS (OWASP REST Security Cheat Sheet, "Security headers"). The rest of
 * helmet's set (COOP, origin-agent-cluster, referrer and DNS-prefetch policies…) governs documents.
 * Node validates every header of every answer: nine fewer headers is a fifth of a small
 * answer's cost.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
};

/**
 * Whether a request is under /api/. The router decodes percent-encoded letters (`/%61pi/health`
 * is routed to /api/health), so a URL that has any is judged by the route it reached, not by how
 * it was spelled.
 */
const isApiPath = (request: FastifyRequest) => request.url.startsWith('/api/') || (request.url.includes('%') && (request.routeOptions.url ?? '').startsWith('/api/'));
const isHtml = (contentType: unknown) => typeof contentType === 'string' && contentType.startsWith('text/html');

/**
 * Helmet's security headers, computed once: helmet is run against a recording response at start
 * and the resulting headers are set on every page's reply. (Running helmet per request re-parses
 * the CSP directives each time, a large share of a small answer's cost.) Answers under /api/ get
 * API_SECURITY_HEADERS instead, unless they turn out to be HTML (an /api/ route that renders a
 * page, e.g. the OAuth callback's): those get the page headers before they are sent, whatever
 * the route did. A route that needs other values (e.g. an embeddable page's frame-ancestors)
 * overrides them on its reply.
 *
 * The HTML check runs only on routes that can answer something other than their declared JSON:
 * routes registered after this call without a response schema (a route with one answers through
 * its serializer). A global onSend hook put a hook call on every answer, /api/health's included.
 * `requestIdHeader` names a header that echoes the request's id on every answer (set in the same
 * hook: one hook per request instead of two).
 */
export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions, extra: { requestIdHeader?: string } = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  const { requestIdHeader } = extra;
  app.addHook('onRequest', (request, reply, done) => {
    if (requestIdHeader) reply.header(requestIdHeader, request.id);
    reply.headers(isApiPath(request) ? API_SECURITY_HEADERS : headers);
    done();
  });
  const pageHeadersIfHtml: onSendHookHandler = (request, reply, payload, done) => {
    if (isApiPath(request) && isHtml(reply.getHeader('content-type'))) reply.headers(headers);
    done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    if (route.schema?.response !== undefined) return;
    route.onSend = route.onSend === undefined ? [pageHeadersIfHtml] : [...[route.onSend].flat(), pageHeadersIfHtml];
  });
  // Not-found answers under /api/ are JSON (plugins/web-app.ts); a URL Fastify cannot decode is
  // answered by Fastify itself, before any hook.
  return headers;
}
