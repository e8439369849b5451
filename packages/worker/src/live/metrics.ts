import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TLiveVoiceTurnMetrics } from '@persona/contract';
import type { SandboxPoolStats } from '../sandbox/types.js';

/**
 * Prometheus metrics (ADR 076): prom-client's registry and text exposition format. The
 * portal and every worker serve `GET /metrics` when `METRICS_TOKEN` is set (404 otherwise), to a
 * scraper that sends `Authorization: Bearer <METRICS_TOKEN>`.
 */

/** Seconds: the stages of a turn, from tens of milliseconds (STT, TTS) to a slow model's answer. */
export const TURN_STAGE_BUCKETS = [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];

/** Latency figures of one turn (ms), as the conversation measures them; null ones are left out. */
export type TurnLatencies = Partial<Pick<TLiveVoiceTurnMetrics, 'endOfUtteranceMs' | 'sttMs' | 'llmFirstTokenMs' | 'ttsFirstByteMs' | 'endToEndMs'>>;

/** What a conversation reports (live/conversation.ts); all cheap and synchronous. */
export interface ConversationMetrics {
  /** A turn answered: typed, spoken (listener → brain → voice) or by a realtime model; `refused`: over the rate (LiveRates). */
  /** `continued`: a spoken turn whose answer was withdrawn unheard, the visitor going on (ADR 095). */
  turn(input: 'text' | 'voice' | 'realtime', outcome: 'answered' | 'failed' | 'interrupted' | 'refused' | 'continued'): void;
  latencies(figures: TurnLatencies): void;
  providerError(provider: string, phase: string): void;
}

/** What the runtime reads when scraped. */
export interface RuntimeGauges {
  sessions(): number;
  capacity: number;
  /** Page sockets that have not said hello yet, and sessions being claimed from the portal. */
  waiting(): { hello: number; claim: number };
  /** The python functions' sandbox, once made. */
  sandbox(): SandboxPoolStats | null;
}

export interface WorkerMetrics {
  readonly registry: Registry;
  readonly conversation: ConversationMetrics;
  sessionStarted(resumed: boolean): void;
  sessionEnded(code: string): void;
  /** A page socket refused or closed by the worker (bad ticket, capacity, bad frames…). */
  socketRefused(code: string): void;
  /** The runtime's gauges (set once by createLiveRuntime). */
  observe(gauges: RuntimeGauges): void;
  /** Adds Node's process metrics (CPU, memory, event loop, GC): a worker process of its own. */
  withProcessMetrics(): void;
}

const STAGES: [keyof TurnLatencies, string][] = [
  ['endOfUtteranceMs', 'end_of_utterance'],
  ['sttMs', 'stt'],
  ['llmFirstTokenMs', 'llm_first_token'],
  ['ttsFirstByteMs', 'tts_first_byte'],
  ['endToEndMs', 'end_to_end'],
];

