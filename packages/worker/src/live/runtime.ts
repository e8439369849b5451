import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { LiveCode, LiveMessages, LivePaths, LiveProtocol, SetupMode, ZPageHello, type TLiveCode, type TLiveSessionConfig, type TWorkerFrame } from '@persona/contract';
import { startWorker, RpcError, type WorkerHandle, type WorkerLogger, type WorkerOptions } from '../agent.js';
import { createProviderBrain } from '../brains/registry.js';
import type { BrainOptions } from '../brains/options.js';
import type { ToolRunner } from '../core/types.js';
import type { Brain, BrainDeps } from '../brains/types.js';
import { createGuardedFetch, DEFAULT_CONNECTION_LIMITS, guardConnections, httpServerOptions, type ConnectionLimits } from '@persona/net';
import { createSandboxPool } from '../sandbox/pool.js';
import type { SandboxPool, SandboxPoolOptions } from '../sandbox/types.js';
import { createFunctionTools } from '../sandbox/tool-runner.js';
import { createOfflineVoice, type OfflineVoice } from '../speech/offline-voice.js';
import { createSpeechPipeline, type SpeechPipeline } from '../speech/pipeline.js';
import { chooseTts, createTtsEngine, type OperatorTts, type TtsBaseUrls } from '../speech/tts-choice.js';
import { Conversation, type PageSocket } from './conversation.js';
import { FrameGuard, type FrameGuardOptions, type FrameVerdict } from './frame-guard.js';
import { isConnectedBrain, type ElevenLabsOptions } from './realtime-connectors.js';
import { createRealtimeSession, type OperatorRealtime } from './realtime-session.js';
import { createRealtimeToolbox } from './realtime-tools.js';
import { agentTicketKey, createTicketVerifier, ticketKey } from './tickets.js';
import { createWorkerMetrics, serveMetrics, type WorkerMetrics } from './metrics.js';
import { createAgentBridge } from './agent-bridge.js';
import { sessionLog } from './session-log.js';
import type { TtsEngine } from '../providers/tts/types.js';
import { turnOptionsFrom } from '../listening/options.js';
import type { ConversationListening } from '../listening/turns.js';
import { lazyDenoiser, sharedRnnoise, type DenoiseModel } from '../listening/denoise.js';
import { lazyVadStream, sharedSileroVad, type VadModel } from '../listening/vad.js';
import { chooseStt, createSttEngine } from '../providers/stt/choose.js';
import type { OperatorStt, SttBaseUrls } from '../providers/stt/network.js';
import { findPocketsphinx, type OfflineRecognizer } from '../providers/stt/offline.js';
import { createWorkerOfflineRecognizer, isStreamingRecognizer } from '../providers/stt/offline-stream.js';
import { createOverAvatarModel, createWorkerRecognizers, vocabularyOf } from '../providers/stt/avatar-models.js';
import { sharedPronunciations } from '../providers/stt/pronunciations.js';

