import { createHash } from 'node:crypto';
import type { GuardedFetch } from '../core/types.js';
import { sharedGuardedFetch } from '@persona/net';
import { forwardRequest } from './bridge.js';
import { nextRun, startsFor, type Slot } from './schedule.js';
import { makeSnapshot as snapshotProcess, residentBytes, sandboxNodeFlags, startProcess, type SandboxProcess } from './process.js';
import {
  fail,
  KILL_REASONS,
  toFailure,
  type DescribeResult,
  type SandboxFailure,
  type SandboxKillReason,
  type SandboxLogger,
  type SandboxPool,
  type SandboxPoolOptions,
  type ToolSpec,
} from './types.js';

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
 *
 * This file is the scheduler: which call runs on which process, fairly between isolation keys,
 * with a time limit, a memory limit and a queue. A process and its pipes: process.ts; urllib's
 * requests: bridge.ts; the types and answers: types.ts.
 */

const MAX_ARGS_BYTES = 64 * 1024;
const MAX_CODE_CHARS = 200_000;
const RSS_POLL_MS = 50;
const DESCRIBE_CACHE = 500;
const STARTUP_FAILURES_BEFORE_PAUSE = 3;

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

interface Sandbox extends Slot {
  process: SandboxProcess;
  running: Running | null;
}

const consoleLog: SandboxLogger = {
  warn: (m, d) => console.warn(`[sandbox] ${m}`, d ?? ''),
  error: (m, d) => console.error(`[sandbox] ${m}`, d ?? ''),
};

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

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
    void snapshotProcess(flags, memoryLimitMb).then(({ snapshot: made, code, stderr }) => {
      snapshot = made;
      if (!made && !closed) log.warn('no memory snapshot could be made; sandbox processes load Pyodide afresh', { code, stderr: stderr.slice(-300) });
      snapshotPending = false;
      pump();
    });
  }

  function spawnSandbox(): void {
    started += 1;
    const sandbox: Sandbox = {
      state: 'starting',
      key: null,
      lastUsed: Date.now(),
      running: null,
      process: startProcess(flags, memoryLimitMb, snapshot, {
        control: (message) => onControl(sandbox, message),
        bridge: (message, reply) => void onBridge(sandbox, message, reply),
        garbled: (channel, err) => {
          if (channel === 'control') log.error('a sandbox process sent an invalid answer; replacing it', { error: err.message });
          finish(sandbox, fail('crashed', 'The function sandbox misbehaved and was replaced.'), true);
        },
        exit: (code, signal) => onExit(sandbox, code, signal),
        startError: (err) => log.error('a sandbox process could not start', { error: err.message }),
      }),
    };
    sandboxes.push(sandbox);
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

  /** A request of urllib from the call running on `sandbox`; answered only while that call runs. */
  async function onBridge(sandbox: Sandbox, message: unknown, reply: (answer: unknown) => void): Promise<void> {
    const running = sandbox.running;
    const answer = (body: unknown) => {
      if (sandbox.running === running && sandbox.state === 'busy') reply(body);
    };
    if (!running || running.job.op !== 'call') return answer({ error: 'No request can be made now.' });
    answer(await forwardRequest(message, { allowNetwork: running.job.allowNetwork, requestsMade: running.requests++, deadline: running.deadline, fetch: running.job.fetch, signal: running.outbound.signal }, outbound));
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
      log.error('a sandbox process failed to start', { code, signal, stderr: sandbox.process.stderrTail().slice(-500) });
      if (snapshot && startupFailures >= 2) {
        snapshot = null;
        log.warn('sandbox processes do not start from the memory snapshot; they load Pyodide afresh');
      }
      if (startupFailures >= STARTUP_FAILURES_BEFORE_PAUSE) {
        // Do not spin: wait before trying again, and tell the calls that are waiting.
        pausedUntil = Date.now() + 5000;
        for (const job of queue.splice(0)) settle(job, fail('crashed', 'The function sandbox cannot start.'));
        const err = new Error(`The function sandbox cannot start: ${sandbox.process.stderrTail().trim().split('\n').slice(-3).join(' ')}`);
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
    const pid = sandbox.process.child.pid!;
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
    sandbox.process.send({ id, op: job.op, ...job.payload });
  }

  /** Gives processes to waiting jobs and starts the processes they need (schedule.ts decides). */
  function pump(): void {
    if (closed) return;
    for (let next = nextRun(queue, sandboxes, maxPerKey); next; next = nextRun(queue, sandboxes, maxPerKey)) {
      queue.splice(queue.indexOf(next.job), 1);
      run(next.slot, next.job);
    }
    if (Date.now() < pausedUntil || snapshotPending) return;
    for (const { retire: victim } of startsFor(queue, sandboxes, size)) {
      if (victim) retire(victim);
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
    sandbox.process.child.kill('SIGKILL');
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
      const exits = sandboxes.map(({ process: { child } }) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))));
      for (const s of [...sandboxes]) {
        if (s.running) finish(s, fail('closed', 'The function sandbox is shut down.'), true);
        else s.process.child.kill('SIGKILL');
      }
      await Promise.all(exits);
    },
  };
}
