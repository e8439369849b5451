import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's security headers, computed once: helmet is run against a recording response at start
 * and the resulting headers are set on every reply. (Running helmet per request re-parses the
 * CSP directives each time, a large share of a small answer's cost.) A route that needs other
 * values (e.g. an embeddable page's frame-ancestors) overrides them on its reply.
 */
export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions): Record<string, string> {
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
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  return headers;
}
