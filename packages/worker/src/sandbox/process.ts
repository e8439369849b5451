import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { encodeFrame, FrameDecoder } from './frames.js';

/**
 * One sandbox process (child.mjs) and how it is started: Node's permission model reading only
 * Pyodide and the sandbox's own files, an empty environment, no addons, no code generation from
 * strings. Its pipes: fd 3 the control channel (calls in, answers out), fd 4 the bridge (urllib's
 * requests out, their answers in), fd 5 the memory snapshot it starts from; stderr is kept (a tail)
 * for the log. The pool (pool.ts) decides what runs where; this file only speaks to processes.
 */

const require = createRequire(import.meta.url);
const PYODIDE_DIR = path.dirname(require.resolve('pyodide/pyodide.mjs'));
const SANDBOX_DIR = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(SANDBOX_DIR, 'child.mjs');
/** Answers are capped by the child; anything near this is a misbehaving process. */
const MAX_CONTROL_FRAME = 1024 * 1024;
const MAX_BRIDGE_FRAME = 4 * 1024 * 1024;
const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;
const SNAPSHOT_TIMEOUT_MS = 60_000;

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

/**
 * Runs a process in snapshot mode once: the memory of a warm interpreter, which starts every later
 * process (~0.4 s instead of ~2.5 s). Null when none could be made (`stderr` says why).
 */
export function makeSnapshot(flags: readonly string[], memoryLimitMb: number): Promise<{ snapshot: Buffer | null; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
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
    const timer = setTimeout(() => child.kill('SIGKILL'), SNAPSHOT_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ok = code === 0 && size > 0 && size <= MAX_SNAPSHOT_BYTES;
      resolve({ snapshot: ok ? Buffer.concat(chunks) : null, code, stderr });
    });
  });
}

/** What a process tells its owner. */
export interface ProcessEvents {
  /** A message on the control channel (`ready`, or the answer to a call). */
  control(message: unknown): void;
  /** A request of urllib on the bridge; `reply` answers it. */
  bridge(message: unknown, reply: (answer: unknown) => void): void;
  /** A frame that could not be read (too large, not JSON): the process misbehaves. */
  garbled(channel: 'control' | 'bridge', error: Error): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  /** The process could not be started at all. */
  startError(error: Error): void;
}

export interface SandboxProcess {
  readonly child: ChildProcess;
  /** The last 2000 characters of its stderr. */
  stderrTail(): string;
  /** Writes a message on the control channel. */
  send(message: Record<string, unknown>): void;
}

export function startProcess(flags: readonly string[], memoryLimitMb: number, snapshot: Buffer | null, on: ProcessEvents): SandboxProcess {
  const child = spawn(process.execPath, [...flags, CHILD, JSON.stringify({ mode: 'serve', pyodideDir: PYODIDE_DIR, memoryLimitMb, snapshotBytes: snapshot?.length ?? 0 })], {
    cwd: PYODIDE_DIR,
    env: {},
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const snapshotPipe = (child.stdio as unknown as Writable[])[5]!;
  snapshotPipe.on('error', () => {});
  snapshotPipe.end(snapshot ?? undefined);
  const control = child.stdio[3] as unknown as Readable & Writable;
  const bridge = child.stdio[4] as unknown as Readable & Writable;
  const controlFrames = new FrameDecoder(MAX_CONTROL_FRAME);
  const bridgeFrames = new FrameDecoder(MAX_BRIDGE_FRAME);
  let stderrTail = '';

  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
  });
  control.on('data', (chunk: Buffer) => {
    let messages: unknown[];
    try {
      messages = controlFrames.push(chunk);
    } catch (err) {
      return on.garbled('control', err as Error);
    }
    for (const message of messages) on.control(message);
  });
  bridge.on('data', (chunk: Buffer) => {
    let messages: unknown[];
    try {
      messages = bridgeFrames.push(chunk);
    } catch (err) {
      return on.garbled('bridge', err as Error);
    }
    for (const message of messages) on.bridge(message, (answer) => bridge.write(encodeFrame(answer)));
  });
  control.on('error', () => {});
  bridge.on('error', () => {});
  child.on('error', (err) => on.startError(err));
  child.on('exit', (code, signal) => on.exit(code, signal));
  return {
    child,
    stderrTail: () => stderrTail,
    send: (message) => control.write(encodeFrame(message)),
  };
}

/** Resident memory of a process (Linux /proc), or null when it cannot be read. */
export async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}