export interface LiveRuntimeOptions {
  /** The worker's link to the portal (registration, pings, RPC). */
  agent: WorkerHandle;
  /** The shared secret, if this worker has it: the ticket keys when the portal gives none at registration. */
  secret?: string;
  log: WorkerLogger;
  /** Live sessions this worker takes at most (default 200). */
  capacity?: number;
  heartbeatMs?: number;
  brainOptions?: BrainOptions;
  /**
   * The python functions' sandbox. By default it starts with the worker (its memory snapshot and
   * one warm process: the first question of a session with functions does not wait for Pyodide to
   * load); with `prewarm: false` it is made on first use.
   */
  sandbox?: SandboxPool | SandboxPoolOptions;
  /** Time a page has to send `hello` after opening the socket. */
  helloTimeoutMs?: number;
  /** Bytes queued for a page that does not read before its socket is dropped (default 4 MiB). */
  maxBufferedBytes?: number;
  /** What a page socket may send (sizes, unreadable frames, the mic's pace): live/frame-guard.ts. */
  frameGuard?: FrameGuardOptions;
  /** The avatars' voices: the operator's hosted voices, provider URLs, the offline voice (made on first use). */
  tts?: { operator?: OperatorTts; baseUrls?: TtsBaseUrls; offline?: OfflineVoice };
  /** How the avatars listen: the operator's hosted speech to text (Simple mode, Default), provider URLs. */
  stt?: { operator?: OperatorStt; baseUrls?: SttBaseUrls };
  /**
   * Listening: the VAD model (default: Silero, loaded on first use) and the offline
   * recogniser (default: pocketsphinx when installed — streaming through python3-pocketsphinx
   * when it imports, ADR 106 — up to `offlineProcesses` resident processes, default one per core
   * at most 4 for batch, two per core at most 6 for streaming; null: none). `false` turns listening off. `denoise`: the
   * noise suppressor of the visitors' audio (default: RNNoise, loaded when a mic first turns on;
   * `false`: the VAD and the STT hear the raw mic — WORKER_NOISE_SUPPRESSION=off; ADR 096).
   * `echo`: cancelling the avatar's own voice in the mic (default on; `false`: WORKER_ECHO_CANCELLATION=off; ADR 103).
   */
  listening?: false | { vad?: VadModel | Promise<VadModel>; offline?: OfflineRecognizer | null; offlineProcesses?: number; denoise?: false | DenoiseModel | Promise<DenoiseModel>; echo?: false; avatarModels?: false | { dir?: string; maxFiles?: number; maxResident?: number }; overAvatarModel?: boolean; modelDir?: string };
  /** SpeechToSpeech: the operator's realtime key and URL (the product's own realtime), the page's audio rate. */
  realtime?: { operator?: OperatorRealtime; sampleRate?: number; elevenLabs?: ElevenLabsOptions };
  /** Prometheus metrics of the sessions (default: a registry of this runtime's own): live/metrics.ts. */
  metrics?: WorkerMetrics;
}

export interface LiveRuntime {
  /** Takes one page socket of /avatar-ws (from our own listener or the portal's, embedded). */
  accept(socket: WebSocket): void;
  sessions(): number;
  readonly capacity: number;
  /** Sessions, turns, latencies, provider errors, sandbox and queues (served on /metrics). */
  readonly metrics: WorkerMetrics;
  /**
   * Takes no new session (reported BUSY, so the portal sends none; a page that comes anyway is
   * closed with goingAway and resumes elsewhere) and resolves once the sessions held have ended.
   */
  drain(): Promise<void>;
  /** Closes every page socket with goingAway (pages resume elsewhere) and the sandbox. */
  stop(): Promise<void>;
}

const unavailableBrain = (code: TLiveCode): Brain => ({
  kind: 'unavailable',
  async *reply() {
    yield { type: 'text', delta: LiveMessages[code] };
  },
});

/** Sandbox processes a worker keeps warm from its start (each ~165 MB resident); more start on demand. */
const SANDBOX_WARM_PROCESSES = 1;
/** Bytes queued for a page that does not read them before its socket is dropped (see `maxBufferedBytes`). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/**
 * A page that comes while the worker is between two portal connections (its instance died and it
 * is moving to the next one, ~0.5 s): the claim waits this long for the new registration instead
 * of sending the visitor away.
 */
const CLAIM_WAIT_FOR_PORTAL_MS = 5_000;
/**
 * A socket judged hostile (a frame rule broken) is no longer read: it gets the error and the close
 * frame, and is cut this long after if the page does not close it (we do not read its answer).
 */
const JUDGED_CLOSE_GRACE_MS = 1_000;

/**
 * A page socket for a conversation. A page that stops reading (or cannot keep up) would make us
 * queue its frames without bound: past `maxBuffered` queued bytes the socket is destroyed (a close
 * frame would wait behind the queue); the session stays open for a resume, as after any drop.
 */
function pageSocket(ws: WebSocket, maxBuffered: number, onSlow: (buffered: number) => void): PageSocket {
  const writable = () => {
    if (ws.readyState !== WebSocket.OPEN) return false;
    if (ws.bufferedAmount <= maxBuffered) return true;
    onSlow(ws.bufferedAmount);
    ws.terminate();
    return false;
  };
  return {
    send: (data) => {
      if (writable()) ws.send(data);
    },
    sendBinary: (data) => {
      if (writable()) ws.send(data, { binary: true });
    },
    close: (code, reason) => {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, reason);
    },
    get isOpen() {
      return ws.readyState === WebSocket.OPEN;
    },
  };
}

