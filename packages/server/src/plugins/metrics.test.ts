// GET /metrics (issue 16, ADR 076): off without METRICS_TOKEN, 401 without the token, and with it
// the Prometheus text format: the portal's series (HTTP, live sessions, workers, process) and the
// embedded worker's; a separate worker serves its own on its page-socket listener.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { createAvatar, createUser } from '../test/factories.js';
import { PageClient, startEmbeddedWorker, startSeparateWorker, until } from '../test/live.js';

const TOKEN = 'scrape-token-0123456789abcdef';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One series of the exposition text: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the Prometheus text format strictly enough to catch a broken exposition: every line is
 * a HELP or TYPE comment or a sample `name{label="value",...} number`, and every sample belongs
 * to a family with a TYPE line.
 */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped'], line).toContain(comment[3]);
        types.set(comment[2]!, comment[3]!);
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    const body = m![2] ?? '';
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
    for (let at = 0; at < body.length; ) {
      pair.lastIndex = at;
      const p = pair.exec(body);
      expect(p, `bad labels in: ${line}`).not.toBeNull();
      labels[p![1]!] = p![2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      at = pair.lastIndex;
    }
    // Go's ParseFloat (Prometheus's parser) takes NaN in any case: prom-client writes `Nan`.
    const value = /^nan$/i.test(m![3]!) ? NaN : Number(m![3] === '+Inf' ? Infinity : m![3] === '-Inf' ? -Infinity : m![3]);
    expect(Number.isNaN(value) && !/^nan$/i.test(m![3]!), `bad value in: ${line}`).toBe(false);
    const family = m![1]!.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(m![1]!) || types.has(family), `no TYPE for ${m![1]}`).toBe(true);
    samples.push({ name: m![1]!, labels, value });
  }
  return { samples, types };
}