/** A worker's metrics, in a registry of their own (the embedded worker's are served by the portal). */
export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  const registers = [registry];
  let gauges: RuntimeGauges | null = null;
  let processMetrics = false;

  new Gauge({
    name: 'persona_worker_live_sessions',
    help: 'Live sessions running on this worker.',
    registers,
    collect() {
      this.set(gauges?.sessions() ?? 0);
    },
  });
  new Gauge({
    name: 'persona_worker_capacity',
    help: 'Live sessions this worker takes at most.',
    registers,
    collect() {
      this.set(gauges?.capacity ?? 0);
    },
  });
  new Gauge({
    name: 'persona_worker_sessions_waiting',
    help: "Page sockets waiting: for their hello frame (stage=hello) or for the portal's claim (stage=claim).",
    labelNames: ['stage'] as const,
    registers,
    collect() {
      const w = gauges?.waiting() ?? { hello: 0, claim: 0 };
      this.set({ stage: 'hello' }, w.hello);
      this.set({ stage: 'claim' }, w.claim);
    },
  });
  const started = new Counter({ name: 'persona_worker_sessions_started_total', help: 'Live sessions started on this worker (resumed=true: moved here from another worker or socket).', labelNames: ['resumed'] as const, registers });
  const ended = new Counter({ name: 'persona_worker_sessions_ended_total', help: 'Live sessions ended on this worker, by end code.', labelNames: ['code'] as const, registers });
  const refused = new Counter({ name: 'persona_worker_sockets_refused_total', help: 'Page sockets refused or closed by the worker, by code.', labelNames: ['code'] as const, registers });
  const turns = new Counter({ name: 'persona_worker_turns_total', help: 'Conversation turns answered, by input (text, voice, realtime) and outcome (refused: a message over the rate; continued: a spoken turn withdrawn unheard as the visitor went on).', labelNames: ['input', 'outcome'] as const, registers });
  const stages = new Histogram({
    name: 'persona_worker_turn_stage_seconds',
    help: "Per-stage latency of turns: end_of_utterance (end of speech → turn committed), stt, llm_first_token (turn → the brain's first text), tts_first_byte (first text → first audio), end_to_end (end of speech → first audio).",
    labelNames: ['stage'] as const,
    buckets: TURN_STAGE_BUCKETS,
    registers,
  });
  const providerErrors = new Counter({ name: 'persona_worker_provider_errors_total', help: "Failures of the avatars' providers (LLM, STT, TTS, realtime), by provider and phase.", labelNames: ['provider', 'phase'] as const, registers });
  // Prepared children: observing a stage is a lookup and an add.
  const stageChildren = STAGES.map(([key, stage]) => [key, stages.labels({ stage })] as const);

  // The sandbox keeps its own cumulative counts; they are read when scraped.
  new Counter({
    name: 'persona_worker_sandbox_kills_total',
    help: 'Python function calls whose sandbox process was stopped or lost, by reason (timeout, memory, crashed, aborted).',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      const stats = gauges?.sandbox();
      this.reset();
      for (const [reason, n] of Object.entries(stats?.kills ?? { timeout: 0, memory: 0, crashed: 0, aborted: 0 })) this.inc({ reason }, n);
    },
  });
  new Counter({
    name: 'persona_worker_sandbox_busy_total',
    help: 'Python function calls refused because the sandbox queue was full or no process became free in time.',
    registers,
    collect() {
      this.reset();
      this.inc(gauges?.sandbox()?.busyRefusals ?? 0);
    },
  });
  new Gauge({
    name: 'persona_worker_sandbox_queue',
    help: 'Python function calls waiting for a sandbox process.',
    registers,
    collect() {
      this.set(gauges?.sandbox()?.queued ?? 0);
    },
  });
  new Gauge({
    name: 'persona_worker_sandbox_processes',
    help: 'Sandbox processes by state.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = gauges?.sandbox();
      for (const state of ['starting', 'idle', 'busy'] as const) this.set({ state }, stats?.[state] ?? 0);
    },
  });

  const conversation: ConversationMetrics = {
    turn: (input, outcome) => turns.inc({ input, outcome }),
    latencies(figures) {
      for (const [key, child] of stageChildren) {
        const ms = figures[key];
        if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) child.observe(ms / 1000);
      }
    },
    providerError: (provider, phase) => providerErrors.inc({ provider, phase }),
  };

  return {
    registry,
    conversation,
    sessionStarted: (resumed) => started.inc({ resumed: String(resumed) }),
    sessionEnded: (code) => ended.inc({ code }),
    socketRefused: (code) => refused.inc({ code }),
    observe(g) {
      gauges = g;
    },
    withProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
  };
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether an Authorization header carries `Bearer <token>`: compared in constant time (both
 * sides hashed first, so neither the token's length nor its content leaks through timing).
 */
export function metricsAuthorized(header: string | string[] | undefined, token: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const m = /^Bearer +(.+)$/i.exec(value?.trim() ?? '');
  const given = m?.[1] ?? '';
  const ok = timingSafeEqual(digest(given), digest(token));
  return ok && given.length > 0;
}

/** `GET /metrics` on a worker's own listener: 401 without the token, else the registry as text. */
export function serveMetrics(req: IncomingMessage, res: ServerResponse, registry: Registry, token: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed');
    return;
  }
  if (!metricsAuthorized(req.headers.authorization, token)) {
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain' }).end('Unauthorized');
    return;
  }
  registry.metrics().then(
    (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
    () => res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected'),
  );
}