/**
 * The live-session side of a worker (ADR 013): verifies each page's ticket (signature, expiry,
 * this worker, single use), claims the session from the portal over the worker socket, builds the
 * brain (echo, LLM with knowledge through the portal and python functions in the sandbox, REST,
 * Dialogflow…) and runs the conversation. Shared by the embedded worker and `npm run worker`.
 */
export function createLiveRuntime(opts: LiveRuntimeOptions): LiveRuntime {
  const { agent, log } = opts;
  const capacity = opts.capacity ?? 200;
  // The ticket keys come with the registration (ADR 086): a worker with only its credential checks tickets too.
  const ownKeys = opts.secret ? { live: ticketKey(opts.secret), agent: agentTicketKey(opts.secret) } : null;
  const verifier = createTicketVerifier(() => agent.ticketKeys()?.live ?? ownKeys?.live ?? null, { workerId: agent.id });
  // Bring your own agent (ADR 072): external agents join their avatar's sessions on this socket too.
  const agents = createAgentBridge({
    key: () => agent.ticketKeys()?.agent ?? ownKeys?.agent ?? null,
    workerId: agent.id,
    offer: async (sessionId) => (await agent.rpc('agent.offer', { sessionId })).offered,
    log,
  });
  // Lines about sockets before they have a session (bad tickets, refused claims): rate limited like a session's.
  const socketLog = sessionLog(log, {});
  const conversations = new Map<string, Conversation>();
  const sockets = new Set<WebSocket>();
  let pool: SandboxPool | null = opts.sandbox && 'call' in opts.sandbox ? opts.sandbox : null;
  let stopping = false;
  // Metrics: page sockets waiting for their hello, sessions being claimed from the portal.
  const metrics = opts.metrics ?? createWorkerMetrics();
  const helloPending = new Set<WebSocket>();
  let claiming = 0;
  metrics.observe({ sessions: () => conversations.size, capacity, waiting: () => ({ hello: helloPending.size, claim: claiming }), sandbox: () => pool?.stats() ?? null });

  // Simple mode's platform model is the operator's endpoint (may be on a private network).
  const operatorFetch = createGuardedFetch({ allowPrivate: true });
  const poolOptions: SandboxPoolOptions = { prewarm: SANDBOX_WARM_PROCESSES, ...(opts.sandbox && !('call' in opts.sandbox) ? opts.sandbox : {}), log };
  const sandbox = () => (pool ??= createSandboxPool(poolOptions));
  // Warmed now, while no visitor waits: a cold start took 8–19 s on a busy machine.
  if (poolOptions.prewarm !== false && poolOptions.prewarm !== 0) sandbox();
  const refuse = (ws: WebSocket, code: TLiveCode, closeCode: number) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    metrics.socketRefused(code);
    const frame: TWorkerFrame = closeCode === LiveProtocol.close.ended ? { type: 'bye', code, message: LiveMessages[code] } : { type: 'error', code, message: LiveMessages[code], fatal: true };
    ws.send(JSON.stringify(frame));
    ws.close(closeCode, code);
  };
  let draining = false;
  const drained: (() => void)[] = [];
  const updateStatus = () => {
    agent.setStatus(draining || conversations.size >= capacity ? 'BUSY' : 'AVAILABLE');
    if (draining && conversations.size === 0) for (const done of drained.splice(0)) done();
  };

  let offline: OfflineVoice | null = opts.tts?.offline ?? null;
  const ownsOffline = !offline;

  // The offline recogniser: resident pocketsphinx processes, the first started on first use, more
  // while utterances overlap.
  const listenOpts = opts.listening === false ? null : (opts.listening ?? {});
  const ownsRecognizer = listenOpts !== null && listenOpts.offline === undefined;
  // Each avatar's own language model (ADR 105) when the worker runs pocketsphinx itself.
  const install = ownsRecognizer ? findPocketsphinx() : null;
  const modelDir = (listenOpts && listenOpts.modelDir) || path.join(os.tmpdir(), 'persona-stt-models');
  // Asked for only (WORKER_STT_AVATAR_MODELS=on): off by default (ADR 105).
  const avatarModels = listenOpts && install && listenOpts.avatarModels
    ? createWorkerRecognizers({ install, processes: listenOpts.offlineProcesses ?? Math.min(4, os.availableParallelism()), makePool: (lm) => createWorkerOfflineRecognizer(listenOpts.offlineProcesses, undefined, lm)!, dir: listenOpts.avatarModels?.dir ?? modelDir, maxFiles: listenOpts.avatarModels?.maxFiles, maxResident: listenOpts.avatarModels?.maxResident, log: opts.log })
    : null;
  const recognizer: OfflineRecognizer | null = !listenOpts ? null : listenOpts.offline !== undefined
        ? listenOpts.offline
        : avatarModels
          ? avatarModels.generic
          : createWorkerOfflineRecognizer(listenOpts.offlineProcesses);
  // Speech over the avatar decoded with a model biased toward backchannels and stop requests
  // (ADR 107): the streaming recogniser only (it switches models per utterance); asked for only
  // (WORKER_STT_OVER_AVATAR=on): no gain was measured with synthetic voices on a quiet machine.
  const streaming = recognizer && isStreamingRecognizer(recognizer) ? recognizer : null;
  const overAvatar = listenOpts && install && listenOpts.overAvatarModel === true && streaming ? createOverAvatarModel({ install, dir: modelDir, log: opts.log }) : null;
  // The recogniser's pronunciations, read once at start (~0.1 s): misheard stop requests over the avatar (ADR 109).
  const pronounce = install ? sharedPronunciations(install.dict, (err) => opts.log.warn('the pronunciation dictionary could not be read: misheard stop requests are not recognised', { error: String(err) })) : undefined;
  let vadModel: Promise<VadModel> | null = null;
  const vad = () => (vadModel ??= Promise.resolve(listenOpts?.vad ?? sharedSileroVad()));
  let denoiseModel: Promise<DenoiseModel> | null = null;
  const denoise = listenOpts?.denoise === false ? null : () => (denoiseModel ??= Promise.resolve(listenOpts?.denoise || sharedRnnoise()));

  /** How the avatar listens: its STT choice; null when it cannot here (typed chat only). */
  function buildListening(config: TLiveSessionConfig, log: WorkerLogger = opts.log): ConversationListening | null {
    if (!listenOpts) return null;
    const choice = chooseStt({ setupMode: config.avatar.setupMode, stt: config.speech.stt }, opts.stt?.operator ?? {});
    // The knowledge base's titles and text come from the portal only when the model is built (ADR 105).
    const sessionId = config.sessionId;
    const knowledge = config.avatar.hasKnowledge ? { knowledge: async () => (await agent.rpc('knowledge.vocabulary', { sessionId }, 30_000)).items } : undefined;
    const offlineView = choice.kind === 'offline' && avatarModels ? avatarModels.forAvatar(vocabularyOf(config), knowledge) : recognizer;
    const stt = createSttEngine(choice, {
      offline: offlineView,
      overAvatarModel: overAvatar ? () => overAvatar.file() : undefined,
      fetch: createGuardedFetch({ allowPrivate: config.allowPrivateUrls }),
      operatorFetch,
      baseUrls: opts.stt?.baseUrls,
    });
    if (!stt) {
      if (choice.kind !== 'none') log.info('the avatar cannot listen on this worker (no speech-to-text engine)', { avatarId: config.avatar.id, stt: choice.kind, ...(choice.kind === 'offline' ? { reason: choice.reason } : {}) });
      return null;
    }
    if (choice.kind === 'offline' && choice.reason) log.info('the avatar listens with the offline recogniser', { avatarId: config.avatar.id, reason: choice.reason });
    const settings = choice.kind === 'none' ? null : choice.settings;
    return {
      stt,
      vad: lazyVadStream(vad),
      denoiser: denoise ? lazyDenoiser(denoise, (err) => log.warn('the noise suppressor could not load: the mic is heard unfiltered', { error: String(err) })) : undefined,
      echoCancel: listenOpts.echo !== false,
      options: turnOptionsFrom(config.speech.turns),
      languages: settings?.languages ?? [],
      model: choice.kind === 'network' ? settings?.model : undefined,
      phrases: choice.kind === 'network' ? settings?.phrases : undefined,
      ...(choice.kind === 'offline' && pronounce ? { pronounce } : {}),
      // Loaded when a visitor first turns the mic on (most sessions never do).
      warm: () => {
        void vad().catch((err: unknown) => log.warn('the VAD model could not load', { error: String(err) }));
        void denoise?.().catch(() => undefined);
        if (stt.provider === 'offline') {
          void offlineView?.warm().catch((err: unknown) => log.warn('the offline recogniser could not start', { error: String(err) }));
          // Built once per worker (a thread, ~3 s of one core) or found on disk; each process loads it while idle.
          void overAvatar?.ensure().then((file) => {
            if (file) streaming?.preload?.(file);
          });
        }
      },
    };
  }

  /** The avatar's voice: its TTS provider, or the offline voice when it has no keys. */
  function buildSpeech(config: TLiveSessionConfig, log: WorkerLogger = opts.log): SpeechPipeline | null {
    const choice = chooseTts({ setupMode: config.avatar.setupMode, tts: config.speech.tts }, opts.tts?.operator ?? {});
    if (choice.kind === 'offline' && choice.reason) log.info('the avatar speaks with the offline voice', { avatarId: config.avatar.id, reason: choice.reason });
    const engine = createTtsEngine(choice, {
      fetch: createGuardedFetch({ allowPrivate: config.allowPrivateUrls }),
      operatorFetch,
      offline: (offline ??= createOfflineVoice()),
      baseUrls: opts.tts?.baseUrls,
    });
    return engine ? createSpeechPipeline({ tts: engine }) : null;
  }

  /**
   * Bring your own agent: the voice that says an agent's `speak` frames (ADR 072) — the avatar's
   * stored TTS settings read as in Composite mode (None mode has no voice of its own), so the
   * default voice when none is stored.
   */
  function buildAgentVoice(config: TLiveSessionConfig): TtsEngine | null {
    const choice = chooseTts({ setupMode: SetupMode.Composite, tts: config.speech.tts }, opts.tts?.operator ?? {});
    return createTtsEngine(choice, { fetch: createGuardedFetch({ allowPrivate: config.allowPrivateUrls }), operatorFetch, offline: (offline ??= createOfflineVoice()), baseUrls: opts.tts?.baseUrls });
  }

  /**
   * What a session's model may use (the brains' and the realtime tools'): the avatar's linked
   * functions in the sandbox, its knowledge search through the portal, the session's guarded fetch.
   */
  function sessionDeps(config: TLiveSessionConfig, log: WorkerLogger = opts.log): BrainDeps {
    const fetch = createGuardedFetch({ allowPrivate: config.allowPrivateUrls });
    let tools: ToolRunner | null = null;
    if (config.functions.length > 0) {
      // Described once per session by the tool catalogue, which starts as the session opens.
      tools = createFunctionTools({ pool: sandbox(), functions: config.functions, isolationKey: `user:${config.avatar.ownerUserId}`, fetch, log });
    }
    const sessionId = config.sessionId;
    return {
      config,
      log,
      tools,
      fetch,
      now: Date.now,
      knowledge: async (query, signal) => {
        if (!config.avatar.hasKnowledge || signal.aborted) return [];
        const { passages } = await agent.rpc('knowledge.search', { sessionId, query: query.slice(0, 2000), k: opts.brainOptions?.knowledgePassages ?? 5 });
        return passages;
      },
    };
  }

  function buildBrain(config: TLiveSessionConfig, log: WorkerLogger = opts.log): Brain | null {
    // A realtime model answers by itself (live/realtime-session.ts).
    if (config.brain.kind === 'echo' || isConnectedBrain(config.brain)) return null;
    if (config.brain.kind === 'unavailable') {
      log.warn('this avatar\u2019s engine cannot run here', { avatarId: config.avatar.id, code: config.brain.code, detail: config.brain.detail });
      return unavailableBrain(config.brain.code);
    }
    return createProviderBrain(sessionDeps(config, log), { operatorFetch, ...opts.brainOptions });
  }

  async function open(ws: WebSocket, raw: string) {
    let hello;
    try {
      const parsed = ZPageHello.safeParse(JSON.parse(raw));
      hello = parsed.success ? parsed.data : null;
    } catch {
      hello = null;
    }
    if (!hello) return refuse(ws, LiveCode.badFrame, LiveProtocol.close.badFrame);
    const check = verifier.verify(hello.ticket);
    if (!check.ok) {
      socketLog.warn('page ticket refused', { reason: check.reason });
      return refuse(ws, LiveCode.ticketInvalid, LiveProtocol.close.ticketRefused);
    }
    if (draining && !conversations.has(check.claims.sid)) {
      // No error frame: the page asks the portal for another worker.
      ws.close(LiveProtocol.close.goingAway, 'worker draining');
      return;
    }
    if (conversations.size >= capacity && !conversations.has(check.claims.sid)) return refuse(ws, LiveCode.noWorker, LiveProtocol.close.goingAway);
    let config: TLiveSessionConfig;
    try {
      if (agent.state() !== 'registered') {
        await agent.whenRegistered(CLAIM_WAIT_FOR_PORTAL_MS);
        if (ws.readyState !== WebSocket.OPEN) return;
      }
      config = await agent.rpc('session.claim', { sessionId: check.claims.sid, jti: check.claims.jti });
    } catch (err) {
      const code = err instanceof RpcError ? err.code : 'error';
      socketLog.warn('session claim refused', { sessionId: check.claims.sid, code });
      if (code === LiveCode.sessionNotFound || code === LiveCode.avatarNotFound) return refuse(ws, code, LiveProtocol.close.ended);
      return refuse(ws, LiveCode.serverError, LiveProtocol.close.goingAway);
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    const previous = conversations.get(config.sessionId);
    if (previous) {
      conversations.delete(config.sessionId);
      previous.replaced();
    }
    const sessionId = config.sessionId;
    // Everything this session logs carries its ids and is rate limited (a hostile page cannot fill the log).
    const slog = sessionLog(log, { sessionId, avatarId: config.avatar.id });
    const socket = pageSocket(ws, opts.maxBufferedBytes ?? MAX_BUFFERED_BYTES, (buffered) => slog.warn('a page does not read its socket: dropped', { buffered }));
    const textOnly = hello.textOnly === true || config.textOnly;
    // Bring your own agent (ADR 072): the agent joins through the bridge; the avatar's voice says its `speak`s,
    // and its STT (read as in Composite mode: None mode has none of its own) transcribes for agents that ask.
    const agentJoiner =
      config.brain.kind === 'agent'
        ? agents.forSession(sessionId, config.avatar.id, config.resumed, {
            voice: () => buildAgentVoice(config),
            listening: () => buildListening({ ...config, avatar: { ...config.avatar, setupMode: SetupMode.Composite } }, slog),
          })
        : undefined;
    // SpeechToSpeech: the realtime model hears and speaks (with the avatar's functions and knowledge as its tools); no STT, brain or TTS of ours.
    const realtime = isConnectedBrain(config.brain)
      ? createRealtimeSession({
          brain: config.brain,
          operator: opts.realtime?.operator,
          allowPrivateUrls: config.allowPrivateUrls,
          textOnly,
          sampleRate: opts.realtime?.sampleRate,
          elevenLabs: opts.realtime?.elevenLabs,
          agents: agentJoiner,
          // An external agent (ADR 072) brings its own tools.
          tools:
            config.brain.kind === 'agent'
              ? null
              : createRealtimeToolbox(sessionDeps(config, slog), { toolsWaitMs: opts.brainOptions?.toolsWaitMs, knowledgePassages: opts.brainOptions?.knowledgePassages }),
        })
      : null;
    const conversation = new Conversation({
      config,
      brain: buildBrain(config, slog),
      // Text-only clients (the chat widget) get no audio.
      speech: textOnly || realtime ? null : buildSpeech(config, slog),
      speakerOn: hello.speaker,
      // Text-only clients (the chat widget) send no audio.
      listening: textOnly || realtime ? null : buildListening(config, slog),
      micOn: hello.mic,
      realtime,
      log: slog,
      heartbeatMs: opts.heartbeatMs,
      metrics: metrics.conversation,
      portal: {
        heartbeat: (lastUserActivityAt) => agent.rpc('session.heartbeat', { sessionId, lastUserActivityAt }),
        history: async (history) => {
          await agent.rpc('session.history', { sessionId, history: history.slice(-200) });
        },
        functionFailed: async (name, error) => {
          await agent.rpc('session.function_failed', { sessionId, name: name.slice(0, 200), error });
        },
        end: async (code, summary, turns, providerErrors) => {
          metrics.sessionEnded(code);
          await agent.rpc('session.end', { sessionId, code, summary, ...(turns?.length ? { turns } : {}), ...(providerErrors?.length ? { providerErrors } : {}) });
        },
      },
      onClosed: () => {
        if (conversations.get(sessionId) === conversation) conversations.delete(sessionId);
        updateStatus();
      },
    });
    conversations.set(sessionId, conversation);
    metrics.sessionStarted(config.resumed);
    updateStatus();
    // Hostile or broken pages: oversized frames, garbage, mic audio faster than real time.
    const guard = new FrameGuard(opts.frameGuard);
    // Judged once: the socket is no longer read (what it already sent is ignored), closed, then cut.
    let judged = false;
    const judge = (verdict: FrameVerdict) => {
      if (typeof verdict === 'object' && !judged) {
        judged = true;
        slog.warn('a page broke the protocol: socket closed', { reason: verdict.close, droppedMicMs: Math.round(guard.droppedMs) });
        ws.pause();
        refuse(ws, LiveCode.badFrame, LiveProtocol.close.badFrame);
        setTimeout(() => ws.terminate(), JUDGED_CLOSE_GRACE_MS).unref();
      }
      return verdict === 'ok' && !judged;
    };
    ws.on('message', (data, isBinary) => {
      if (judged) return;
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (isBinary) {
        const verdict = guard.binary(buf);
        if (verdict === 'bad') socket.send(JSON.stringify({ type: 'error', code: LiveCode.badFrame, message: LiveMessages[LiveCode.badFrame], fatal: false } satisfies TWorkerFrame));
        // Mic audio (16 kHz PCM16LE in 20 ms frames) for the listener.
        if (judge(verdict)) conversation.onAudio(buf);
        return;
      }
      if (judge(guard.text(buf.length)) && !conversation.onMessage(buf.toString())) judge(guard.unreadable());
    });
    ws.on('close', (code) => conversation.onSocketClosed(socket, code));
    conversation.attach(socket);
    slog.info('live session started', { brain: config.brain.kind, resumed: config.resumed });
  }

  return {
    capacity,
    metrics,
    sessions: () => conversations.size,
    accept(ws) {
      if (stopping) {
        ws.close(LiveProtocol.close.goingAway, 'worker shutting down');
        return;
      }
      sockets.add(ws);
      helloPending.add(ws);
      ws.on('close', () => {
        sockets.delete(ws);
        helloPending.delete(ws);
      });
      ws.on('error', () => undefined);
      // A socket that never says hello holds nothing for long (a flood of idle sockets).
      const timer = setTimeout(() => refuse(ws, LiveCode.badFrame, LiveProtocol.close.badFrame), opts.helloTimeoutMs ?? 10_000);
      timer.unref();
      ws.once('message', (data, isBinary) => {
        clearTimeout(timer);
        helloPending.delete(ws);
        if (isBinary || (data as Buffer).length > LiveProtocol.maxTextFrame) return refuse(ws, LiveCode.badFrame, LiveProtocol.close.badFrame);
        if (agents.isAgentHello(data.toString())) return agents.accept(ws, data.toString());
        claiming += 1;
        void open(ws, data.toString()).finally(() => (claiming -= 1)).catch((err: unknown) => {
          log.error('a page socket failed to open', { error: String(err) });
          refuse(ws, LiveCode.serverError, LiveProtocol.close.goingAway);
        });
      });
    },
    drain() {
      draining = true;
      const done = new Promise<void>((resolve) => drained.push(resolve));
      updateStatus();
      return done;
    },
    async stop() {
      stopping = true;
      for (const done of drained.splice(0)) done();
      for (const c of [...conversations.values()]) await c.finish(LiveCode.workerLost, { tellPortal: false, closeCode: LiveProtocol.close.goingAway });
      conversations.clear();
      for (const ws of sockets) ws.close(LiveProtocol.close.goingAway, 'worker shutting down');
      await pool?.close();
      if (ownsOffline) await offline?.close();
      if (ownsRecognizer) await Promise.all([overAvatar?.close(), recognizer?.close(), avatarModels?.close()]);
    },
  };
}

