import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { GuardedFetch } from '../brains/types.js';
import { sharedGuardedFetch } from '@persona/net';
import { encodeFrame, FrameDecoder } from './frames.js';

/**
 * A pool of warm sandbox processes that run users' python functions with Pyodide
 * (docs/decisions/020-python-function-sandbox.md). Each process: Node's permission model (reads
 * only Pyodide and the sandbox's own files; no writes, child processes, workers, WASI, addons),
 * an empty environment, no network (net/tls/dgram/dns/http/inspector refused inside it), no eval;
 * HTTP only through urllib → the worker's outbound guard, and only for calls that allow it.
 *
 * A process runs the code of one isolation key (by default: one function's code) and is recycled
 * before another key's code runs there, so one user's function can never see or tamper with
 * another's interpreter. A call that raises, runs over its time, grows over the memory limit or
 * crashes the process answers {ok: false, error} and the pool replaces the process.
 */

/** The tool definition an OpenAI-compatible chat API takes in `tools`. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchemaObject };
}
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties?: boolean;
}

export type SandboxErrorKind =
  /** The function (or its module) raised; error is "ExceptionType: message". */
  | 'raised'
  /** The code, the entry or the arguments are not usable. */
  | 'invalid'
  | 'timeout'
  | 'memory'
  /** The sandbox process died under the function. */
  | 'crashed'
  /** Too many calls waiting, or none could start in time. */
  | 'busy'
  /** The caller's signal aborted the call. */
  | 'aborted'
  | 'closed';
export type SandboxFailure = { ok: false; kind: SandboxErrorKind; error: string };
export type CallResult = { ok: true; result: string; truncated: boolean } | SandboxFailure;
export type DescribeResult = { ok: true; tool: ToolSpec } | SandboxFailure;

/** What functions allowed on the network may do through urllib (each request goes through the guarded fetch). */
export interface SandboxOutboundOptions {
  /** The pool's own guarded fetch reaches private addresses too (a call's `fetch` overrides it). Default false. */
  allowPrivateAddresses?: boolean;
  /** Longest one request may wait for its answer's headers (also bounded by the call's time limit). Default 8000 ms. */
  timeoutMs?: number;
  /** Largest answer body. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Largest request body. Default 256 KiB. */
  maxRequestBytes?: number;
  /** Requests one call may make (each redirect hop is one). Default 10. */
  maxRequestsPerCall?: number;
}

export interface SandboxLogger {
  warn(msg: string, data?: object): void;
  error(msg: string, data?: object): void;
}

export interface SandboxPoolOptions {
  /** Sandbox processes at most (each ~150 MB resident when warm). Default 2. */
  size?: number;
  /** Start processes now and keep that many warm: `size` (true), none (false) or a number. Default true. */
  prewarm?: boolean | number;
  /** Time limit of one call or description. Default 5000 ms. */
  timeoutMs?: number;
  /** Resident memory limit of a sandbox process. Default 320 MB. */
  memoryLimitMb?: number;
  /** Results longer than this (UTF-8 bytes) are cut, with a note. Default 16 KiB. */
  resultMaxBytes?: number;
  /** Calls waiting for a process at most; more answer `busy`. Default 100. */
  maxQueue?: number;
  /** Longest a call waits for a process (a call's own `queueTimeoutMs` may be shorter). Default 20000 ms. */
  queueTimeoutMs?: number;
  /**
   * Longest a call waits while the pool is still cold (its snapshot being made, no process ready
   * yet): the first start loads Pyodide, which on a busy machine took 24 s here. Default 90000 ms.
   */
  coldStartTimeoutMs?: number;
  /** A process idle this long after running some code is replaced by a fresh one. Default 120000 ms. */
  recycleIdleMs?: number;
  /**
   * Start processes from a memory snapshot of a warm interpreter, made once by the pool (~0.4 s a
   * process instead of ~2.5 s). Off: every process loads Pyodide afresh. Default true.
   */
  snapshot?: boolean;
  /** Limits of the network access of functions that may use it. */
  outbound?: SandboxOutboundOptions;
  log?: SandboxLogger;
}