/** The value of one series (labels given must match; others are ignored); undefined when absent. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe('/metrics off (no METRICS_TOKEN)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('answers 404, as a route that does not exist, whatever the header', async () => {
    for (const headers of [{}, bearer(TOKEN), bearer('')]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('persona_');
    }
    const unknown = await t.app.inject({ method: 'GET', url: '/no-such-route' });
    expect(unknown.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toBe(unknown.body.replace('/no-such-route', '/metrics'));
    expect(t.app.metrics.enabled).toBe(false);
  });
});

describe('/metrics on (METRICS_TOKEN)', () => {
  let t: TestContext;
  let base: string;
  let embedded: LiveWorkerHandle;
  const workers: LiveWorkerHandle[] = [];
  const scrape = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.body);
  };

  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: TOKEN });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    embedded = await startEmbeddedWorker(t, base);
    t.app.metrics.include(embedded.runtime.metrics.registry);
  });
  afterAll(async () => {
    await Promise.all([embedded, ...workers].map((w) => w?.stop()));
    await t?.close();
  });

  it('refuses a missing or wrong token with 401 (a refusal, no series)', async () => {
    const wrong = [{}, bearer('wrong-token-0123456789abcdef'), bearer(`${TOKEN}x`), bearer(TOKEN.slice(0, -1)), { authorization: `Basic ${TOKEN}` }, { authorization: TOKEN }];
    for (const headers of wrong) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json()).toMatchObject({ status: 'FAIL' });
      expect(res.body).not.toContain('persona_');
    }
  });

  it("with the token: the text format, the portal's and the process's series", async () => {
    const { samples, types } = await scrape();
    expect(types.get('persona_portal_http_requests_total')).toBe('counter');
    expect(types.get('persona_portal_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('persona_portal_live_sessions_open')).toBe('gauge');
    expect(types.get('persona_worker_turn_stage_seconds')).toBe('histogram');
    // Node's process metrics (prom-client's defaults).
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    // The embedded worker registered with this instance.
    expect(valueOf(samples, 'persona_portal_workers', { status: 'AVAILABLE' })).toBe(1);
    expect(valueOf(samples, 'persona_portal_workers_connected')).toBe(1);
    expect(valueOf(samples, 'persona_portal_knowledge_extractions', { state: 'queued' })).toBe(0);
  });

  it('a request increments its route’s counter and latency histogram; unknown paths are one series', async () => {
    const series = { method: 'GET', route: '/api/health', status_class: '2xx' };
    const before = await scrape();
    const requests = valueOf(before.samples, 'persona_portal_http_requests_total', series) ?? 0;
    const observed = valueOf(before.samples, 'persona_portal_http_request_duration_seconds_count', { method: 'GET', route: '/api/health' }) ?? 0;
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    for (const path of ['/no-such-1', '/no-such-2']) expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    const after = await scrape();
    expect(valueOf(after.samples, 'persona_portal_http_requests_total', series)).toBe(requests + 1);
    expect(valueOf(after.samples, 'persona_portal_http_request_duration_seconds_count', { method: 'GET', route: '/api/health' })).toBe(observed + 1);
    expect(valueOf(after.samples, 'persona_portal_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/health', le: '+Inf' })).toBe(observed + 1);
    expect(valueOf(after.samples, 'persona_portal_http_requests_total', { route: 'unmatched', status_class: '4xx' })).toBeGreaterThanOrEqual(2);
    expect(after.samples.some((s) => s.labels.route?.includes('no-such'))).toBe(false);
  });

  it('live sessions: admissions and refusals by code, the open sessions, and the worker’s sessions and turns', async () => {
    const owner = await createUser(t.database, { email: 'metrics-owner@example.com' });
    const avatar = await createAvatar(t.database, owner.id);
    const refused = await t.app.inject({ method: 'POST', url: '/api/live/sessions', payload: { avatarId: 999_999, textOnly: true } });
    expect(refused.statusCode).toBe(404);
    const start = await t.app.inject({ method: 'POST', url: '/api/live/sessions', payload: { avatarId: avatar.id, textOnly: true } });
    expect(start.statusCode, start.body).toBe(200);
    const page = new PageClient(start.json());
    try {
      await page.waitFor('ready');
      page.text('hello metrics');
      await page.waitFor('assistant', (f) => f.final === true && f.text === 'hello metrics');
      const { samples } = await scrape();
      expect(valueOf(samples, 'persona_portal_live_sessions_refused_total', { kind: 'start', code: 'avatar-not-found' })).toBe(1);
      expect(valueOf(samples, 'persona_portal_live_sessions_admitted_total', { kind: 'start' })).toBe(1);
      expect(valueOf(samples, 'persona_portal_live_sessions_open')).toBe(1);
      // The embedded worker's own series, served by the portal.
      expect(valueOf(samples, 'persona_worker_live_sessions')).toBe(1);
      expect(valueOf(samples, 'persona_worker_sessions_started_total', { resumed: 'false' })).toBe(1);
      expect(valueOf(samples, 'persona_worker_turns_total', { input: 'text', outcome: 'answered' })).toBeGreaterThanOrEqual(1);
      expect(valueOf(samples, 'persona_worker_turn_stage_seconds_count', { stage: 'llm_first_token' })).toBeGreaterThanOrEqual(1);
      expect(valueOf(samples, 'persona_worker_sessions_waiting', { stage: 'claim' })).toBe(0);
    } finally {
      page.send({ type: 'bye' });
      await page.waitClosed();
    }
    // The worker reports the end to the portal after closing the page's socket.
    await until(async () => valueOf((await scrape()).samples, 'persona_worker_sessions_ended_total', { code: 'hang-up' }) === 1, 8000, 'the end counted');
  });

  it("a separate worker serves its own /metrics on its listener: 404 without a token, 401 with a wrong one, its series and the process's with it", async () => {
    const off = await startSeparateWorker(base, 'metrics-off');
    workers.push(off);
    expect((await fetch(`http://127.0.0.1:${off.port}/metrics`, { headers: bearer(TOKEN) })).status).toBe(404);
    const on = await startSeparateWorker(base, 'metrics-on', { metricsToken: 'worker-token-0123456789' });
    workers.push(on);
    const url = `http://127.0.0.1:${on.port}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: bearer(TOKEN) })).status).toBe(401);
    const res = await fetch(url, { headers: bearer('worker-token-0123456789') });
    expect(res.status).toBe(200);
    const { samples } = parseExposition(await res.text());
    expect(valueOf(samples, 'persona_worker_live_sessions')).toBe(0);
    expect(valueOf(samples, 'persona_worker_capacity')).toBe(200);
    expect(valueOf(samples, 'persona_worker_sandbox_queue')).toBe(0);
    expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // Page sockets still work beside it.
    expect((await fetch(`http://127.0.0.1:${on.port}/`)).status).toBe(404);
  });
});
