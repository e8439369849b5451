// @ts-check
/**
 * One sandbox process (spawned by pool.ts; see docs/decisions/020-python-function-sandbox.md).
 * Plain JavaScript so that the same file runs from src/ (tests) and dist/ (tsc copies it) without
 * a loader, under Node's permission model:
 *
 *   node --permission --allow-fs-read=<pyodide dir>/ --allow-fs-read=<this dir>/
 *        --disallow-code-generation-from-strings [--no-experimental-fetch, before Node 24] --no-addons child.mjs
 *
 * with an empty environment. The permission model refuses file reads outside those two folders,
 * every file write, child processes, worker threads, WASI, native addons and process.binding.
 * Node 20 has no network permission, so this file takes the network away itself before any
 * untrusted code exists: every connecting, listening, resolving or inspecting entry point of
 * net, tls, dgram, dns, http, https, http2 and inspector is replaced by a function that throws,
 * in the modules' shared exports (so `import('node:net')` sees the same), and the global fetch
 * is gone. Python sees no JavaScript globals (`import js` is an empty object).
 *
 * File descriptors (set up by the parent, never reachable from Python by name):
 *   3  control: frames parent → child {id, op: 'describe' | 'call', ...}, child → parent answers
 *   4  bridge: while a call runs, Python's urllib asks the parent for HTTP through it,
 *      synchronously (the parent applies the outbound guard and may refuse)
 *   5  the memory snapshot to start from (read once at start)
 * A frame is a 4-byte big-endian length and that many bytes of UTF-8 JSON.
 */
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PYTHON_HARNESS } from './python-harness.mjs';

const CONTROL_FD = 3;
const BRIDGE_FD = 4;
const MAX_FRAME = 8 * 1024 * 1024;
const require = createRequire(import.meta.url);
/**
 * mode 'serve': answer requests; starts from the memory snapshot of `snapshotBytes` bytes the
 * parent writes to fd 5, or loads Pyodide afresh when there is none.
 * mode 'snapshot': load Pyodide and the harness, write the memory snapshot to stdout, exit.
 * @type {{ mode: 'serve' | 'snapshot', pyodideDir: string, memoryLimitMb: number, snapshotBytes?: number }}
 */
const options = JSON.parse(process.argv[2] ?? '{}');
const SNAPSHOT_FD = 5;

// A promise Python left behind (e.g. loadPackage of a URL) must not end the process later.
process.on('unhandledRejection', () => {});

// ── No environment ─────────────────────────────────────────────────────────────────────────
// The process empties its own environment (it reads no configuration): config.ts is the parent's.
// eslint-disable-next-line no-restricted-properties
for (const key of Object.keys(process.env)) delete process.env[key];

// ── The control channel, opened before net is taken away ───────────────────────────────────
const net = require('node:net');
const control = options.mode === 'serve' ? new net.Socket({ fd: CONTROL_FD, readable: true, writable: true }) : null;

/** @param {unknown} message */
function send(message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  control?.write(Buffer.concat([head, body]));
}

// ── No network, no inspector, no process control ───────────────────────────────────────────
/** @param {string} what */
const refused = (what) =>
  function refusedInSandbox() {
    throw Object.assign(new Error(`${what} is not available in the function sandbox`), { code: 'ERR_SANDBOX_DENIED' });
  };
