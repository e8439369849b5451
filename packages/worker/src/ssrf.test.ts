import type * as DnsModule from 'node:dns';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as IpRangesModule from '../../net/src/ip-ranges.js';
import { readLiveSpeech, type TLiveBrainConfig } from '@persona/contract';
import { createProviderBrain } from './brains/registry.js';
import { collect, sessionConfig, testDeps } from './test/brain-deps.js';
import { OWN_PUBLIC_ADDRESS, SSRF_PAYLOADS, startSsrfRig, type SsrfPayload, type SsrfTargets } from '../../net/src/test/ssrf-corpus.js';
import { connectOpenAiRealtime } from './providers/realtime/openai.js';
import { chooseStt, createSttEngine } from './providers/stt/choose.js';
import { chooseTts, createTtsEngine } from './speech/tts-choice.js';
import { createGuardedFetch, GuardedFetchError, openGuardedSocket, type GuardedFetch, type GuardedFetchHandle } from '@persona/net';

// Names resolve through the corpus's resolver (no network); the redirector's address, and only
// it, stands in for a public address. Every other address is judged by the production rule.
vi.mock('node:dns', async (importOriginal) => (await import('../../net/src/test/ssrf-corpus.js')).mockedDns(await importOriginal<typeof DnsModule>()));
vi.mock('../../net/src/ip-ranges.js', async (importOriginal) => (await import('../../net/src/test/ssrf-corpus.js')).withPublicStandIn(await importOriginal<typeof IpRangesModule>()));

let rig: Awaited<ReturnType<typeof startSsrfRig>>;
let t: SsrfTargets;
const handles: GuardedFetchHandle[] = [];

beforeAll(async () => {
  rig = await startSsrfRig();
  t = rig.targets;
});
afterAll(async () => {
  for (const h of handles.splice(0)) h.close();
  await rig.close();
});
afterEach(() => {
  // Zero, after every test: not one connection reached the canary.
  expect(rig.canary.hits).toEqual([]);
});

const REFUSED = new Set(['blocked', 'invalid']);

/** The session's guarded fetch in production mode (ALLOW_PRIVATE_URLS off), recording how each call ended. */
function productionFetch() {
  const inner = createGuardedFetch({ allowPrivate: false, timeoutMs: 3000 });
  handles.push(inner);
  const outcomes: string[] = [];
  const fetch: GuardedFetch = async (url, init) => {
    try {
      const res = await inner(url, init);
      outcomes.push(`answered ${res.status} (${res.url})`);
      return res;
    } catch (err) {
      outcomes.push(err instanceof GuardedFetchError ? err.kind : `other: ${String(err)}`);
      throw err;
    }
  };
  return { fetch, outcomes };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => 'no error',
    (e: unknown) => e,
  );
}

const label = (p: SsrfPayload) => `${p.group}: ${p.id} — ${p.url(t)}`;

describe('the SSRF corpus', () => {
  it('has at least 60 payloads over every kind of disguise, each aimed at the canary or a private address', () => {
    expect(SSRF_PAYLOADS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(SSRF_PAYLOADS.map((p) => p.id)).size).toBe(SSRF_PAYLOADS.length);
    const groups = new Set(SSRF_PAYLOADS.map((p) => p.group));
    for (const g of ['ipv4', 'ipv6', 'transition', 'self', 'parser', 'scheme', 'dns', 'redirect']) expect(groups).toContain(g);
  });

  it("refuses this machine's own addresses, whatever their range (every interface, as the classifier reads them)", async () => {
    const actual = await vi.importActual<typeof IpRangesModule>('../../net/src/ip-ranges.js');
    const { networkInterfaces } = await import('node:os');
    for (const infos of Object.values(networkInterfaces())) for (const info of infos ?? []) expect(actual.nonGlobalReason(info.address), info.address).not.toBeNull();
    // A public address on an interface (a VPS): refused for being this machine's, in any textual form.
    const vps = { eth0: [{ address: '2a01:4f8:c17:1::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6' as const, mac: '02:00:00:00:00:01', internal: false, cidr: '2a01:4f8:c17:1::1/64', scopeid: 0 }, { address: '203.0.113.0', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '02:00:00:00:00:01', internal: false, cidr: '203.0.113.0/24' }] };
    expect(actual.ownAddressReason('2a01:04f8:0c17:0001:0000:0000:0000:0001', vps)).toBe("this machine's own address");
    expect(actual.ownAddressReason('[2a01:4f8:c17:1::1]', vps)).toBe("this machine's own address");
    expect(actual.ownAddressReason('2a01:4f8:c17:1::2', vps)).toBeNull();
    expect(actual.ownAddressReason('8.8.8.8', vps)).toBeNull();
    expect(actual.nonGlobalReason('8.8.8.8')).toBeNull();
  });
});

