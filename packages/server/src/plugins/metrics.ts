import type { FastifyInstance } from 'fastify';
import { isNull, sql } from 'drizzle-orm';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { metricsAuthorized } from '@persona/worker';
import type { Db } from '../db/client.js';
import { liveSessions, workers } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus metrics served at GET /metrics (plugins/metrics.ts). */
    metrics: PortalMetrics;
  }
}

/** Seconds: the portal's answers, from a cached read (~1 ms) to an upload or a crawl. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What this instance reads when scraped (set by app.ts once the features exist). */
export interface PortalSources {
  /** Workers connected to this instance's socket. */
  workersConnected(): number;
  /** The knowledge uploads' text extraction (worker threads): waiting and running. */
  extraction(): { queued: number; busy: number } | null;
}

export interface PortalMetrics {
  readonly registry: Registry;
  /** METRICS_TOKEN is set: /metrics answers and HTTP requests are counted. */
  readonly enabled: boolean;
  /** Serves another registry on the same /metrics (the embedded worker's). */
  include(registry: Registry): void;
  /** An admission (start) or resume of a live session: null when admitted, else the refusal's code. */
  admission(kind: 'start' | 'resume', refusal: string | null): void;
  observe(sources: PortalSources): void;
}

/**
 * Prometheus metrics of the portal (ADR 076): GET /metrics answers 404 unless
 * METRICS_TOKEN is set, then 401 unless `Authorization: Bearer <METRICS_TOKEN>` (compared in
 * constant time). HTTP requests are counted by one synchronous onResponse hook (only when on);
 * live sessions and workers are read from the database when scraped, so every instance agrees.
 * Registered before the routes so that the hook sees all of them.
 */
export function registerMetrics(app: FastifyInstance, opts: { token: string | undefined; db: Db }): PortalMetrics {
  const registry = new Registry();
  const registers = [registry];
  const included: Registry[] = [];
  const enabled = opts.token !== undefined;
  let sources: PortalSources | null = null;

  const admitted = new Counter({ name: 'persona_portal_live_sessions_admitted_total', help: 'Live sessions admitted (kind=start) or resumed on a worker (kind=resume).', labelNames: ['kind'] as const, registers });
  const refused = new Counter({ name: 'persona_portal_live_sessions_refused_total', help: 'Live session starts and resumes refused, by LiveCode (avatar-not-found, token-invalid, no-worker, ip-concurrency…).', labelNames: ['kind', 'code'] as const, registers });
  const databaseRead = (what: string) => (err: unknown) => {
    app.log.warn({ err }, `metrics: could not read ${what}`);
    return null;
  };
  new Gauge({
    name: 'persona_portal_live_sessions_open',
    help: 'Live sessions open (admitted and not ended), on every instance and worker.',
    registers,
    async collect() {
      const rows = await opts.db
        .select({ n: sql<number>`count(*)::int` })
        .from(liveSessions)
        .where(isNull(liveSessions.endedAt))
        .catch(databaseRead('the open live sessions'));
      this.reset();
      if (rows) this.set(Number(rows[0]?.n ?? 0));
    },
  });
  new Gauge({
    name: 'persona_portal_workers',
    help: 'Registered workers (VPS Status) by status.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const rows = await opts.db
        .select({ status: workers.status, n: sql<number>`count(*)::int` })
        .from(workers)
        .where(isNull(workers.deletedAt))
        .groupBy(workers.status)
        .catch(databaseRead('the workers'));
      this.reset();
      if (!rows) return;
      for (const status of ['AVAILABLE', 'BUSY', 'DISCONNECTED']) this.set({ status }, Number(rows.find((r) => r.status === status)?.n ?? 0));
    },
  });
  new Gauge({
    name: 'persona_portal_workers_connected',
    help: "Workers connected to this instance's worker socket.",
    registers,
    collect() {
      this.set(sources?.workersConnected() ?? 0);
    },
  });
  new Gauge({
    name: 'persona_portal_knowledge_extractions',
    help: "Knowledge uploads' text extractions on this instance: waiting for a thread (state=queued) and running (state=running).",
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = sources?.extraction();
      this.set({ state: 'queued' }, stats?.queued ?? 0);
      this.set({ state: 'running' }, stats?.busy ?? 0);
    },
  });

  if (enabled) {
    collectDefaultMetrics({ register: registry });
    const requests = new Counter({ name: 'persona_portal_http_requests_total', help: 'HTTP requests answered, by method, route (its pattern; unmatched for 404s) and status class.', labelNames: ['method', 'route', 'status_class'] as const, registers });
    const duration = new Histogram({ name: 'persona_portal_http_request_duration_seconds', help: 'Time to answer HTTP requests, by method and route.', labelNames: ['method', 'route'] as const, buckets: HTTP_BUCKETS, registers });
    // One child per (method, route, class): a request costs a map lookup, an add and a bucket search.
    const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'method' | 'route'> }>();
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
      const key = `${request.method} ${route} ${statusClass}`;
      let child = children.get(key);
      if (!child) {
        child = { count: requests.labels({ method: request.method, route, status_class: statusClass }), time: duration.labels({ method: request.method, route }) };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(reply.elapsedTime / 1000);
      done();
    });
  }

  const metrics: PortalMetrics = {
    registry,
    enabled,
    include(other) {
      if (!included.includes(other)) included.push(other);
    },
    admission(kind, refusal) {
      if (refusal === null) admitted.inc({ kind });
      else refused.inc({ kind, code: refusal });
    },
    observe(s) {
      sources = s;
    },
  };
  app.decorate('metrics', metrics);

  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    // Off: the same answer as a route that does not exist.
    if (opts.token === undefined) {
      reply.callNotFound();
      return reply;
    }
    if (!metricsAuthorized(request.headers.authorization, opts.token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw AppError.unauthorized();
    }
    const texts = await Promise.all([registry, ...included].map((r) => r.metrics()));
    return reply.type(registry.contentType).header('cache-control', 'no-store').send(texts.join(''));
  });
  return metrics;
}