export interface CallOptions {
  /** This call's time limit (default: the pool's). */
  timeoutMs?: number;
  /** Let urllib reach public addresses through the outbound guard (the function's template needs it). */
  allowNetwork?: boolean;
  /** The guarded fetch those requests use: the session's, with its private-address rule. Default: the pool's. */
  fetch?: GuardedFetch;
  /** Aborting stops the call: dropped from the queue, or its process killed (answers kind 'aborted'). */
  signal?: AbortSignal;
  /**
   * Which code may share a process with this one: calls with the same key may run in the same
   * interpreter (module state persists between them). Default: the code itself, so two
   * different functions never share. Pass e.g. `user:<ownerId>` to let one owner's functions share.
   * It is also the unit of fairness: a key with no process running goes before keys that have one.
   */
  isolationKey?: string;
  /**
   * Longest this call waits for a process once the pool is warm (default: the pool's
   * `queueTimeoutMs`); then it answers `busy`. A tool call waits less than the model's patience.
   */
  queueTimeoutMs?: number;
}

export interface SandboxPoolStats {
  processes: number;
  starting: number;
  idle: number;
  busy: number;
  queued: number;
  /** Processes started since the pool was made (the first `size` included). */
  started: number;
  /** Calls whose process was stopped or lost, by reason, since the pool was made (metrics). */
  kills: Record<SandboxKillReason, number>;
  /** Calls refused `busy` (queue full, or no process free in time) since the pool was made. */
  busyRefusals: number;
}

export type SandboxKillReason = 'timeout' | 'memory' | 'crashed' | 'aborted';
const KILL_REASONS = new Set<string>(['timeout', 'memory', 'crashed', 'aborted']);

export interface SandboxPool {
  /** The tool definition of `entry` (or, without it, of the first public top-level def); the code is parsed, never run. */
  describe(code: string, entry?: string, opts?: Pick<CallOptions, 'timeoutMs' | 'isolationKey'>): Promise<DescribeResult>;
  /** Calls `entry` with the JSON object `argsJson` (as an LLM's tool call gives it). Never throws. */
  call(code: string, entry: string, argsJson: string, opts?: CallOptions): Promise<CallResult>;
  /** Resolves when the processes it keeps warm (`prewarm`; without: all `size`) are; rejects when processes fail to start (three in a row). */
  ready(): Promise<void>;
  stats(): SandboxPoolStats;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const PYODIDE_DIR = path.dirname(require.resolve('pyodide/pyodide.mjs'));
const SANDBOX_DIR = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(SANDBOX_DIR, 'child.mjs');
/** Answers are capped by the child; anything near this is a misbehaving process. */
const MAX_CONTROL_FRAME = 1024 * 1024;
const MAX_BRIDGE_FRAME = 4 * 1024 * 1024;
const MAX_ARGS_BYTES = 64 * 1024;
const MAX_CODE_CHARS = 200_000;
const RSS_POLL_MS = 50;
const OUTBOUND = { timeoutMs: 8000, maxResponseBytes: 1024 * 1024, maxRequestBytes: 256 * 1024, maxRequestsPerCall: 10 } as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Set by the fetch itself, or would let the function steer the connection. */
const DROPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'expect']);
const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;
const DESCRIBE_CACHE = 500;
const STARTUP_FAILURES_BEFORE_PAUSE = 3;

/** The node flags of a sandbox process (Node 20/21 spell the permission model differently from 22+; 24 has no fetch flag). */
export function sandboxNodeFlags(nodeVersion = process.versions.node): string[] {
  const major = Number(nodeVersion.split('.')[0]);
  const reads = [PYODIDE_DIR, SANDBOX_DIR];
  // One flag per path: Node 20 takes a comma-separated list but then grants none of its paths.
  const permission = [major >= 22 ? '--permission' : '--experimental-permission', ...reads.map((p) => `--allow-fs-read=${p}${path.sep}`)];
  // Node 24 refuses --no-experimental-fetch (fetch is not experimental there): child.mjs deletes the
  // fetch, WebSocket and EventSource globals itself on every version, the flag is a second lock.
  const noFetch = major < 24 ? ['--no-experimental-fetch'] : [];
  return [...permission, '--disallow-code-generation-from-strings', ...noFetch, '--no-addons', '--no-warnings', '--max-old-space-size=96'];
}

