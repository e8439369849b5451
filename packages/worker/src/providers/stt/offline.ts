import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pocketsphinxEnv, type PocketsphinxEnv } from '../../config.js';
import type { SttEngine, SttEvents, SttOptions, SttSession } from './types.js';

/**
 * The offline recogniser (no key, nothing downloaded at run time): Debian's `pocketsphinx` with
 * `pocketsphinx-en-us` (BSD; ADR 068). Debian 12 ships PocketSphinx 5-prealpha, whose CLI is
 * `pocketsphinx_batch` / `pocketsphinx_continuous`. One resident `pocketsphinx_batch` per worker
 * (the models take seconds to load) reads a control file from a pipe: each line names one
 * utterance (raw 16 kHz PCM16 in a private temp folder) and it answers one hypothesis line
 * `text (id score)` per utterance, in order. Sessions share it through a queue; a stuck or dead
 * process is killed and started again. English (US) only.
 */
export interface PocketsphinxInstall {
  bin: string;
  hmm: string;
  lm: string;
  dict: string;
}

const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/** Where Debian's packages put pocketsphinx and its US English model; null when not installed. */
export function findPocketsphinx(env: PocketsphinxEnv = pocketsphinxEnv()): PocketsphinxInstall | null {
  const dirs = (env.PATH ?? '/usr/bin').split(path.delimiter).filter(Boolean);
  const bin = [...dirs, '/usr/bin'].map((d) => path.join(d, 'pocketsphinx_batch')).find((p) => existsSync(p));
  const model = env.POCKETSPHINX_MODEL_DIR || MODEL_DIR;
  const install = { bin: bin ?? '', hmm: path.join(model, 'en-us'), lm: path.join(model, 'en-us.lm.bin'), dict: path.join(model, 'cmudict-en-us.dict') };
  if (!bin || !existsSync(install.hmm) || !existsSync(install.lm) || !existsSync(install.dict)) return null;
  return install;
}

export interface OfflineRecognizer {
  /** Text said in one utterance of 16 kHz PCM16 mono ('' for none). */
  transcribe(pcm: Int16Array, signal?: AbortSignal): Promise<string>;
  /** The same, with the hypothesis' path score (log acoustic likelihood plus weighted language model, pocketsphinx's units). */
  transcribeScored?(pcm: Int16Array, signal?: AbortSignal): Promise<{ text: string; score: number }>;
  /** Starts the process now (the models load in a few seconds) instead of on first use. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface OfflineRecognizerOptions {
  install?: PocketsphinxInstall;
  /** An utterance not answered in this long kills and restarts the process (default 20 s). */
  timeoutMs?: number;
  /** Longest utterance transcribed (seconds, default 60); longer audio keeps its end. */
  maxSeconds?: number;
  /** The dither added before recognition (dBFS RMS, default DITHER_DBFS); null: none. */
  ditherDbfs?: number | null;
}

/**
 * pocketsphinx normalises each utterance's features by their own mean and spread; stretches of
 * digital silence (what a browser's noise suppression, RNNoise or a synthetic voice leave between
 * words) throw that off, and it mishears plain sentences: six espeak-ng questions padded with
 * silence came back as "well i do it all", "so what does it goes", "the order", "they are"… and
 * with −70 dBFS of dither as "… who you open tomorrow", "how much got the coast", "where is my
 * order", "the cash" (ADR 101). So the audio gets a little triangular dither first, far below any
 * voice (−66 dBFS), seeded: the same audio is always heard the same way.
 */
export const DITHER_DBFS = -66;

export function withDither(pcm: Int16Array, dbfs: number, seed = 0x5eed): Int16Array {
  // Triangular (the sum of two uniform values in ±a/2) with an RMS of `dbfs`: a / √6.
  const a = 32768 * 10 ** (dbfs / 20) * Math.sqrt(6);
  let x = seed >>> 0;
  const next = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296 - 0.5;
  };
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! + a * (next() + next()))));
  return out;
}