export interface LiveWorkerOptions extends Omit<WorkerOptions, 'load'> {
  capacity?: number;
  heartbeatMs?: number;
  brainOptions?: BrainOptions;
  sandbox?: SandboxPool | SandboxPoolOptions;
  /** Listen for page sockets on this port (separate workers); the embedded worker is handed them by the portal. */
  listen?: { port: number; host?: string };
  realtime?: LiveRuntimeOptions['realtime'];
  /** The operator's hosted voice and speech to text (PLATFORM_TTS_*, PLATFORM_STT_*), provider URLs. */
  tts?: LiveRuntimeOptions['tts'];
  stt?: LiveRuntimeOptions['stt'];
  listening?: LiveRuntimeOptions['listening'];
  helloTimeoutMs?: number;
  maxBufferedBytes?: number;
  frameGuard?: FrameGuardOptions;
  /** Serve `GET /metrics` on the page-socket listener to `Authorization: Bearer <metricsToken>` (METRICS_TOKEN; unset: 404). */
  metricsToken?: string;
  /** The page-socket listener's timeouts and per-address cap (@persona/net's connection-guard.ts; defaults: DEFAULT_CONNECTION_LIMITS). */
  connectionLimits?: ConnectionLimits;
}

export interface LiveWorkerHandle extends WorkerHandle {
  runtime: LiveRuntime;
  /** Our own page-socket listener's port (when `listen` was given). */
  port: number | null;
}

