// The worker's metrics (issue 16, ADR 076): a conversation's turns, per-stage latencies and
// provider errors land in the worker's registry; the bearer check is exact; METRICS_TOKEN is read.
import { describe, expect, it } from 'vitest';
import { AudioFrameKind, writeAudioFrame, type TWorkerFrame } from '@persona/contract';
import { ProviderError } from '../core/errors.js';
import type { Brain } from '../brains/types.js';
import { loadWorkerConfig } from '../config.js';
import { TURN_DEFAULTS, type TurnOptions } from '../listening/options.js';
import type { VadStream } from '../listening/vad.js';
import type { SttEngine } from '../providers/stt/types.js';
import { createSpeechPipeline } from '../speech/pipeline.js';
import { sessionConfig } from '../test/brain-deps.js';
import { scriptedTts } from '../test/scripted-tts.js';
import { Conversation, type PageSocket } from './conversation.js';
import { createWorkerMetrics, metricsAuthorized, type WorkerMetrics } from './metrics.js';
import { until } from '../test/until.js';

function fakeSocket() {
  const frames: TWorkerFrame[] = [];
  let closed = false;
  const socket: PageSocket & { frames: TWorkerFrame[] } = {
    frames,
    send: (data) => frames.push(JSON.parse(data) as TWorkerFrame),
    sendBinary: () => undefined,
    close: () => (closed = true),
    get isOpen() {
      return !closed;
    },
  };
  return socket;
}
const portal = { heartbeat: async () => ({ echo: false, end: null }), history: async () => undefined, end: async () => undefined };
const log = { info() {}, warn() {}, error() {} };
const finals = (s: { frames: TWorkerFrame[] }) => s.frames.filter((f) => f.type === 'assistant' && f.final).length;

/** A series' value from the registry (prom-client's own reading of it); `series` picks a histogram's _count or _sum. */
async function value(metrics: WorkerMetrics, name: string, labels: Record<string, string> = {}, series?: string): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values.find((v) => Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want) && (series === undefined || (v as { metricName?: string }).metricName === series))?.value;
}
const count = (metrics: WorkerMetrics, stage: string) => value(metrics, 'persona_worker_turn_stage_seconds', { stage }, 'persona_worker_turn_stage_seconds_count');

// Scripted listening (as listening.test.ts): loud windows are speech, the STT answers a script.
const levelVad: VadStream = { probability: async (w) => (w.reduce((m, x) => Math.max(m, Math.abs(x)), 0) > 0.05 ? 0.95 : 0.02), reset: () => undefined };
function scriptedStt(texts: string[]): SttEngine {
  return {
    provider: 'scripted',
    mode: 'batch',
    async open(_o, events) {
      let samples = 0;
      return {
        push: (pcm) => void (samples += pcm.length),
        async finalize() {
          if (!samples) return;
          samples = 0;
          events.onResult({ text: texts.shift() ?? '', final: true });
        },
        reset: () => void (samples = 0),
        close: () => undefined,
      };
    },
  };
}
async function sendMic(c: Conversation, pcm: Int16Array, seq: { n: number }) {
  for (let at = 0; at < pcm.length; at += 320) {
    const part = pcm.slice(at, at + 320);
    c.onAudio(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: seq.n++ }, new Uint8Array(part.buffer)));
    if ((at / 320) % 10 === 9) await new Promise((r) => setTimeout(r, 1));
  }
}
const tone = (ms: number) => Int16Array.from({ length: (ms * 16) | 0 }, (_, i) => Math.round(8000 * Math.sin(i / 3)));
const silence = (ms: number) => new Int16Array((ms * 16) | 0);

