import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config.js';

const env = { WORKER_SECRET: 'a-worker-secret-of-some-length' };
const flags = { server: 'https://portal.example' };

describe('loadWorkerConfig', () => {
  it("reads the product's realtime key and URL (ws or wss only)", () => {
    expect(loadWorkerConfig(env, flags)).toMatchObject({ realtimeApiKey: undefined, realtimeUrl: undefined });
    expect(loadWorkerConfig({ ...env, REALTIME_API_KEY: ' sk-op ', REALTIME_URL: 'wss://gateway.example/v1/realtime' }, flags)).toMatchObject({ realtimeApiKey: 'sk-op', realtimeUrl: 'wss://gateway.example/v1/realtime' });
    expect(() => loadWorkerConfig({ ...env, REALTIME_URL: 'https://api.openai.com/v1/realtime' }, flags)).toThrow('REALTIME_URL must be ws(s)://');
  });

  it("reads the ElevenLabs API base of Conversational AI from the server's variable name (http or https)", () => {
    expect(loadWorkerConfig(env, flags).elevenLabsUrl).toBeUndefined();
    expect(loadWorkerConfig({ ...env, PROVIDER_ELEVENLABS_URL: '  ' }, flags).elevenLabsUrl).toBeUndefined();
    // An operator's gateway, on a private address too; without its trailing slash.
    expect(loadWorkerConfig({ ...env, PROVIDER_ELEVENLABS_URL: 'http://10.0.0.9:8080/eleven/' }, flags).elevenLabsUrl).toBe('http://10.0.0.9:8080/eleven');
    expect(loadWorkerConfig({ ...env, PROVIDER_ELEVENLABS_URL: 'https://api.elevenlabs.io' }, flags).elevenLabsUrl).toBe('https://api.elevenlabs.io');
    for (const bad of ['wss://api.elevenlabs.io', 'api.elevenlabs.io', 'ftp://gateway.example']) {
      expect(() => loadWorkerConfig({ ...env, PROVIDER_ELEVENLABS_URL: bad }, flags), bad).toThrow('PROVIDER_ELEVENLABS_URL must be http(s)://');
    }
  });

  it("reads its listener's timeouts and per-address cap from the portal's variable names (issue 26)", () => {
    expect(loadWorkerConfig(env, flags)).toMatchObject({ headersTimeoutMs: 20_000, requestTimeoutMs: 300_000, maxConnectionsPerIp: 256 });
    expect(loadWorkerConfig({ ...env, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '60000', MAX_CONNECTIONS_PER_IP: '0' }, flags)).toMatchObject({ headersTimeoutMs: 5000, requestTimeoutMs: 60_000, maxConnectionsPerIp: 0 });
    expect(() => loadWorkerConfig({ ...env, HTTP_HEADERS_TIMEOUT_MS: '70000', HTTP_REQUEST_TIMEOUT_MS: '60000' }, flags)).toThrow('HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS');
    expect(() => loadWorkerConfig({ ...env, MAX_CONNECTIONS_PER_IP: '-1' }, flags)).toThrow('MAX_CONNECTIONS_PER_IP must be at least 0');
  });

  it('takes one portal URL or every instance, comma-separated, each http(s)', () => {
    expect(loadWorkerConfig(env, flags).serverUrls).toEqual(['https://portal.example']);
    expect(loadWorkerConfig(env, { server: ' http://127.0.0.1:3000 , https://b.example ,' }).serverUrls).toEqual(['http://127.0.0.1:3000', 'https://b.example']);
    expect(loadWorkerConfig({ ...env, WORKER_SERVER_URL: 'https://a:1,https://b:2' }, {}).serverUrls).toEqual(['https://a:1', 'https://b:2']);
    expect(() => loadWorkerConfig(env, { server: 'https://a:3000,ws://b:1' })).toThrow('must be http(s)://');
    expect(() => loadWorkerConfig(env, { server: ' , ' })).toThrow('the server URL (--server) is required');
    expect(() => loadWorkerConfig(env, {})).toThrow('the server URL (--server) is required');
  });

  it('refuses an http:// portal URL that is not this machine: the credential and the keys would travel in clear (issue 26)', () => {
    for (const ok of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://127.8.9.10', 'http://[::1]:3000', 'http://studio.localhost:3000', 'https://portal.example', 'https://10.0.0.5:3000']) {
      expect(loadWorkerConfig(env, { server: ok }).serverUrls, ok).toEqual([ok.replace(/\/$/, '')]);
    }
    for (const bad of ['http://portal:3000', 'http://portal.example.com', 'http://10.0.0.5:3000', 'http://192.168.1.2', 'http://[2001:db8::1]:3000', 'http://localhost.example.com', 'http://127.0.0.1.nip.io']) {
      expect(() => loadWorkerConfig(env, { server: bad }), bad).toThrow('must be https:// unless it is this machine');
    }
    // One of several is enough to refuse.
    expect(() => loadWorkerConfig(env, { server: 'https://a.example,http://b.internal:3000' })).toThrow('http://b.internal:3000 would carry');
  });

  it('takes its own credential (WORKER_CREDENTIAL), the shared secret to enrol, or both; neither is refused (ADR 086)', () => {
    expect(loadWorkerConfig({ WORKER_CREDENTIAL: 'pswk_0123456789abcdef' }, flags)).toMatchObject({ credential: 'pswk_0123456789abcdef', secret: undefined });
    expect(loadWorkerConfig(env, flags)).toMatchObject({ credential: undefined, secret: env.WORKER_SECRET });
    expect(() => loadWorkerConfig({}, flags)).toThrow('WORKER_CREDENTIAL (its own credential) or WORKER_SECRET (to enrol) is required');
  });

  it('reads how many pocketsphinx processes it may run (unset: the runtime chooses)', () => {
    expect(loadWorkerConfig(env, flags).sttProcesses).toBeUndefined();
    expect(loadWorkerConfig({ ...env, WORKER_STT_PROCESSES: ' 3 ' }, flags).sttProcesses).toBe(3);
    for (const [bad, message] of [['0', 'at least 1'], ['1.5', 'a whole number'], ['many', 'a number']]) {
      expect(() => loadWorkerConfig({ ...env, WORKER_STT_PROCESSES: bad }, flags), bad).toThrow(`WORKER_STT_PROCESSES must be ${message}`);
    }
  });

  it("suppresses noise in the visitors' audio unless WORKER_NOISE_SUPPRESSION is off (ADR 096)", () => {
    expect(loadWorkerConfig(env, flags).noiseSuppression).toBe(true);
    expect(loadWorkerConfig({ ...env, WORKER_NOISE_SUPPRESSION: ' OFF ' }, flags).noiseSuppression).toBe(false);
    expect(loadWorkerConfig({ ...env, WORKER_NOISE_SUPPRESSION: 'on' }, flags).noiseSuppression).toBe(true);
    expect(() => loadWorkerConfig({ ...env, WORKER_NOISE_SUPPRESSION: 'maybe' }, flags)).toThrow('WORKER_NOISE_SUPPRESSION must be on or off');
  });

  it("cancels the avatar's echo in the visitors' audio unless WORKER_ECHO_CANCELLATION is off (ADR 103)", () => {
    expect(loadWorkerConfig(env, flags).echoCancellation).toBe(true);
    expect(loadWorkerConfig({ ...env, WORKER_ECHO_CANCELLATION: ' Off' }, flags).echoCancellation).toBe(false);
    expect(() => loadWorkerConfig({ ...env, WORKER_ECHO_CANCELLATION: 'no' }, flags)).toThrow('WORKER_ECHO_CANCELLATION must be on or off');
  });

  it('gives each avatar its own offline language model when WORKER_STT_AVATAR_MODELS is on (off by default), cached in WORKER_STT_MODEL_DIR (ADR 105)', () => {
    expect(loadWorkerConfig(env, flags)).toMatchObject({ sttAvatarModels: false, sttModelDir: undefined });
    expect(loadWorkerConfig({ ...env, WORKER_STT_AVATAR_MODELS: 'on' }, flags)).toMatchObject({ sttAvatarModels: true });
    expect(loadWorkerConfig({ ...env, WORKER_STT_AVATAR_MODELS: 'OFF', WORKER_STT_MODEL_DIR: ' /var/cache/stt ' }, flags)).toMatchObject({ sttAvatarModels: false, sttModelDir: '/var/cache/stt' });
    expect(() => loadWorkerConfig({ ...env, WORKER_STT_AVATAR_MODELS: 'yes' }, flags)).toThrow('WORKER_STT_AVATAR_MODELS must be on or off');
  });

  it('hears speech over the avatar with its own model when WORKER_STT_OVER_AVATAR is on (off by default; ADR 107)', () => {
    expect(loadWorkerConfig(env, flags)).toMatchObject({ sttOverAvatarModel: false });
    expect(loadWorkerConfig({ ...env, WORKER_STT_OVER_AVATAR: ' On ' }, flags)).toMatchObject({ sttOverAvatarModel: true });
    expect(() => loadWorkerConfig({ ...env, WORKER_STT_OVER_AVATAR: 'maybe' }, flags)).toThrow('WORKER_STT_OVER_AVATAR must be on or off');
  });

  it("reads the product's own voice and speech to text (PLATFORM_TTS_*, PLATFORM_STT_*: the portal's names), and refuses a half-configured one", () => {
    expect(loadWorkerConfig(env, flags)).toMatchObject({ platformTts: null, platformStt: null });
    const config = loadWorkerConfig(
      { ...env, PLATFORM_TTS_PROVIDER: 'azure', PLATFORM_TTS_API_KEY: 'az', PLATFORM_TTS_REGION: 'westeurope', PLATFORM_STT_PROVIDER: 'deepgram', PLATFORM_STT_API_KEY: 'dg' },
      flags,
    );
    expect(config.platformTts).toEqual({ provider: 'azure', apiKey: 'az', region: 'westeurope', voice: 'en-US-JennyNeural' });
    expect(config.platformStt).toEqual({ provider: 'deepgram', apiKey: 'dg' });
    expect(() => loadWorkerConfig({ ...env, PLATFORM_TTS_PROVIDER: 'polly', PLATFORM_TTS_API_KEY: 'AKID' }, flags)).toThrow('PLATFORM_TTS_SECRET_KEY: is required with polly');
    expect(() => loadWorkerConfig({ ...env, PLATFORM_STT_PROVIDER: 'watson' }, flags)).toThrow('PLATFORM_STT_PROVIDER: must be one of');
  });

  it('lists every bad setting at once', () => {
    expect(() => loadWorkerConfig({ WORKER_SECRET: 'short', REALTIME_URL: 'http://x', PROVIDER_ELEVENLABS_URL: 'ws://x', PLATFORM_TTS_PROVIDER: 'azure' }, flags)).toThrow(
      /WORKER_SECRET must be at least 16 characters[\s\S]*REALTIME_URL[\s\S]*PROVIDER_ELEVENLABS_URL[\s\S]*PLATFORM_TTS_API_KEY/,
    );
  });
});
