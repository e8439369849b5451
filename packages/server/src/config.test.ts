import { describe, expect, it } from 'vitest';
import { LlmProviders, SttProviders, TtsProviders, type TLlmProviderId, type TLlmProviderRow, type TProviderRow } from '@persona/contract';
import { ConfigError, loadConfig, ZEnv } from './config.js';

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '0.0.0.0', allowRegistration: false, allowPrivateUrls: false, databaseUrl: undefined });
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.dataDir).toMatch(/data$/);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', ALLOW_REGISTRATION: 'maybe', ADMIN_EMAIL: 'nope', SECRET_KEY: 'short' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'DATABASE_URL', 'ALLOW_REGISTRATION', 'ADMIN_EMAIL', 'SECRET_KEY']) expect(problems).toContain(name);
    }
  });

  it('reads the provider hosts of the look-ups: public defaults, overrides, {region} for Azure', () => {
    const c = loadConfig({});
    expect(c.providers).toMatchObject({ openai: 'https://api.openai.com/v1', elevenlabs: 'https://api.elevenlabs.io', azureTts: 'https://{region}.tts.speech.microsoft.com', polly: undefined });
    expect(c.providerLookupTimeoutMs).toBe(8000);
    const o = loadConfig({ PROVIDER_ELEVENLABS_URL: 'http://gateway.internal:8080/eleven/', PROVIDER_AZURE_STT_URL: 'https://{region}.stt.sovereign.example', PROVIDER_LOOKUP_TIMEOUT_MS: '2500' });
    expect(o.providers.elevenlabs).toBe('http://gateway.internal:8080/eleven');
    expect(o.providers.azureStt).toBe('https://{region}.stt.sovereign.example');
    expect(o.providerLookupTimeoutMs).toBe(2500);
    expect(() => loadConfig({ PROVIDER_DEEPGRAM_URL: 'ftp://x' })).toThrow(/PROVIDER_DEEPGRAM_URL/);
    expect(() => loadConfig({ PROVIDER_AZURE_TTS_URL: 'not a url {region}' })).toThrow(/PROVIDER_AZURE_TTS_URL/);
  });

  it("reads the product's realtime key and URL for the embedded worker (ws or wss only)", () => {
    expect(loadConfig({}).realtimeOperator).toEqual({ apiKey: undefined, url: undefined });
    expect(loadConfig({ REALTIME_API_KEY: 'sk-op', REALTIME_URL: 'wss://gateway.example/v1/realtime' }).realtimeOperator).toEqual({ apiKey: 'sk-op', url: 'wss://gateway.example/v1/realtime' });
    expect(() => loadConfig({ REALTIME_URL: 'https://api.openai.com/v1/realtime' })).toThrow(/REALTIME_URL/);
  });

  it("reads the product's own voice and speech to text for the embedded worker and the Brain tab (PLATFORM_TTS_*, PLATFORM_STT_*)", () => {
    expect(loadConfig({})).toMatchObject({ platformTts: null, platformStt: null });
    const c = loadConfig({ PLATFORM_TTS_PROVIDER: 'polly', PLATFORM_TTS_API_KEY: 'AKID', PLATFORM_TTS_SECRET_KEY: 'secret', PLATFORM_TTS_REGION: 'eu-west-1', PLATFORM_STT_PROVIDER: 'azure', PLATFORM_STT_API_KEY: 'k', PLATFORM_STT_REGION: 'westeurope' });
    expect(c.platformTts).toEqual({ provider: 'polly', apiKey: 'AKID', secretKey: 'secret', region: 'eu-west-1', voice: 'Joanna (neural)' });
    expect(c.platformStt).toEqual({ provider: 'azure', apiKey: 'k', region: 'westeurope' });
    // Listed with the other bad variables, at start.
    try {
      loadConfig({ PORT: 'eighty', PLATFORM_TTS_PROVIDER: 'azure', PLATFORM_STT_PROVIDER: 'openai' });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        'PORT: Invalid input: expected number, received NaN',
        'PLATFORM_TTS_API_KEY: is required with azure',
        'PLATFORM_TTS_REGION: is required with azure',
        'PLATFORM_STT_URL: is required with openai',
      ]);
    }
  });

  it("gives the embedded worker's Conversational AI the ElevenLabs API base only when the operator set one", () => {
    expect(loadConfig({}).realtimeElevenLabs).toEqual({ baseUrl: undefined });
    expect(loadConfig({ PROVIDER_ELEVENLABS_URL: 'http://10.0.0.9:8080/eleven/' }).realtimeElevenLabs).toEqual({ baseUrl: 'http://10.0.0.9:8080/eleven' });
  });

  it("reads the listener's timeouts and per-address cap: none by default behind TRUST_PROXY, where every connection is the proxy's (issue 26)", () => {
    expect(loadConfig({}).connectionLimits).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 300_000, maxConnectionsPerIp: 256 });
    expect(loadConfig({ TRUST_PROXY: 'true' }).connectionLimits.maxConnectionsPerIp).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'true', MAX_CONNECTIONS_PER_IP: '2000' }).connectionLimits.maxConnectionsPerIp).toBe(2000);
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '60000', MAX_CONNECTIONS_PER_IP: '0' }).connectionLimits).toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 60_000, maxConnectionsPerIp: 0 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '70000', HTTP_REQUEST_TIMEOUT_MS: '60000' })).toThrow('HTTP_HEADERS_TIMEOUT_MS');
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_IP: '-1' })).toThrow(ConfigError);
  });

  it('reads booleans and strips a trailing slash from PUBLIC_URL', () => {
    const c = loadConfig({ ALLOW_REGISTRATION: 'true', ALLOW_PRIVATE_URLS: '1', PUBLIC_URL: 'https://studio.example.com/' });
    expect(c.allowRegistration).toBe(true);
    expect(c.allowPrivateUrls).toBe(true);
    expect(c.publicUrl).toBe('https://studio.example.com');
  });

  it('reads the worker websocket origins and the storage origin the pages may connect to', () => {
    const c = loadConfig({ WORKER_WS_ORIGINS: ' wss://avatars-1.example.com:8443/avatar-ws, ws://10.0.0.7:9000,wss://avatars-1.example.com:8443 ', STORAGE_URL: 's3://KEY:SECRET@files.example.com/bucket?region=eu-west-1' });
    expect(c.workerWsOrigins).toEqual(['wss://avatars-1.example.com:8443', 'ws://10.0.0.7:9000']);
    expect(c.storageOrigin).toBe('https://files.example.com');
    expect(loadConfig({ STORAGE_URL: 's3://K:S@127.0.0.1:9000/b?insecure=1' }).storageOrigin).toBe('http://127.0.0.1:9000');
    expect(loadConfig({}).workerWsOrigins).toEqual([]);
    expect(loadConfig({}).storageOrigin).toBeUndefined();
    for (const bad of ['https://avatars.example.com', 'wss://', '*', 'ws:', 'wss://user:pw@a.example.com']) {
      expect(() => loadConfig({ WORKER_WS_ORIGINS: bad }), bad).toThrow(/WORKER_WS_ORIGINS/);
    }
  });

  it('turns /metrics on with METRICS_TOKEN (16+ characters); unset or blank it is off', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '   ' }).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: ' scrape-token-0123456789 ' }).metricsToken).toBe('scrape-token-0123456789');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });

  it("reads each speech provider row's base-URL variable, with the row's default host", () => {
    const rows: readonly TProviderRow[] = [...SttProviders, ...TtsProviders];
    const named = rows.filter((r) => r.baseUrlEnv);
    expect(named.map((r) => r.baseUrlEnv)).toEqual(['PROVIDER_AZURE_STT_URL', 'PROVIDER_DEEPGRAM_URL', 'PROVIDER_POLLY_URL', 'PROVIDER_AZURE_TTS_URL', 'PROVIDER_ELEVENLABS_URL', 'PROVIDER_CARTESIA_URL', 'PROVIDER_NEUPHONIC_URL']);
    const defaults = Object.values(loadConfig({}).providers);
    for (const row of named) {
      expect(Object.keys(ZEnv.shape)).toContain(row.baseUrlEnv);
      if (row.defaultBaseUrl) expect(defaults).toContain(row.defaultBaseUrl);
      expect(Object.values(loadConfig({ [row.baseUrlEnv!]: 'https://gateway.example/p' }).providers)).toContain('https://gateway.example/p');
    }
  });

  it("reads each mapped LLM base URL row's variable into its look-up host, with the row's default host", () => {
    const named = (LlmProviders as readonly TLlmProviderRow[]).filter((r) => r.baseUrlEnv);
    expect(named.map((r) => r.baseUrlEnv)).toEqual(['PROVIDER_OPENAI_URL', 'PROVIDER_GROQ_URL', 'PROVIDER_GEMINI_URL']);
    for (const row of named) {
      const id = row.provider as TLlmProviderId;
      expect(loadConfig({}).providers[id]).toBe(row.defaultBaseUrl);
      expect(loadConfig({ [row.baseUrlEnv!]: 'https://gateway.example/p' }).providers[id]).toBe('https://gateway.example/p');
    }
  });
});