describe("the worker's metrics", () => {
  it('a typed turn counts as answered with its time to first token; a spoken one observes every stage', async () => {
    const metrics = createWorkerMetrics();
    const brain: Brain = {
      kind: 'test',
      async *reply(turn) {
        await new Promise((r) => setTimeout(r, 20));
        yield { type: 'text', delta: `you said ${turn.text}` };
      },
    };
    const options: TurnOptions = { ...TURN_DEFAULTS, minSilenceMs: 160, minEndpointingMs: 100, echoGuardMs: 0, earlyTranscriptMs: 100 };
    const c = new Conversation({
      config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' }, textOnly: false }),
      brain,
      speech: createSpeechPipeline({ tts: scriptedTts({ chunks: 2 }) }),
      portal,
      log,
      listening: { stt: scriptedStt(['what time is it']), vad: levelVad, options },
      micOn: true,
      metrics: metrics.conversation,
    });
    const s = fakeSocket();
    c.attach(s);
    // Spoken first (a typed answer still "playing" would make the speech an interruption attempt).
    const seq = { n: 0 };
    await sendMic(c, tone(400), seq);
    await sendMic(c, silence(500), seq);
    await until(() => c.metrics.length === 1);
    expect(await value(metrics, 'persona_worker_turns_total', { input: 'voice', outcome: 'answered' })).toBe(1);
    for (const stage of ['end_of_utterance', 'stt', 'llm_first_token', 'tts_first_byte', 'end_to_end']) expect(await count(metrics, stage), stage).toBe(1);
    // The histogram's sum is the figures the conversation kept, in seconds.
    const e2e = await value(metrics, 'persona_worker_turn_stage_seconds', { stage: 'end_to_end' }, 'persona_worker_turn_stage_seconds_sum');
    expect(e2e).toBeCloseTo(c.metrics[0]!.endToEndMs! / 1000, 3);

    c.onMessage(JSON.stringify({ type: 'text', text: 'hello' }));
    await until(() => finals(s) === 2);
    // The turn is counted as it ends, just before its 'listening': the one after the typed answer's
    // final frame (an earlier 'listening' may belong to the spoken turn's voice ending).
    const typedFinal = s.frames.findLastIndex((f) => f.type === 'assistant' && f.final === true);
    await until(() => s.frames.some((f, i) => i > typedFinal && f.type === 'state' && f.state === 'listening'));
    expect(await value(metrics, 'persona_worker_turns_total', { input: 'text', outcome: 'answered' })).toBe(1);
    // A typed turn has a time to first token, and no speech stages.
    expect(await count(metrics, 'llm_first_token')).toBe(2);
    expect(await count(metrics, 'end_to_end')).toBe(1);
    await c.finish('hang-up');
  });

  it('a provider error counts by provider and phase, and the turn as failed', async () => {
    const metrics = createWorkerMetrics();
    const failing: Brain = {
      kind: 'test',
      // eslint-disable-next-line require-yield
      async *reply() {
        throw new ProviderError('openai-compatible', 'HTTP 503', 503);
      },
    };
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain: failing, portal, log, metrics: metrics.conversation });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello' }));
    c.onMessage(JSON.stringify({ type: 'text', text: 'again' }));
    await until(() => finals(s) === 2);
    expect(await value(metrics, 'persona_worker_provider_errors_total', { provider: 'openai-compatible', phase: 'reply' })).toBe(2);
    expect(await value(metrics, 'persona_worker_turns_total', { input: 'text', outcome: 'failed' })).toBe(2);
    await c.finish('hang-up');
  });

  it("reads the runtime's gauges and the sandbox's counts when scraped; the text has HELP and TYPE lines", async () => {
    const metrics = createWorkerMetrics();
    metrics.observe({
      sessions: () => 3,
      capacity: 10,
      waiting: () => ({ hello: 2, claim: 1 }),
      sandbox: () => ({ processes: 2, starting: 0, idle: 1, busy: 1, queued: 4, started: 5, kills: { timeout: 2, memory: 1, crashed: 0, aborted: 0 }, busyRefusals: 6 }),
    });
    metrics.socketRefused('ticket-invalid');
    const text = await metrics.registry.metrics();
    expect(text).toContain('# HELP persona_worker_live_sessions Live sessions running on this worker.\n# TYPE persona_worker_live_sessions gauge\npersona_worker_live_sessions 3\n');
    expect(text).toContain('persona_worker_sessions_waiting{stage="hello"} 2\n');
    expect(text).toContain('# TYPE persona_worker_sandbox_kills_total counter\npersona_worker_sandbox_kills_total{reason="timeout"} 2\npersona_worker_sandbox_kills_total{reason="memory"} 1\n');
    expect(text).toContain('persona_worker_sandbox_busy_total 6\n');
    expect(text).toContain('persona_worker_sandbox_queue 4\n');
    expect(text).toContain('persona_worker_sockets_refused_total{code="ticket-invalid"} 1\n');
    // Scraped twice, cumulative counts are not added twice.
    expect(await metrics.registry.metrics()).toContain('persona_worker_sandbox_kills_total{reason="timeout"} 2\n');
    // A label value is escaped (quotes, backslashes, newlines).
    metrics.conversation.providerError('weird"\\\nprovider', 'reply');
    expect(await metrics.registry.metrics()).toContain('persona_worker_provider_errors_total{provider="weird\\"\\\\\\nprovider",phase="reply"} 1\n');
    // No process metrics unless asked (the embedded worker shares the portal's process).
    expect(text).not.toContain('process_cpu_user_seconds_total');
    metrics.withProcessMetrics();
    expect(await metrics.registry.metrics()).toContain('process_cpu_user_seconds_total');
  });

  it('takes exactly `Bearer <token>`', () => {
    const token = 'scrape-token-0123456789';
    expect(metricsAuthorized(`Bearer ${token}`, token)).toBe(true);
    expect(metricsAuthorized(`bearer  ${token}`, token)).toBe(true);
    for (const header of [undefined, '', 'Bearer', 'Bearer ', `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token, `Bearer ${token.toUpperCase()}`]) {
      expect(metricsAuthorized(header, token), String(header)).toBe(false);
    }
  });

  it('reads METRICS_TOKEN (16+ characters; blank: off)', () => {
    const env = { WORKER_SECRET: 'a-worker-secret-of-some-length' };
    const flags = { server: 'https://portal.example' };
    expect(loadWorkerConfig(env, flags).metricsToken).toBeUndefined();
    expect(loadWorkerConfig({ ...env, METRICS_TOKEN: '  ' }, flags).metricsToken).toBeUndefined();
    expect(loadWorkerConfig({ ...env, METRICS_TOKEN: ' scrape-token-0123456789 ' }, flags).metricsToken).toBe('scrape-token-0123456789');
    expect(() => loadWorkerConfig({ ...env, METRICS_TOKEN: 'short' }, flags)).toThrow('METRICS_TOKEN must be at least 16 characters');
  });
});
