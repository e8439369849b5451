import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { functionUsesNetwork } from '@persona/contract';
import { functionTemplates } from '../../../server/src/features/functions/templates.js';
import { createSandboxPool } from './pool.js';
import type { SandboxPool } from './types.js';
import { createFunctionTools } from './tool-runner.js';

// Sandbox processes take seconds to start on a busy two-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });

// Functions whose template needs the network, against a local fake of the service they call.
// The pool here allows private addresses (as a deployment may, for its own services): that is
// how a local server can stand in for a public one. sandbox.test.ts shows the default refusing.

const weather = functionTemplates.find((t) => t.id === 'weather')!;
let pool: SandboxPool;
let server: http.Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    seen.push(`${req.method} ${url.pathname}`);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // Open-Meteo's geocoding and forecast answers, as the weather template reads them.
    if (url.pathname === '/v1/search') {
      if (url.searchParams.get('name') === 'Paris') return json(200, { results: [{ name: 'Paris', country: 'France', latitude: 48.85, longitude: 2.35 }] });
      return json(200, {});
    }
    if (url.pathname === '/v1/forecast') {
      if (url.searchParams.get('temperature_unit') !== 'celsius' || url.searchParams.get('latitude') !== '48.85') return json(400, { error: true });
      return json(200, { current: { temperature_2m: 21.5, wind_speed_10m: 11.2, weather_code: 2 } });
    }
    if (url.pathname === '/moved') {
      res.writeHead(302, { location: '/echo' });
      return res.end();
    }
    if (url.pathname === '/loop') {
      res.writeHead(302, { location: '/loop' });
      return res.end();
    }
    if (url.pathname === '/echo') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => json(200, { method: req.method, body, type: req.headers['content-type'] ?? null }));
      return;
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Without the memory snapshot: every process loads Pyodide afresh (the fallback path).
  pool = createSandboxPool({ size: 1, snapshot: false, timeoutMs: 8000, outbound: { allowPrivateAddresses: true }, log: { warn: () => {}, error: () => {} } });
  await pool.ready();
});
afterAll(async () => {
  await pool.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const opts = { allowNetwork: true, isolationKey: 'network-tests' };

describe('functions that use the network', () => {
  it('runs the weather template through urllib and the outbound guard', async () => {
    expect(functionUsesNetwork({ template: weather.id })).toBe(true);
    expect(functionUsesNetwork({ template: 'example' })).toBe(false);
    expect(functionUsesNetwork({ template: null })).toBe(false);
    const code = weather.code.replaceAll('https://geocoding-api.open-meteo.com', base).replaceAll('https://api.open-meteo.com', base);
    const answer = await pool.call(code, 'get_weather', '{"city": "Paris"}', opts);
    expect(answer.ok).toBe(true);
    if (answer.ok) {
      expect(JSON.parse(answer.result)).toEqual({ place: 'Paris, France', temperature: 21.5, units: 'celsius', wind_speed_kmh: 11.2, conditions: 'partly cloudy' });
    }
    expect(await pool.call(code, 'get_weather', '{"city": "Atlantis"}', opts)).toEqual({ ok: true, truncated: false, result: '{"error": "I could not find a place called Atlantis."}' });
  });

  it('makes no request at all when the call does not allow the network', async () => {
    const before = seen.length;
    const answer = await pool.call(`import urllib.request\ndef f():\n    return urllib.request.urlopen("${base}/echo").read().decode()\n`, 'f', '{}', { isolationKey: 'network-tests' });
    expect(answer).toEqual({ ok: false, kind: 'raised', error: 'URLError: <urlopen error Network access is not allowed for this function.>' });
    expect(seen.length).toBe(before);
  });

  it('posts bodies, follows redirects one checked request at a time, and raises HTTP errors', async () => {
    const code = `import json, urllib.error, urllib.request
def send(path: str, payload: dict | None = None):
    data = json.dumps(payload).encode() if payload is not None else None
    req = urllib.request.Request("${base}" + path, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as response:
            return {"status": response.status, "url": response.url, "body": json.loads(response.read())}
    except urllib.error.HTTPError as exc:
        return {"status": exc.code, "reason": exc.reason}
`;
    const posted = await pool.call(code, 'send', JSON.stringify({ path: '/echo', payload: { a: 1 } }), opts);
    expect(posted.ok && JSON.parse(posted.result)).toEqual({ status: 200, url: `${base}/echo`, body: { method: 'POST', body: '{"a": 1}', type: 'application/json' } });
    const before = seen.length;
    const moved = await pool.call(code, 'send', '{"path": "/moved"}', opts);
    expect(moved.ok && JSON.parse(moved.result)).toEqual({ status: 200, url: `${base}/echo`, body: { method: 'GET', body: '', type: null } });
    expect(seen.slice(before)).toEqual(['GET /moved', 'GET /echo']);
    const missing = await pool.call(code, 'send', '{"path": "/nowhere"}', opts);
    expect(missing.ok && JSON.parse(missing.result)).toEqual({ status: 404, reason: 'Not Found' });
  });

  it('stops a function that keeps requesting at the per-call limit', async () => {
    const before = seen.length;
    const answer = await pool.call(`import urllib.request\ndef f():\n    return urllib.request.urlopen("${base}/loop").read().decode()\n`, 'f', '{}', opts);
    expect(answer.ok).toBe(false);
    expect(seen.length - before).toBeLessThanOrEqual(10);
  });
});

describe('the brains\' ToolRunner over the pool', () => {
  const log = { info: () => {}, warn: () => {}, error: () => {} };
  const split = functionTemplates.find((t) => t.id === 'example')!;

  it('offers the linked functions by entry name and runs them with their own network rule', async () => {
    const weatherCode = weather.code.replaceAll('https://geocoding-api.open-meteo.com', base).replaceAll('https://api.open-meteo.com', base);
    const runner = createFunctionTools({
      pool,
      isolationKey: 'user:1',
      log,
      functions: [
        { id: 1, name: 'get_weather.py', code: weatherCode, allowNetwork: true },
        { id: 2, name: 'split_bill', code: split.code, allowNetwork: false },
        { id: 3, name: 'broken', code: 'def broken(:\n    pass\n', allowNetwork: false },
        // Same code as the weather function, but not allowed on the network.
        { id: 4, name: 'get_weather_offline', code: weatherCode.replaceAll('def get_weather(', 'def get_weather_offline('), allowNetwork: false },
      ],
    });
    const tools = await runner.tools();
    expect(tools.map((t) => t.name)).toEqual(['get_weather', 'split_bill', 'get_weather_offline']);
    expect(tools[1]!.parameters).toMatchObject({ type: 'object', required: ['total'] });
    const signal = new AbortController().signal;
    const sunny = await runner.call('get_weather', '{"city": "Paris"}', signal);
    expect(sunny.ok && JSON.parse(sunny.result)).toMatchObject({ place: 'Paris, France', temperature: 21.5 });
    expect(await runner.call('split_bill', '{"total": 100, "people": 4}', signal)).toEqual({
      ok: true,
      result: '{"tip": 15.0, "total_with_tip": 115.0, "each_person_pays": 28.75, "people": 4}',
    });
    const before = seen.length;
    expect(await runner.call('get_weather_offline', '{"city": "Paris"}', signal)).toEqual({
      ok: false,
      error: 'URLError: <urlopen error Network access is not allowed for this function.>',
    });
    expect(seen.length).toBe(before);
    expect(await runner.call('broken', '{}', signal)).toEqual({ ok: false, error: 'There is no function named broken.' });
  });
});
