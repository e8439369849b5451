import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * The app's route table, as Fastify registers it: a test file mocks `fastify` with
 * `captureRoutes` (an onRoute hook on every instance the app makes) and reads `uniqueRoutes`.
 *
 *   const { routes } = vi.hoisted(() => ({ routes: [] as RouteOptions[] }));
 *   vi.mock('fastify', async (importOriginal) => (await import('./route-capture.js')).captureRoutes(await importOriginal(), routes));
 */
export function captureRoutes<M extends object>(actual: M, sink: RouteOptions[]): M {
  const make = (actual as unknown as { default: (opts: unknown) => FastifyInstance }).default;
  const wrapped = (opts: unknown) => {
    const app = make(opts);
    app.addHook('onRoute', (route) => {
      sink.push(route);
    });
    return app;
  };
  return { ...actual, default: Object.assign(wrapped, make), fastify: wrapped };
}

export interface CapturedRoute extends Omit<RouteOptions, 'method'> {
  method: string;
  /** `METHOD /path`, the key of the route table (route-table.ts). */
  key: string;
}

/** One entry per method and path; HEAD and OPTIONS (Fastify's own) left out. */
export function uniqueRoutes(routes: RouteOptions[]): CapturedRoute[] {
  const seen = new Set<string>();
  const out: CapturedRoute[] = [];
  for (const r of routes) {
    for (const method of [r.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      const key = `${method} ${r.url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...r, method, key });
    }
  }
  return out;
}