interface Job {
  op: 'describe' | 'call';
  key: string;
  /** Arrival order (fairness ties). */
  seq?: number;
  /** This job's own wait for a process, when shorter than the pool's. */
  queueTimeoutMs?: number;
  /** A call binds a fresh process to its key; a description (no code runs) does not. */
  bind: boolean;
  payload: Record<string, unknown>;
  timeoutMs: number;
  allowNetwork: boolean;
  fetch: GuardedFetch;
  signal?: AbortSignal;
  resolve: (answer: Record<string, unknown>) => void;
  queueTimer?: NodeJS.Timeout;
  onAbort?: () => void;
}

interface Running {
  id: number;
  job: Job;
  deadline: number;
  requests: number;
  /** Aborts the call's outbound requests when it ends. */
  outbound: AbortController;
  timer: NodeJS.Timeout;
  rssTimer: NodeJS.Timeout;
}

interface Sandbox {
  child: ChildProcess;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  /** The isolation key whose code has run here; null while fresh. */
  key: string | null;
  lastUsed: number;
  running: Running | null;
  stderrTail: string;
}

const consoleLog: SandboxLogger = {
  warn: (m, d) => console.warn(`[sandbox] ${m}`, d ?? ''),
  error: (m, d) => console.error(`[sandbox] ${m}`, d ?? ''),
};