/** Replaces every function property of an object (exports or prototype) with a thrower. */
function neuter(/** @type {any} */ target, /** @type {string} */ label, /** @type {string[] | null} */ only = null) {
  if (!target) return;
  for (const key of Object.getOwnPropertyNames(target)) {
    if (key === 'constructor' || (only && !only.includes(key))) continue;
    const desc = Object.getOwnPropertyDescriptor(target, key);
    if (!desc || typeof desc.value !== 'function' || !desc.configurable) continue;
    Object.defineProperty(target, key, { value: refused(`${label}.${key}`), writable: false, configurable: false });
  }
}
const tls = require('node:tls');
const dgram = require('node:dgram');
const dns = require('node:dns');
const http = require('node:http');
const https = require('node:https');
const http2 = require('node:http2');
const inspector = require('node:inspector');
const childProcess = require('node:child_process');
const workerThreads = require('node:worker_threads');
const cluster = require('node:cluster');
neuter(net.Socket.prototype, 'net.Socket', ['connect']);
neuter(net.Server.prototype, 'net.Server', ['listen']);
neuter(net, 'net', ['connect', 'createConnection', 'createServer']);
neuter(tls, 'tls', ['connect', 'createServer', 'createSecurePair']);
neuter(dgram.Socket.prototype, 'dgram.Socket', ['bind', 'connect', 'send', 'sendto']);
neuter(dgram, 'dgram', ['createSocket']);
neuter(dns, 'dns');
neuter(dns.promises, 'dns.promises');
neuter(dns.Resolver.prototype, 'dns.Resolver');
neuter(dns.promises.Resolver.prototype, 'dns.promises.Resolver');
neuter(http, 'http', ['request', 'get', 'createServer']);
neuter(https, 'https', ['request', 'get', 'createServer']);
neuter(http.Agent.prototype, 'http.Agent', ['createConnection']);
neuter(https.Agent.prototype, 'https.Agent', ['createConnection']);
neuter(http2, 'http2', ['connect', 'createServer', 'createSecureServer']);
neuter(inspector, 'inspector', ['open', 'url', 'waitForDebugger']);
neuter(inspector.Session.prototype, 'inspector.Session', ['connect', 'connectToMainThread', 'post']);
neuter(childProcess, 'child_process');
neuter(workerThreads, 'worker_threads', ['Worker']);
neuter(cluster, 'cluster', ['fork', 'setupPrimary', 'setupMaster']);
syncBuiltinESMExports();
for (const name of ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']) delete (/** @type {any} */ (globalThis))[name];
const proc = /** @type {any} */ (process);
for (const key of ['kill', 'dlopen', '_linkedBinding', 'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups', 'initgroups', 'chdir']) {
  if (typeof proc[key] === 'function') proc[key] = refused(`process.${key}`);
}
if (proc.report) for (const key of ['getReport', 'writeReport']) proc.report[key] = refused(`process.report.${key}`);
// Pyodide's NODEFS reads the file-system constants through process.binding, which the
// permission model refuses; nothing else is answered.
const constants = { fs: fs.constants, os: require('node:os').constants };
proc.binding = (/** @type {string} */ name) => {
  if (name === 'constants') return constants;
  return refused(`process.binding(${name})`)();
};

// ── Memory: the wasm heap may not grow past what the limit leaves (Python gets MemoryError);
// the parent also watches the process's resident size and kills it above the limit. ────────
const wasm = /** @type {any} */ (globalThis).WebAssembly;
let wasmCapBytes = Infinity;
const memoryGrow = wasm.Memory.prototype.grow;
Object.defineProperty(wasm.Memory.prototype, 'grow', {
  value: function grow(/** @type {number} */ pages) {
    if (this.buffer.byteLength + pages * 65536 > wasmCapBytes) throw new RangeError('the function sandbox memory limit is reached');
    return memoryGrow.call(this, pages);
  },
  writable: false,
  configurable: false,
});

// ── The bridge: a synchronous request to the parent, used by Python's urllib ───────────────
function readExactly(/** @type {number} */ fd, /** @type {number} */ length) {
  const buffer = Buffer.alloc(length);
  let offset = 0;
  while (offset < length) {
    const n = fs.readSync(fd, buffer, offset, length - offset, null);
    if (n === 0) throw new Error('the worker closed the bridge');
    offset += n;
  }
  return buffer;
}
function writeAll(/** @type {number} */ fd, /** @type {Buffer} */ buffer) {
  let offset = 0;
  while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
}
/** @param {string} requestJson */
function bridgeRequest(requestJson) {
  const body = Buffer.from(String(requestJson), 'utf8');
  if (body.length > MAX_FRAME) return JSON.stringify({ error: 'The request is too large.' });
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  writeAll(BRIDGE_FD, Buffer.concat([head, body]));
  const length = readExactly(BRIDGE_FD, 4).readUInt32BE(0);
  if (length > MAX_FRAME) throw new Error('bridge answer too large');
  return readExactly(BRIDGE_FD, length).toString('utf8');
}

// ── Pyodide ────────────────────────────────────────────────────────────────────────────────
const { loadPyodide } = /** @type {typeof import('pyodide')} */ (await import(pathToFileURL(path.join(options.pyodideDir, 'pyodide.mjs')).href));
/** @type {Buffer | null} */
let snapshot = options.mode === 'serve' && options.snapshotBytes ? readExactly(SNAPSHOT_FD, options.snapshotBytes) : null;
const pyodide = await loadPyodide({
  indexURL: options.pyodideDir + path.sep,
  jsglobals: Object.create(null),
  env: {},
  stdin: () => null,
  stdout: () => {},
  stderr: () => {},
  packages: [],
  // A memory snapshot (Pyodide's own, version-pinned) saves ~2 s of start-up per process.
  .../** @type {any} */ (options.mode === 'snapshot' ? { _makeSnapshot: true } : snapshot ? { _loadSnapshot: snapshot } : {}),
});
snapshot = null;
if (options.mode === 'snapshot') {
  pyodide.runPython(PYTHON_HARNESS);
  writeAll(1, Buffer.from(/** @type {any} */ (pyodide).makeMemorySnapshot()));
  process.exit(0);
}
// Set by Pyodide's loader for emscripten (fs, crypto, ws, child_process): not for Python.
delete (/** @type {any} */ (globalThis)).require;
// Pyodide is loaded: nothing needs to compile scripts any more.
neuter(require('node:vm'), 'vm');
neuter(require('node:vm').Script?.prototype, 'vm.Script');
syncBuiltinESMExports();

pyodide.registerJsModule('_persona_bridge', { request: bridgeRequest });
if (!options.snapshotBytes) pyodide.runPython(PYTHON_HARNESS);
// Processes started from one snapshot would otherwise share the random module's state.
pyodide.runPython('import random as _random\n_random.seed()\ndel _random');
const harness = {
  describe: /** @type {(code: string, entry: string) => string} */ (pyodide.globals.get('_persona_describe')),
  call: /** @type {(code: string, entry: string, args: string, cap: number) => string} */ (pyodide.globals.get('_persona_call')),
};
pyodide.runPython('del _persona_describe, _persona_call');

const heap = () => /** @type {any} */ (pyodide)._module.HEAP8.buffer.byteLength;
{
  // What is not wasm heap stays about the same; the heap gets the rest of the limit.
  const outside = process.memoryUsage().rss - heap();
  wasmCapBytes = options.memoryLimitMb * 1024 * 1024 - outside - 16 * 1024 * 1024;
}

/** @param {any} request */
function handle(request) {
  try {
    if (request.op === 'describe') return JSON.parse(harness.describe(String(request.code), String(request.entry ?? '')));
    if (request.op === 'call') return JSON.parse(harness.call(String(request.code), String(request.entry), String(request.args), Number(request.resultMaxBytes)));
    return { ok: false, kind: 'invalid', error: 'Unknown request.' };
  } catch (err) {
    // Errors that escaped the harness: Pyodide itself failed (fatal error, stack overflow).
    const fatal = Boolean(/** @type {any} */ (err)?.pyodide_fatal_error) || err instanceof RangeError || err instanceof wasm.RuntimeError;
    return { ok: false, kind: fatal ? 'crashed' : 'raised', error: fatal ? 'The function crashed the sandbox.' : String(/** @type {any} */ (err)?.message ?? err).slice(0, 300), fatal };
  }
}

let pending = Buffer.alloc(0);
control?.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const length = pending.readUInt32BE(0);
    if (length > MAX_FRAME) process.exit(2);
    if (pending.length < 4 + length) break;
    const request = JSON.parse(pending.subarray(4, 4 + length).toString('utf8'));
    pending = pending.subarray(4 + length);
    const answer = handle(request);
    send({ id: request.id, ...answer });
    // A Pyodide that failed fatally cannot be trusted with the next call.
    if (answer.fatal) control?.end(() => process.exit(3));
  }
});
control?.on('end', () => process.exit(0));
control?.on('error', () => process.exit(0));
send({ type: 'ready', rss: process.memoryUsage().rss, heap: heap() });