interface Job {
  id: string;
  file: string;
  resolve: (hyp: { text: string; score: number }) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export function createOfflineRecognizer(opts: OfflineRecognizerOptions = {}): OfflineRecognizer {
  const install = opts.install ?? findPocketsphinx();
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const maxSamples = (opts.maxSeconds ?? 60) * 16_000;
  const ditherDbfs = opts.ditherDbfs === undefined ? DITHER_DBFS : opts.ditherDbfs;
  let dir: Promise<string> | null = null;
  let proc: ChildProcess | null = null;
  let ready: Promise<void> | null = null;
  let out = '';
  let seq = 0;
  let closed = false;
  const jobs = new Map<string, Job>();

  const workDir = () => (dir ??= mkdtemp(path.join(tmpdir(), 'persona-stt-')));

  const failAll = (err: Error) => {
    for (const job of jobs.values()) {
      clearTimeout(job.timer);
      job.reject(err);
      void rm(job.file, { force: true });
    }
    jobs.clear();
  };

  const kill = () => {
    const p = proc;
    proc = null;
    ready = null;
    out = '';
    if (p?.pid && p.exitCode === null) {
      try {
        // The shell, pocketsphinx and the two `cat`s: one process group (detached).
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        p.kill('SIGKILL');
      }
    }
  };

  const onLine = (line: string) => {
    const m = /^(.*?)\s*\((\S+)\s+([-\d.e+]+)\)\s*$/.exec(line);
    if (!m) return;
    const job = jobs.get(m[2]!);
    if (!job) return;
    jobs.delete(job.id);
    clearTimeout(job.timer);
    void rm(job.file, { force: true });
    job.resolve({ text: m[1]!.replace(/<[^>]*>|\[[^\]]*\]|\(\d+\)/g, ' ').replace(/\s+/g, ' ').trim(), score: Number(m[3]) });
  };