/**
 * A worker that registers with the portal and runs live sessions: `npm run worker` (with its own
 * page-socket listener) and the embedded one (the portal hands it the sockets of its own port).
 */
export async function startLiveWorker(opts: LiveWorkerOptions): Promise<LiveWorkerHandle> {
  let server: http.Server | null = null;
  let runtime: LiveRuntime | null = null;
  let port: number | null = null;
  let webSocketUrl = opts.webSocketUrl;
  if (opts.listen) {
    const wss = new WebSocketServer({ noServer: true, maxPayload: LiveProtocol.maxBinaryFrame });
    const limits = opts.connectionLimits ?? DEFAULT_CONNECTION_LIMITS;
    const srv = http.createServer(httpServerOptions(limits), (req, res) => {
      if (opts.metricsToken && runtime && (req.url ?? '').split('?')[0] === '/metrics') return serveMetrics(req, res, runtime.metrics.registry, opts.metricsToken);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Persona Studio worker: page sockets only');
    });
    // Half-sent requests and upgrades are not held; connections per address capped.
    const guard = guardConnections(srv, limits);
    srv.on('upgrade', (req, sock: Duplex, head) => {
      if ((req.url ?? '').split('?')[0] !== LivePaths.workerSocket || !runtime) {
        sock.destroy();
        return;
      }
      wss.handleUpgrade(req, sock, head, (ws) => {
        guard.upgraded(sock);
        runtime!.accept(ws);
      });
    });
    const host = opts.listen.host ?? '0.0.0.0';
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(opts.listen!.port, host, () => resolve());
    });
    server = srv;
    const addr = srv.address();
    port = typeof addr === 'object' && addr ? addr.port : opts.listen.port;
    webSocketUrl ??= `ws://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}${LivePaths.workerSocket}`;
  }
  const agent = startWorker({ ...opts, webSocketUrl, productRealtime: Boolean(opts.realtime?.operator?.apiKey), load: () => ({ sessions: runtime?.sessions() ?? 0, capacity: runtime?.capacity ?? opts.capacity ?? 200 }) });
  const log = opts.log ?? { info: () => undefined, warn: (m, d) => console.warn(`[worker] ${m}`, d ?? ''), error: (m, d) => console.error(`[worker] ${m}`, d ?? '') };
  runtime = createLiveRuntime({
    agent,
    secret: opts.secret,
    log,
    capacity: opts.capacity,
    heartbeatMs: opts.heartbeatMs,
    brainOptions: opts.brainOptions,
    sandbox: opts.sandbox,
    realtime: opts.realtime,
    tts: opts.tts,
    stt: opts.stt,
    listening: opts.listening,
    helloTimeoutMs: opts.helloTimeoutMs,
    maxBufferedBytes: opts.maxBufferedBytes,
    frameGuard: opts.frameGuard,
  });
  // A worker process of its own (not the embedded one, whose metrics the portal serves): Node's process metrics too.
  if (opts.listen && opts.metricsToken) runtime.metrics.withProcessMetrics();
  const stopAgent = agent.stop.bind(agent);
  const live = runtime;
  return Object.assign(agent, {
    runtime: live,
    port,
    async stop() {
      await live.stop();
      if (server) {
        const srv = server;
        srv.closeAllConnections();
        await new Promise<void>((r) => srv.close(() => r()));
      }
      await stopAgent();
    },
  });
}