describe('the rig', () => {
  it('is live: with private addresses allowed, loopback payloads of every kind do reach the canary (so zero hits below means refused)', async () => {
    const fetch = createGuardedFetch({ allowPrivate: true, timeoutMs: 2000 });
    handles.push(fetch);
    const live = ["this machine's own public address", "name → this machine's own public address", "302 → this machine's own public address", 'dotted loopback', 'decimal 2130706433', 'octal dotted 0177.0.0.1', 'hex short 0x7f.1', 'unspecified 0.0.0.0', 'loopback [::1]', 'IPv4-mapped [::ffff:127.0.0.1]', 'backslash 127.0.0.1\\@public', 'localhost', 'name → ::ffff:127.0.0.1', 'name → public and 127.0.0.1', '302 → 127.0.0.1', '302 → 307 → 127.0.0.1 (chain)', '303 → localhost'];
    for (const id of live) {
      const p = SSRF_PAYLOADS.find((x) => x.id === id)!;
      const before = rig.canary.hits.length;
      await fetch(p.url(t)).then(
        (res) => res.arrayBuffer(),
        () => null,
      );
      expect(rig.canary.hits.length, id).toBeGreaterThan(before);
    }
    // Judged by its range alone, this machine's public address is reachable: only the own-address rule refuses it.
    const rangesOnly = createGuardedFetch({ allowPrivate: false, timeoutMs: 2000, nonGlobalReason: (a) => (a === OWN_PUBLIC_ADDRESS ? null : 'private') });
    handles.push(rangesOnly);
    const before = rig.canary.hits.length;
    await (await rangesOnly(`http://${OWN_PUBLIC_ADDRESS}:${t.port}/`)).arrayBuffer();
    expect(rig.canary.hits.length).toBeGreaterThan(before);
    rig.canary.hits.length = 0;
  });
});

describe('the guarded fetch and socket, production mode, every payload', () => {
  it.each(['GET', 'POST'])('%s: refused with the expected kind', async (method) => {
    const fetch = createGuardedFetch({ allowPrivate: false, timeoutMs: 3000 });
    handles.push(fetch);
    const redirectorBefore = rig.redirector.hits.length;
    for (const p of SSRF_PAYLOADS) {
      const err = await failure(fetch(p.url(t), { method, ...(method === 'POST' ? { body: '{"x":1}', headers: { 'content-type': 'application/json', authorization: 'Bearer k' } } : {}) }));
      expect(err, label(p)).toBeInstanceOf(GuardedFetchError);
      expect((err as GuardedFetchError).kind, `${label(p)}: ${(err as Error).message}`).toBe(p.refusal);
    }
    // The redirect payloads did reach the "public" redirector (so the hop was really refused).
    expect(rig.redirector.hits.length - redirectorBefore).toBeGreaterThanOrEqual(SSRF_PAYLOADS.filter((p) => p.stage === 'redirect').length);
  });

  it("the functions' bridge (redirect: 'manual', each hop a new guarded request) refuses every hop to the canary", async () => {
    const fetch = createGuardedFetch({ allowPrivate: false, timeoutMs: 3000 });
    handles.push(fetch);
    for (const p of SSRF_PAYLOADS) {
      let url = p.url(t);
      let err: unknown = null;
      // What urllib does with a 3xx the bridge hands back: request the Location, at most 5 times.
      for (let hop = 0; hop < 5 && !err; hop++) {
        const res = await fetch(url, { redirect: 'manual' }).catch((e: unknown) => ((err = e), null));
        if (!res) break;
        await res.arrayBuffer();
        const location = res.headers.get('location');
        expect(location, `${label(p)} answered ${res.status}`).toBeTruthy();
        url = new URL(location!, url).toString();
      }
      expect(err, label(p)).toBeInstanceOf(GuardedFetchError);
      expect((err as GuardedFetchError).kind, label(p)).toBe(p.refusal);
    }
  });

  it('the guarded WebSocket (realtime URL) opens no socket to the canary, as ws:// or http://', async () => {
    for (const p of SSRF_PAYLOADS) {
      for (const url of [p.url(t), p.url(t).replace(/^(\s*)http/i, '$1ws')]) {
        const outcome = await new Promise<string>((resolve) => {
          let ws: ReturnType<typeof openGuardedSocket>;
          try {
            ws = openGuardedSocket(url, { allowPrivate: false });
          } catch (err) {
            return resolve(err instanceof GuardedFetchError ? err.kind : `other: ${String(err)}`);
          }
          ws.once('open', () => {
            ws.terminate();
            resolve('open');
          });
          ws.once('error', (err) => resolve(err instanceof GuardedFetchError ? err.kind : /Unexpected server response: 30\d/.test(err.message) ? 'redirect refused' : `error: ${err.message}`));
        });
        const expected = p.stage === 'redirect' ? 'redirect refused' : p.refusal;
        expect(outcome, `${label(p)} as ${url}`).toBe(expected);
      }
    }
  });
});

// ── The worker's clients, with the URL where it enters: the session's configuration ──

const sessionFetch = () => productionFetch();

/** Every call the client made through the guarded fetch was refused (none answered, none failed otherwise). */
function expectRefused(p: SsrfPayload, outcomes: string[], err: unknown) {
  expect(err, label(p)).not.toBe('no error');
  for (const o of outcomes) expect(REFUSED.has(o), `${label(p)}: ${outcomes.join(', ')}`).toBe(true);
}

