import type * as DnsModule from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as IpRangesModule from '../../../net/src/ip-ranges.js';
import { createGuardedFetch } from '@persona/net';
import { SSRF_PAYLOADS, startSsrfRig } from '../../../net/src/test/ssrf-corpus.js';
import { createSandboxPool } from './pool.js';
import type { SandboxPool } from './types.js';

// Names resolve through the corpus's resolver (no network); the redirector's address, and only
// it, stands in for a public address (see test/ssrf-corpus.ts).
vi.mock('node:dns', async (importOriginal) => (await import('../../../net/src/test/ssrf-corpus.js')).mockedDns(await importOriginal<typeof DnsModule>()));
vi.mock('../../../net/src/ip-ranges.js', async (importOriginal) => (await import('../../../net/src/test/ssrf-corpus.js')).withPublicStandIn(await importOriginal<typeof IpRangesModule>()));

// One sandbox process (Pyodide) for the whole file: it takes a few seconds to start.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let pool: SandboxPool;
let rig: Awaited<ReturnType<typeof startSsrfRig>>;

beforeAll(async () => {
  rig = await startSsrfRig();
  pool = createSandboxPool({ size: 1, snapshot: false, timeoutMs: 30_000, outbound: { maxRequestsPerCall: 1000, timeoutMs: 3000 }, log: { warn: () => {}, error: () => {} } });
  await pool.ready();
});
afterAll(async () => {
  await pool?.close();
  await rig?.close();
});

describe("the functions' network helper (urllib in the sandbox), production mode", () => {
  it('every payload fails inside the function, and the canary sees nothing', async () => {
    const code = `import json, urllib.request
def probe(urls: list) -> str:
    out = []
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=3) as r:
                out.append("answered %s %s" % (r.status, r.url))
        except Exception as exc:
            out.append("refused: %s: %s" % (type(exc).__name__, exc))
    return json.dumps(out)
`;
    const urls = SSRF_PAYLOADS.map((p) => p.url(rig.targets));
    const fetch = createGuardedFetch({ allowPrivate: false, timeoutMs: 3000 });
    try {
      const answer = await pool.call(code, 'probe', JSON.stringify({ urls }), { allowNetwork: true, fetch, isolationKey: 'ssrf' });
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
      const outcomes = JSON.parse(answer.ok ? answer.result : '[]') as string[];
      expect(outcomes).toHaveLength(urls.length);
      SSRF_PAYLOADS.forEach((p, i) => {
        // data: URLs are decoded by urllib itself (no request, no network); everything else fails.
        if (p.id === 'data: URL') return;
        expect(outcomes[i], `${p.group}: ${p.id} — ${urls[i]}`).toMatch(/^refused: /);
      });
      expect(rig.canary.hits).toEqual([]);
      // The redirects were requested from the "public" redirector, so their hop was really refused.
      expect(rig.redirector.hits.length).toBeGreaterThanOrEqual(SSRF_PAYLOADS.filter((p) => p.stage === 'redirect').length);
    } finally {
      fetch.close();
    }
  });
});