const fail = (kind: SandboxErrorKind, error: string): SandboxFailure => ({ ok: false, kind, error });
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const size = Math.max(1, options.size ?? 2);
  /** Processes one isolation key may run at once: all but one (so another key is never shut out). */
  const maxPerKey = Math.max(1, size - 1);
  const prewarmOption = options.prewarm ?? true;
  /** Processes kept started (warm) even without calls. */
  const warmCount = prewarmOption === true ? size : prewarmOption === false ? 0 : Math.max(0, Math.min(size, Math.floor(prewarmOption)));
  /** What ready() waits for: the warm processes (all of them when none are kept warm, as before). */
  const readyCount = warmCount || size;
  const timeoutMs = options.timeoutMs ?? 5000;
  const memoryLimitMb = options.memoryLimitMb ?? 320;
  const resultMaxBytes = options.resultMaxBytes ?? 16 * 1024;
  const maxQueue = options.maxQueue ?? 100;
  const queueTimeoutMs = options.queueTimeoutMs ?? 20_000;
  const coldStartTimeoutMs = Math.max(queueTimeoutMs, options.coldStartTimeoutMs ?? 90_000);
  /** A process has been ready once: from then on calls wait `queueTimeoutMs` at most. */
  let warm = false;
  const recycleIdleMs = options.recycleIdleMs ?? 120_000;
  const outbound = options.outbound ?? {};
  const poolFetch = sharedGuardedFetch(outbound.allowPrivateAddresses ?? false);
  const log = options.log ?? consoleLog;
  let snapshot: Buffer | null = null;
  let snapshotPending = options.snapshot ?? true;

  const sandboxes: Sandbox[] = [];
  const queue: Job[] = [];
  let closed = false;
  let nextId = 1;
  let nextSeq = 1;
  let started = 0;
  const kills: Record<SandboxKillReason, number> = { timeout: 0, memory: 0, crashed: 0, aborted: 0 };
  let busyRefusals = 0;
  let startupFailures = 0;
  let pausedUntil = 0;
  const readyWaiters: { resolve: () => void; reject: (err: Error) => void }[] = [];

  const flags = sandboxNodeFlags();

  /** Runs a process in snapshot mode once; its memory snapshot starts every later process. */
  function makeSnapshot(): void {
    const child = spawn(process.execPath, [...flags, CHILD, JSON.stringify({ mode: 'snapshot', pyodideDir: PYODIDE_DIR, memoryLimitMb })], {
      cwd: PYODIDE_DIR,
      env: {},
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SNAPSHOT_BYTES) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-1000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && size > 0 && size <= MAX_SNAPSHOT_BYTES) snapshot = Buffer.concat(chunks);
      else if (!closed) log.warn('no memory snapshot could be made; sandbox processes load Pyodide afresh', { code, stderr: stderr.slice(-300) });
      snapshotPending = false;
      pump();
    });
  }

  function spawnSandbox(): void {
    started += 1;
    const bytes = snapshot;
    const child = spawn(process.execPath, [...flags, CHILD, JSON.stringify({ mode: 'serve', pyodideDir: PYODIDE_DIR, memoryLimitMb, snapshotBytes: bytes?.length ?? 0 })], {
      cwd: PYODIDE_DIR,
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    });
    const snapshotPipe = (child.stdio as unknown as Writable[])[5]!;
    snapshotPipe.on('error', () => {});
    snapshotPipe.end(bytes ?? undefined);
    const sandbox: Sandbox = { child, state: 'starting', key: null, lastUsed: Date.now(), running: null, stderrTail: '' };
    sandboxes.push(sandbox);
    const control = child.stdio[3] as unknown as Readable & Writable;
    const bridge = child.stdio[4] as unknown as Readable & Writable;
    const controlFrames = new FrameDecoder(MAX_CONTROL_FRAME);
    const bridgeFrames = new FrameDecoder(MAX_BRIDGE_FRAME);

    child.stderr?.on('data', (chunk: Buffer) => {
      sandbox.stderrTail = (sandbox.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    control.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = controlFrames.push(chunk);
      } catch (err) {
        log.error('a sandbox process sent an invalid answer; replacing it', { error: (err as Error).message });
        return finish(sandbox, fail('crashed', 'The function sandbox misbehaved and was replaced.'), true);
      }
      for (const message of messages) onControl(sandbox, message);
    });
    bridge.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = bridgeFrames.push(chunk);
      } catch {
        return finish(sandbox, fail('crashed', 'The function sandbox misbehaved and was replaced.'), true);
      }
      for (const message of messages) void onBridge(sandbox, bridge, message);
    });
    control.on('error', () => {});
    bridge.on('error', () => {});
    child.on('error', (err) => log.error('a sandbox process could not start', { error: err.message }));
    child.on('exit', (code, signal) => onExit(sandbox, code, signal));
  }

  function onControl(sandbox: Sandbox, message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const m = message as Record<string, unknown>;
    if (m.type === 'ready' && sandbox.state === 'starting') {
      sandbox.state = 'idle';
      warm = true;
      startupFailures = 0;
      const rss = Number(m.rss);
      if (rss > memoryLimitMb * 1024 * 1024 * 0.8) log.warn('a warm sandbox already uses most of its memory limit', { rssMb: Math.round(rss / 1048576), memoryLimitMb });
      pump();
      return;
    }
    const running = sandbox.running;
    if (!running || m.id !== running.id) return;
    finish(sandbox, m, false);
  }

  async function onBridge(sandbox: Sandbox, bridge: Writable, message: unknown): Promise<void> {
    const running = sandbox.running;
    const answer = (body: unknown) => {
      if (sandbox.running === running && sandbox.state === 'busy') bridge.write(encodeFrame(body));
    };
    if (!running || running.job.op !== 'call') return answer({ error: 'No request can be made now.' });
    if (!running.job.allowNetwork) return answer({ error: 'Network access is not allowed for this function.' });
    const maxRequests = outbound.maxRequestsPerCall ?? OUTBOUND.maxRequestsPerCall;
    if (++running.requests > maxRequests) return answer({ error: `A function call may make at most ${maxRequests} requests.` });
    const request = parseBridgeRequest(message, outbound.maxRequestBytes ?? OUTBOUND.maxRequestBytes);
    if (typeof request === 'string') return answer({ error: request });
    const timeoutMs = Math.min(running.deadline - Date.now(), outbound.timeoutMs ?? OUTBOUND.timeoutMs, request.timeoutMs);
    if (timeoutMs <= 0) return answer({ error: 'There is no time left for the request.' });
    try {
      const response = await running.job.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        timeoutMs,
        maxBytes: outbound.maxResponseBytes ?? OUTBOUND.maxResponseBytes,
        signal: running.outbound.signal,
      });
      const body = Buffer.from(await response.arrayBuffer());
      // The body arrives decoded: its encoding and length headers no longer describe it.
      const headers = [...response.headers].filter(([name]) => name !== 'content-encoding' && name !== 'content-length');
      answer({ status: response.status, reason: response.statusText, headers, url: response.url || request.url, body: body.toString('base64') });
    } catch (err) {
      answer({ error: err instanceof Error ? err.message : 'The request failed.' });
    }
  }

  function onExit(sandbox: Sandbox, code: number | null, signal: NodeJS.Signals | null): void {
    const wasStarting = sandbox.state === 'starting';
    sandbox.state = 'dead';
    const index = sandboxes.indexOf(sandbox);
    if (index >= 0) sandboxes.splice(index, 1);
    if (sandbox.running) finish(sandbox, fail('crashed', 'The function stopped the sandbox unexpectedly.'), false);
    if (closed) return;
    if (wasStarting) {
      startupFailures += 1;
      log.error('a sandbox process failed to start', { code, signal, stderr: sandbox.stderrTail.slice(-500) });
      if (snapshot && startupFailures >= 2) {
        snapshot = null;
        log.warn('sandbox processes do not start from the memory snapshot; they load Pyodide afresh');
      }
      if (startupFailures >= STARTUP_FAILURES_BEFORE_PAUSE) {
        // Do not spin: wait before trying again, and tell the calls that are waiting.
        pausedUntil = Date.now() + 5000;
        for (const job of queue.splice(0)) settle(job, fail('crashed', 'The function sandbox cannot start.'));
        const err = new Error(`The function sandbox cannot start: ${sandbox.stderrTail.trim().split('\n').slice(-3).join(' ')}`);
        for (const waiter of readyWaiters.splice(0)) waiter.reject(err);
        setTimeout(pump, 5000).unref();
      }
    }
    pump();
  }

  /** Ends the running job of a sandbox with this answer; kills the process when asked. */
  function finish(sandbox: Sandbox, answer: Record<string, unknown>, kill: boolean): void {
    const running = sandbox.running;
    if (running) {
      sandbox.running = null;
      clearTimeout(running.timer);
      clearInterval(running.rssTimer);
      running.outbound.abort();
      settle(running.job, answer);
      if ((kill || answer.fatal || answer.kind === 'crashed') && KILL_REASONS.has(answer.kind as string)) kills[answer.kind as SandboxKillReason] += 1;
    }
    if (kill || answer.fatal) {
      if (sandbox.state !== 'dead') retire(sandbox);
      pump();
      return;
    }
    if (sandbox.state === 'busy') {
      sandbox.state = 'idle';
      sandbox.lastUsed = Date.now();
      pump();
    }
  }

  function settle(job: Job, answer: Record<string, unknown>): void {
    if (job.queueTimer) clearTimeout(job.queueTimer);
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    job.resolve(answer);
  }

  function run(sandbox: Sandbox, job: Job): void {
    if (job.queueTimer) clearTimeout(job.queueTimer);
    const id = nextId++;
    sandbox.state = 'busy';
    if (job.bind) sandbox.key = job.key;
    const pid = sandbox.child.pid!;
    const running: Running = {
      id,
      job,
      deadline: Date.now() + job.timeoutMs,
      requests: 0,
      outbound: new AbortController(),
      timer: setTimeout(() => {
        if (sandbox.running !== running) return;
        finish(sandbox, fail('timeout', `The function did not finish within ${seconds(job.timeoutMs)} and was stopped.`), true);
      }, job.timeoutMs),
      rssTimer: setInterval(() => {
        void residentBytes(pid).then((rss) => {
          if (rss !== null && rss > memoryLimitMb * 1024 * 1024 && sandbox.running === running) {
            finish(sandbox, fail('memory', `The function used more than ${memoryLimitMb} MB of memory and was stopped.`), true);
          }
        });
      }, RSS_POLL_MS),
    };
    sandbox.running = running;
    (sandbox.child.stdio[3] as unknown as Writable).write(encodeFrame({ id, op: job.op, ...job.payload }));
  }

  function idle(predicate: (s: Sandbox) => boolean): Sandbox | undefined {
    return sandboxes.find((s) => s.state === 'idle' && predicate(s));
  }

  /** Processes running each key's code now. */
  function busyByKey(): Map<string, number> {
    const busy = new Map<string, number>();
    for (const s of sandboxes) if (s.state === 'busy' && s.key !== null) busy.set(s.key, (busy.get(s.key) ?? 0) + 1);
    return busy;
  }

  /**
   * Gives processes to waiting jobs, fairly between isolation keys (one owner's functions, for
   * the tool runner): jobs of a key with the fewest processes running go first, in arrival order
   * within a key, and no key runs on more than `size - 1` processes at once — so one owner's queue
   * of slow calls cannot take every process while another owner waits. Each job
   * in that order takes an idle process of its key, else a fresh one; a job whose key runs nowhere
   * may also have a process started for it (growing the pool, else recycling the idle process
   * unused the longest, of another key).
   */
  function pump(): void {
    if (closed) return;
    for (;;) {
      const busy = busyByKey();
      const order = [...queue].sort((a, b) => (busy.get(a.key) ?? 0) - (busy.get(b.key) ?? 0) || (a.seq ?? 0) - (b.seq ?? 0));
      let ran = false;
      for (const job of order) {
        // One key never holds every process: the next owner's call finds one (or its start).
        if ((busy.get(job.key) ?? 0) >= maxPerKey) continue;
        const sandbox = idle((s) => s.key === job.key) ?? idle((s) => s.key === null);
        if (!sandbox) continue;
        queue.splice(queue.indexOf(job), 1);
        run(sandbox, job);
        ran = true;
        break;
      }
      if (!ran) break;
    }
    if (Date.now() < pausedUntil || snapshotPending) return;
    // Start processes for the jobs left whose key runs nowhere, in arrival order: the ones already
    // starting are theirs; then grow the pool, else recycle an idle process of another key.
    let starting = sandboxes.filter((s) => s.state === 'starting').length;
    const busy = busyByKey();
    const waiting = queue.filter((job) => !busy.has(job.key)).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    for (const { key } of waiting) {
      if (starting > 0) {
        starting -= 1;
        continue;
      }
      if (sandboxes.length < size) {
        spawnSandbox();
        continue;
      }
      const victim = sandboxes
        .filter((s) => s.state === 'idle' && s.key !== null && s.key !== key)
        .sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!victim) break;
      retire(victim);
      spawnSandbox();
    }
    while (sandboxes.length < warmCount) spawnSandbox();
    if (readyWaiters.length && sandboxes.length >= readyCount && sandboxes.every((s) => s.state !== 'starting')) {
      for (const waiter of readyWaiters.splice(0)) waiter.resolve();
    }
  }

  function retire(sandbox: Sandbox): void {
    sandbox.state = 'dead';
    const index = sandboxes.indexOf(sandbox);
    if (index >= 0) sandboxes.splice(index, 1);
    sandbox.child.kill('SIGKILL');
  }

  function submit(job: Omit<Job, 'resolve'>): Promise<Record<string, unknown>> {
    if (closed) return Promise.resolve(fail('closed', 'The function sandbox is shut down.'));
    if (job.signal?.aborted) return Promise.resolve(fail('aborted', 'The call was cancelled.'));
    if (queue.length >= maxQueue) {
      busyRefusals += 1;
      return Promise.resolve(fail('busy', 'Too many functions are running; try again shortly.'));
    }
    return new Promise((resolve) => {
      const queued: Job = { ...job, seq: nextSeq++, resolve };
      const dequeue = (answer: SandboxFailure) => {
        const index = queue.indexOf(queued);
        if (index < 0) return false;
        queue.splice(index, 1);
        settle(queued, answer);
        return true;
      };
      queued.queueTimer = setTimeout(
        () => {
          if (dequeue(fail('busy', 'No function sandbox became free in time; try again shortly.'))) busyRefusals += 1;
        },
        warm ? Math.min(queueTimeoutMs, job.queueTimeoutMs ?? Infinity) : coldStartTimeoutMs,
      );
      if (job.signal) {
        queued.onAbort = () => {
          const aborted = fail('aborted', 'The call was cancelled.');
          if (dequeue(aborted)) return;
          const sandbox = sandboxes.find((s) => s.running?.job === queued);
          if (sandbox) finish(sandbox, aborted, true);
        };
        job.signal.addEventListener('abort', queued.onAbort, { once: true });
      }
      queue.push(queued);
      pump();
    });
  }

  const recycler = setInterval(
    () => {
      const now = Date.now();
      for (const s of [...sandboxes]) if (s.state === 'idle' && s.key !== null && now - s.lastUsed > recycleIdleMs) retire(s);
      pump();
    },
    Math.max(1000, Math.floor(recycleIdleMs / 4)),
  );
  recycler.unref();

  const hashOf = (code: string) => createHash('sha256').update(code).digest('hex');
  const keyOf = (code: string, isolationKey?: string) => isolationKey ?? `code:${hashOf(code)}`;
  /** Descriptions depend on the code and entry only: kept (most recent DESCRIBE_CACHE) so that each session does not ask again. */
  const described = new Map<string, DescribeResult>();

  function checkCode(code: unknown): SandboxFailure | null {
    if (typeof code !== 'string' || code.trim() === '') return fail('invalid', 'The function has no code.');
    if (code.length > MAX_CODE_CHARS) return fail('invalid', 'The function code is too long.');
    return null;
  }

  if (snapshotPending) makeSnapshot();
  else if (warmCount) pump();

  return {
    async describe(code, entry, opts = {}) {
      const invalid = checkCode(code);
      if (invalid) return invalid;
      const cacheKey = `${hashOf(code)}:${entry ?? ''}`;
      const cached = described.get(cacheKey);
      if (cached) {
        described.delete(cacheKey);
        described.set(cacheKey, cached);
        return structuredClone(cached);
      }
      const answer = await submit({
        op: 'describe',
        key: keyOf(code, opts.isolationKey),
        bind: false,
        payload: { code, entry: entry ?? '' },
        timeoutMs: opts.timeoutMs ?? timeoutMs,
        allowNetwork: false,
        fetch: poolFetch,
      });
      const result: DescribeResult = answer.ok === true && typeof answer.tool === 'object' && answer.tool !== null ? { ok: true, tool: answer.tool as ToolSpec } : toFailure(answer);
      if (result.ok || result.kind === 'invalid') {
        described.set(cacheKey, result);
        if (described.size > DESCRIBE_CACHE) described.delete(described.keys().next().value!);
      }
      return structuredClone(result);
    },

    async call(code, entry, argsJson, opts = {}) {
      const invalid = checkCode(code);
      if (invalid) return invalid;
      const args = argsJson.trim() === '' ? '{}' : argsJson;
      if (Buffer.byteLength(args, 'utf8') > MAX_ARGS_BYTES) return fail('invalid', 'The arguments are too large.');
      let parsed: unknown;
      try {
        parsed = JSON.parse(args);
      } catch {
        return fail('invalid', 'The arguments are not valid JSON.');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail('invalid', 'The arguments must be a JSON object.');
      const answer = await submit({
        op: 'call',
        key: keyOf(code, opts.isolationKey),
        bind: true,
        payload: { code, entry, args, resultMaxBytes },
        timeoutMs: opts.timeoutMs ?? timeoutMs,
        allowNetwork: opts.allowNetwork ?? false,
        fetch: opts.fetch ?? poolFetch,
        signal: opts.signal,
        queueTimeoutMs: opts.queueTimeoutMs,
      });
      if (answer.ok === true && typeof answer.result === 'string') {
        // The process cuts results itself; this only holds one that did not to the limit.
        const result = Buffer.byteLength(answer.result, 'utf8') > resultMaxBytes + 100 ? Buffer.from(answer.result, 'utf8').subarray(0, resultMaxBytes).toString('utf8') : answer.result;
        return { ok: true, result, truncated: answer.truncated === true || result !== answer.result };
      }
      return toFailure(answer);
    },

    ready() {
      if (closed) return Promise.reject(new Error('The function sandbox is shut down.'));
      if (sandboxes.length >= readyCount && sandboxes.every((s) => s.state !== 'starting')) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        readyWaiters.push({ resolve, reject });
        pump();
      });
    },

    stats() {
      const count = (state: Sandbox['state']) => sandboxes.filter((s) => s.state === state).length;
      return { processes: sandboxes.length, starting: count('starting'), idle: count('idle'), busy: count('busy'), queued: queue.length, started, kills: { ...kills }, busyRefusals };
    },

    async close() {
      closed = true;
      clearInterval(recycler);
      for (const job of queue.splice(0)) settle(job, fail('closed', 'The function sandbox is shut down.'));
      // Whoever waits for the pool to be ready hears that it never will be (not left hanging).
      for (const waiter of readyWaiters.splice(0)) waiter.reject(new Error('The function sandbox is shut down.'));
      const exits = sandboxes.map((s) => new Promise<void>((resolve) => (s.child.exitCode !== null || s.child.signalCode !== null ? resolve() : s.child.once('exit', () => resolve()))));
      for (const s of [...sandboxes]) {
        if (s.running) finish(s, fail('closed', 'The function sandbox is shut down.'), true);
        else s.child.kill('SIGKILL');
      }
      await Promise.all(exits);
    },
  };
}