  const start = (): Promise<void> => {
    if (!install) return Promise.reject(new Error('pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)'));
    if (closed) return Promise.reject(new Error('the offline recogniser is closed'));
    if (ready) return ready;
    ready = (async () => {
      const cepdir = await workDir();
      // Closed while the folder was made: no process to orphan (it runs in its own process group).
      if (closed) throw new Error('the offline recogniser is closed');
      const args = ['-hmm', install.hmm, '-lm', install.lm, '-dict', install.dict, '-ctl', '/dev/stdin', '-adcin', 'yes', '-cepdir', cepdir, '-cepext', '.raw', '-hyp', '/dev/stdout', '-logfn', '/dev/null', '-fwdflat', 'no'];
      // `-fwdflat no`: the second search pass costs ~40 % of the time and changed no hypothesis of
      // the offline voice's speech here. pocketsphinx opens its control and hypothesis files by name: Node's stdio are sockets,
      // which /dev/stdin and /dev/stdout cannot be opened on; a shell's pipes can.
      const p = spawn('/bin/sh', ['-c', 'cat | "$0" "$@" | cat', install.bin, ...args], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
      proc = p;
      p.stdout!.setEncoding('utf8');
      p.stdout!.on('data', (chunk: string) => {
        if (proc !== p) return;
        out += chunk;
        let nl: number;
        while ((nl = out.indexOf('\n')) >= 0) {
          const line = out.slice(0, nl);
          out = out.slice(nl + 1);
          onLine(line);
        }
      });
      p.stdin!.on('error', () => undefined);
      p.on('exit', () => {
        if (proc !== p) return;
        proc = null;
        ready = null;
        failAll(new Error('the offline recogniser stopped'));
      });
      p.unref();
      (p.stdout as unknown as { unref?: () => void }).unref?.();
      (p.stdin as unknown as { unref?: () => void }).unref?.();
    })();
    return ready;
  };

  const recognizer: OfflineRecognizer = {
    async transcribe(pcm, signal) {
      return (await recognizer.transcribeScored!(pcm, signal)).text;
    },
    async transcribeScored(pcm, signal) {
      if (closed) throw new Error('the offline recogniser is closed');
      if (pcm.length === 0) return { text: '', score: 0 };
      await start();
      const id = `u${++seq}`;
      const file = path.join(await workDir(), `${id}.raw`);
      const last = pcm.length > maxSamples ? pcm.subarray(pcm.length - maxSamples) : pcm;
      const audio = ditherDbfs === null ? last : withDither(last, ditherDbfs);
      await writeFile(file, Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength));
      const p = proc;
      if (!p?.stdin?.writable) throw new Error('the offline recogniser is not running');
      return new Promise<{ text: string; score: number }>((resolve, reject) => {
        const timer = setTimeout(() => {
          // A stuck process: every waiting utterance fails and the next one starts a new process.
          kill();
          failAll(new Error('the offline recogniser timed out'));
        }, timeoutMs);
        timer.unref();
        // Aborted: its line still comes (in order); the answer is dropped.
        const onAbort = () => reject(new Error('aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
        const done = () => signal?.removeEventListener('abort', onAbort);
        const job: Job = {
          id,
          file,
          resolve: (hyp) => {
            done();
            resolve(hyp);
          },
          reject: (err) => {
            done();
            reject(err);
          },
          timer,
        };
        jobs.set(id, job);
        p.stdin!.write(`${id}\n`);
      });
    },
    warm: () => start(),
    async close() {
      closed = true;
      kill();
      failAll(new Error('the offline recogniser is closed'));
      if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return recognizer;
}

/**
 * Several resident recognisers, as pocketsphinx decodes one utterance at a time on one core:
 * `npm run bench -- load` found the voice turns of 16 visitors queueing behind one process (STT
 * 227 ms alone → 412 ms) with the second core half idle. An utterance goes to the running member
 * with the fewest utterances in flight. Members start on demand: the first with the first
 * utterance (or `warm`), the next when an utterance finds every running member busy — started in
 * the background (its models load in about a second), that utterance queues where it would have.
 */
export function createRecognizerPool(make: () => OfflineRecognizer, size: number): OfflineRecognizer {
  const members = Array.from({ length: Math.max(1, size) }, () => ({ recognizer: make(), state: 'idle' as 'idle' | 'starting' | 'running' | 'failed', inFlight: 0 }));
  const first = members[0]!;
  let closed = false;
  /** Started and answering: the process spawns at once, its models load for about a second — a short utterance is answered only after that. */
  const startMember = async (m: (typeof members)[number]) => {
    m.state = 'starting';
    try {
      await m.recognizer.warm();
      await m.recognizer.transcribe(WARM_UP_AUDIO);
      if (m.state === 'starting') m.state = 'running';
    } catch (err) {
      m.state = m === first ? 'idle' : 'failed';
      throw err;
    }
  };
  return {
    async transcribe(pcm, signal) {
      if (closed) throw new Error('the offline recogniser is closed');
      const running = members.filter((m) => m.state === 'running');
      const pick = running.length ? running.reduce((a, b) => (b.inFlight < a.inFlight ? b : a)) : first;
      if (pick.inFlight > 0) {
        const next = members.find((m) => m !== first && m.state === 'idle');
        if (next) void startMember(next).catch(() => undefined);
      }
      pick.inFlight++;
      try {
        const text = await pick.recognizer.transcribe(pcm, signal);
        // The first member also starts on its first utterance, without warm().
        if (pick.state === 'idle') pick.state = 'running';
        return text;
      } finally {
        pick.inFlight--;
      }
    },
    warm: () => (closed ? Promise.reject(new Error('the offline recogniser is closed')) : first.state === 'running' ? Promise.resolve() : startMember(first)),
    async close() {
      closed = true;
      for (const m of members) m.state = 'failed';
      await Promise.all(members.map((m) => m.recognizer.close()));
    },
  };
}

/** 0.1 s of faint noise: a new pool member's first utterance, answered once its models are loaded. */
const WARM_UP_AUDIO = Int16Array.from({ length: 1600 }, (_, i) => ((i * 7919) % 61) - 30);

/**
 * The offline recogniser as an STT engine: batch mode — `push` buffers the cut utterance,
 * `finalize` transcribes it and reports one final result.
 */
export function createOfflineStt(recognizer: OfflineRecognizer): SttEngine {
  return {
    provider: 'offline',
    mode: 'batch',
    async open(options: SttOptions, events: SttEvents): Promise<SttSession> {
      let chunks: Int16Array[] = [];
      let samples = 0;
      let closed = false;
      let startMs = 0;
      const take = () => {
        const pcm = new Int16Array(samples);
        let at = 0;
        for (const c of chunks) {
          pcm.set(c, at);
          at += c.length;
        }
        chunks = [];
        samples = 0;
        return pcm;
      };
      return {
        push(pcm) {
          if (closed || options.signal.aborted) return;
          chunks.push(pcm.slice());
          samples += pcm.length;
        },
        async finalize() {
          if (closed) return;
          const pcm = take();
          const from = startMs;
          startMs += (pcm.length * 1000) / 16_000;
          if (pcm.length === 0) return;
          try {
            const text = await recognizer.transcribe(pcm, options.signal);
            if (!closed) events.onResult({ text, final: true, endOfTurn: true, language: 'en-US', startMs: from, endMs: startMs });
          } catch (err) {
            if (!closed && !options.signal.aborted) events.onError(err instanceof Error ? err : new Error(String(err)));
          }
        },
        reset() {
          startMs += (samples * 1000) / 16_000;
          chunks = [];
          samples = 0;
        },
        close() {
          closed = true;
          chunks = [];
          samples = 0;
        },
      };
    },
  };
}