async function brainRun(brain: TLiveBrainConfig, kick: 'start' | 'reply') {
  const { fetch, outcomes } = sessionFetch();
  const deps = { ...testDeps(sessionConfig(brain, { allowPrivateUrls: false })), fetch: fetch as GuardedFetchHandle };
  const b = createProviderBrain(deps, { requestTimeoutMs: 3000 })!;
  expect(b).not.toBeNull();
  const signal = new AbortController().signal;
  const err = await failure(kick === 'start' ? Promise.resolve(b.start?.(signal)) : collect(b, 'hello'));
  return { outcomes, err };
}

describe("the worker's clients, production mode, every payload", () => {
  it('REST brain (restEndPointURL)', async () => {
    for (const p of SSRF_PAYLOADS) {
      const { outcomes, err } = await brainRun({ kind: 'rest', url: p.url(t), apiKey: 'rest-key', customText: '', agentLanguage: 'en', sendChatHistory: false }, 'start');
      expectRefused(p, outcomes, err);
    }
  });

  it('LLM brain (custom LLM base URL)', async () => {
    for (const p of SSRF_PAYLOADS) {
      const { outcomes, err } = await brainRun({ kind: 'llm', baseUrl: p.url(t), apiKey: 'sk-test', model: 'gpt-4o-mini', instructions: 'Be brief.', maxTokens: null, platform: false }, 'reply');
      expectRefused(p, outcomes, err);
    }
  });

  it('Assistant brain (its base URL)', async () => {
    for (const p of SSRF_PAYLOADS) {
      const { outcomes, err } = await brainRun({ kind: 'assistant', baseUrl: p.url(t), apiKey: 'sk-test', assistantId: 'asst_1', instructions: '', maxTokens: null }, 'reply');
      expectRefused(p, outcomes, err);
    }
  });

  it("Dialogflow brain (the service account's token_uri)", async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    for (const p of SSRF_PAYLOADS) {
      const serviceAccountJson = JSON.stringify({ type: 'service_account', project_id: 'p', private_key_id: 'k', private_key: pem, client_email: 'bot@p.iam.gserviceaccount.com', token_uri: p.url(t) });
      const { outcomes, err } = await brainRun({ kind: 'dialogflow', version: 'es', projectId: 'p', agentId: '', regionId: 'global', language: 'en', serviceAccountJson }, 'reply');
      expectRefused(p, outcomes, err);
      expect(outcomes.length, label(p)).toBeGreaterThan(0);
    }
  });

  it('OpenAI-compatible speech to text (stt.base_url)', async () => {
    for (const p of SSRF_PAYLOADS) {
      const { fetch, outcomes } = sessionFetch();
      const choice = chooseStt({ setupMode: 1, stt: readLiveSpeech({ stt: { provider: 'openai', api_key: 'k', base_url: p.url(t) } }, { keys: true }).stt });
      expect(choice.kind).toBe('network');
      const stt = createSttEngine(choice, { offline: null, fetch, operatorFetch: () => Promise.reject(new Error('the operator fetch was used')) })!;
      const errors: Error[] = [];
      const err = await failure(
        (async () => {
          const session = await stt.open({ languages: ['en-US'], interim: false, sampleRate: 16_000, signal: new AbortController().signal }, { onResult() {}, onError: (e) => errors.push(e) });
          session.push(new Int16Array(3200).fill(1000));
          await session.finalize();
          session.close();
          if (errors.length) throw errors[0]!;
        })(),
      );
      expectRefused(p, outcomes, err);
    }
  });

  it('OpenAI-compatible text to speech (tts.base_url)', async () => {
    for (const p of SSRF_PAYLOADS) {
      const { fetch, outcomes } = sessionFetch();
      const choice = chooseTts({ setupMode: 1, tts: readLiveSpeech({ tts: { provider: 'openai', api_key: 'k', base_url: p.url(t) } }, { keys: true }).tts });
      expect(choice.kind).toBe('openai');
      const tts = createTtsEngine(choice, { fetch, operatorFetch: () => Promise.reject(new Error('the operator fetch was used')), offline: null as never })!;
      const err = await failure(
        (async () => {
          for await (const chunk of tts.synthesize('Hello there.', { signal: new AbortController().signal })) void chunk;
        })(),
      );
      expectRefused(p, outcomes, err);
    }
  });

  it('realtime (speech_to_speech.url, a WebSocket)', async () => {
    for (const p of SSRF_PAYLOADS) {
      const err = await failure(
        connectOpenAiRealtime(
          {
            url: p.url(t),
            apiKey: 'sk-realtime',
            model: 'gpt-realtime',
            voice: 'alloy',
            instructions: '',
            vad: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 },
            allowPrivate: false,
            connectTimeoutMs: 3000,
          },
          () => {},
          new AbortController().signal,
        ),
      );
      expect(err, label(p)).toBeInstanceOf(Error);
      expect((err as Error).message, label(p)).not.toMatch(/timed out/);
    }
  });
});