const KINDS = new Set<SandboxErrorKind>(['raised', 'invalid', 'timeout', 'memory', 'crashed', 'busy', 'aborted', 'closed']);

function toFailure(answer: Record<string, unknown>): SandboxFailure {
  const kind = KINDS.has(answer.kind as SandboxErrorKind) ? (answer.kind as SandboxErrorKind) : 'crashed';
  const error = typeof answer.error === 'string' && answer.error ? answer.error.slice(0, 500) : 'The function failed.';
  return { ok: false, kind, error };
}

/** A request from urllib (untrusted: it comes from the sandbox), or why it cannot be made. */
function parseBridgeRequest(
  message: unknown,
  maxBodyBytes: number,
): { method: string; url: string; headers: Record<string, string>; body: Buffer | null; timeoutMs: number } | string {
  const r = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  if (typeof r.url !== 'string' || typeof r.method !== 'string') return 'The request is not valid.';
  const method = r.method.toUpperCase();
  if (!METHODS.has(method)) return `The method ${method.slice(0, 20)} is not allowed.`;
  const headers: Record<string, string> = {};
  if (typeof r.headers === 'object' && r.headers !== null) {
    for (const [name, value] of Object.entries(r.headers)) {
      if (typeof value === 'string' && !DROPPED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
  }
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'base64') : null;
  if (body && body.length > maxBodyBytes) return `The request body is larger than ${Math.round(maxBodyBytes / 1024)} KB.`;
  const timeoutMs = typeof r.timeout === 'number' && r.timeout > 0 ? r.timeout * 1000 : Infinity;
  return { method, url: r.url, headers, body, timeoutMs };
}
