import { createHash } from 'node:crypto';
import { readdir, rename, rm, stat, utimes, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { spawnModuleThread } from '../../core/module-thread.js';
import type { TLiveSessionConfig } from '@persona/contract';
import { AVATAR_WEIGHT, MODEL_VERSION, avatarTexts, hasVocabulary, type AvatarVocabulary } from './avatar-model-build.js';
import { OVER_AVATAR_WEIGHT, overAvatarTexts } from './over-avatar-model.js';
import { createOfflineRecognizer, createRecognizerPool, type OfflineRecognizer, type PocketsphinxInstall } from './offline.js';
import { isStreamingRecognizer, type StreamUtterance, type StreamUtteranceOptions } from './offline-stream.js';

export { AVATAR_TEXT_WEIGHT, AVATAR_WEIGHT, MAX_INPUT_CHARS, MODEL_VERSION, avatarTexts, buildAvatarModel, hasVocabulary, type AvatarVocabulary } from './avatar-model-build.js';

/**
 * The offline recogniser adapted to each avatar (issue 29, ADR 105): a trigram model built in code
 * from what the avatar is likely to hear — its name, wake-up message, instructions, function names,
 * cloud STT phrases, its knowledge base's titles and text (asked of the portal when the model is
 * needed), and the general conversation corpus — interpolated into Debian's generic model
 * (avatar-model-build.ts) in a worker thread of its own, written as a pocketsphinx binary model and
 * cached on disk under the hash of its inputs; each cached model gets its own pool of resident
 * recognisers, a few at a time.
 */

/** The cache key: the model's inputs (texts, weights, version, the generic model's size and date). */
export function modelKey(install: PocketsphinxInstall, v: AvatarVocabulary): Promise<string> {
  return specKey(install, { texts: avatarTexts(v), lambda: AVATAR_WEIGHT });
}

/** A model's cache key from its spec, the build's version and the generic model's size and date; `kind` keeps another family's keys apart. */
async function specKey(install: PocketsphinxInstall, spec: ModelSpec, kind?: string): Promise<string> {
  const [lm, dict] = await Promise.all([stat(install.lm), stat(install.dict)]);
  return createHash('sha256')
    .update(JSON.stringify({ ...(kind ? { kind } : {}), version: MODEL_VERSION, lambda: spec.lambda, lm: [lm.size, lm.mtimeMs], dict: [dict.size, dict.mtimeMs], texts: spec.texts }))
    .digest('hex')
    .slice(0, 32);
}

/** Builds a model into `file` through a temporary name in its folder, renamed when whole: a reader never sees half a file. */
async function buildInto(file: string, build: (tmp: string) => Promise<void>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await build(tmp);
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** An abort's reason when none was given. */
const cancelled = () => Object.assign(new Error('the avatar model build was cancelled'), { name: 'AbortError' });

/**
 * A build thread: `avatar-model-thread` beside this file, built or through tsx (core/module-thread.ts).
 */
function spawnBuildThread(workerData: unknown): Worker {
  return spawnModuleThread(import.meta.url, 'avatar-model-thread', { workerData });
}

/**
 * The build thread's nice value (Linux, that thread only): the build is background work, and the
 * worker's main thread (sessions' audio, the portal) and its recognisers come first. On the shared
 * two-core machine (ADR 105, `npm run bench -- avatar-model-build`, medians of 5 rounds) the main
 * thread's longest event-loop delay during a build was 174 ms at 19 and 341 ms at 0, against 155 ms
 * with no build at all.
 */
export const BUILD_THREAD_NICE = 19;

/**
 * Builds the avatar's model in a worker thread of its own, which writes it to `file` (ADR 105): the
 * caller's event loop holds none of the build, and only the file's name crosses back. Settles when
 * the thread has ended; an abort terminates the thread (the caller removes the half-written file).
 */
export function buildAvatarModelInThread(install: PocketsphinxInstall, v: AvatarVocabulary, file: string, signal?: AbortSignal, nice = BUILD_THREAD_NICE): Promise<void> {
  return buildModelInThread(install, { texts: avatarTexts(v), lambda: AVATAR_WEIGHT }, file, signal, nice);
}

/** What an interpolated model is built from: weighted texts, and their model's weight λ against the generic one. */
export interface ModelSpec {
  texts: { text: string; weight: number }[];
  lambda: number;
}

/** Builds a model from `spec` in a worker thread of its own, which writes it to `file` (as `buildAvatarModelInThread`). */
export function buildModelInThread(install: PocketsphinxInstall, spec: ModelSpec, file: string, signal?: AbortSignal, nice = BUILD_THREAD_NICE): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : cancelled());
      return;
    }
    // Copied to the thread by structured clone (strings and arrays: ≤ 200 000 characters of text).
    const thread = spawnBuildThread({ install: { ...install }, texts: spec.texts, lambda: spec.lambda, file, nice });
    let written = false;
    let failure: Error | null = null;
    const abort = () => {
      failure ??= signal?.reason instanceof Error ? signal.reason : cancelled();
      void thread.terminate();
    };
    signal?.addEventListener('abort', abort, { once: true });
    thread.on('message', () => {
      written = true;
    });
    thread.on('error', (err) => {
      failure ??= err;
    });
    thread.on('exit', (code) => {
      signal?.removeEventListener('abort', abort);
      if (written && !failure) resolve();
      else reject(failure ?? new Error(`the avatar model build thread ended (code ${code}) without a model`));
    });
  });
}

/** Builds the avatar's model into `file` (the worker's: `buildAvatarModelInThread`). */
export type ModelBuilder = (install: PocketsphinxInstall, v: AvatarVocabulary, file: string, signal: AbortSignal) => Promise<void>;

export interface ModelCache {
  /** The file of the avatar's model, built (once at a time per key) when not cached. */
  get(v: AvatarVocabulary): Promise<string>;
  /** Cancels the build under way (its thread terminated) and those queued; later gets fail. */
  close(): Promise<void>;
}

/**
 * Models on disk in `dir`, named by key: written to a temporary name and renamed (a reader never
 * sees half a file); at most `maxFiles` kept, the least recently used removed first; one build at
 * a time, each in a worker thread.
 */
export function createModelCache(opts: { install: PocketsphinxInstall; dir: string; maxFiles?: number; build?: ModelBuilder }): ModelCache {
  const maxFiles = Math.max(1, opts.maxFiles ?? 8);
  const build = opts.build ?? buildAvatarModelInThread;
  const building = new Map<string, Promise<string>>();
  const closing = new AbortController();
  /** One build at a time per worker: each holds ~150 MB of arrays and a core for seconds. */
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const prune = async (keep: string) => {
    const names = (await readdir(opts.dir)).filter((n) => n.endsWith('.lm.bin'));
    if (names.length <= maxFiles) return;
    const files = await Promise.all(names.map(async (n) => ({ n, t: (await stat(path.join(opts.dir, n)).catch(() => null))?.mtimeMs ?? 0 })));
    files.sort((a, b) => a.t - b.t || a.n.localeCompare(b.n));
    for (const f of files.slice(0, files.length - maxFiles)) if (f.n !== path.basename(keep)) await rm(path.join(opts.dir, f.n), { force: true });
  };
  return {
    async get(v) {
      if (closing.signal.aborted) throw cancelled();
      const key = await modelKey(opts.install, v);
      const file = path.join(opts.dir, `${key}.lm.bin`);
      const pending = building.get(key);
      if (pending) return pending;
      const job = (async () => {
        try {
          const now = new Date();
          await utimes(file, now, now); // used: the last to be pruned
          return file;
        } catch {
          // Not cached: built below.
        }
        await buildInto(file, (tmp) =>
          oneAtATime(async () => {
            if (closing.signal.aborted) throw cancelled();
            await build(opts.install, v, tmp, closing.signal);
          }),
        );
        await prune(file);
        return file;
      })();
      building.set(key, job);
      try {
        return await job;
      } finally {
        building.delete(key);
      }
    },
    async close() {
      closing.abort(cancelled());
      await Promise.allSettled([...building.values()]);
    },
  };
}

export interface AvatarRecognizers {
  /** The generic model's recogniser (no avatar, or while an avatar's model is built). */
  generic: OfflineRecognizer;
  /**
   * A recogniser for the avatar: the generic one until its model is built and its recogniser has
   * loaded it, then that; the generic one for good when the model cannot be built (logged).
   */
  forAvatar(v: AvatarVocabulary, more?: AvatarVocabularySource): AvatarRecognizer;
  close(): Promise<void>;
}

/** What the worker fetches only when it builds the avatar's model. */
export interface AvatarVocabularySource {
  /** The knowledge base's titles and text (the portal's `knowledge.vocabulary`); a failure builds without them (logged). */
  knowledge?: () => Promise<AvatarVocabulary['knowledge']>;
}

export interface AvatarRecognizer extends OfflineRecognizer {
  /** The avatar's model file once built, the build started by reading this (null: none — no vocabulary of its own, or the build failed). */
  model: Promise<string | null>;
}

export interface AvatarRecognizersOptions {
  generic: OfflineRecognizer;
  /** The models on disk (`close`, when given, is called by the recognisers' own). */
  cache: Pick<ModelCache, 'get'> & Partial<Pick<ModelCache, 'close'>>;
  /** A recogniser (pool) running pocketsphinx with this model file. */
  make(lmFile: string): OfflineRecognizer;
  /** Distinct avatar models resident at once (default 2): each is a pool of ~100 MB processes. */
  maxResident?: number;
  log?: { info(msg: string, data?: Record<string, unknown>): void; warn(msg: string, data?: Record<string, unknown>): void };
}

export function createAvatarRecognizers(opts: AvatarRecognizersOptions): AvatarRecognizers {
  const maxResident = Math.max(1, opts.maxResident ?? 2);
  interface Resident {
    recognizer: OfflineRecognizer;
    ready: Promise<void>;
    loaded: boolean;
    inFlight: number;
    usedAt: number;
  }
  const resident = new Map<string, Resident>();
  let clock = 0;
  let closed = false;
  /** The file's recogniser, started (evicting the least recently used idle one); null when all are busy. */
  const acquire = (file: string): Resident | null => {
    const hit = resident.get(file);
    if (hit) {
      hit.usedAt = ++clock;
      return hit;
    }
    if (resident.size >= maxResident) {
      const idle = [...resident.entries()].filter(([, r]) => r.inFlight === 0).sort((a, b) => a[1].usedAt - b[1].usedAt)[0];
      if (!idle) return null;
      resident.delete(idle[0]);
      void idle[1].recognizer.close();
    }
    const recognizer = opts.make(file);
    const entry: Resident = { recognizer, ready: Promise.resolve(), loaded: false, inFlight: 0, usedAt: ++clock };
    entry.ready = recognizer.warm().then(() => {
      entry.loaded = true;
    });
    entry.ready.catch(() => {
      if (resident.get(file) === entry) resident.delete(file);
    });
    resident.set(file, entry);
    return entry;
  };
  return {
    generic: opts.generic,
    forAvatar(v, more) {
      if (!hasVocabulary(v)) {
        const g = opts.generic;
        return { transcribe: (pcm, signal) => g.transcribe(pcm, signal), ...(g.transcribeScored ? { transcribeScored: (pcm: Int16Array, signal?: AbortSignal) => g.transcribeScored!(pcm, signal) } : {}), ...(isStreamingRecognizer(g) ? { begin: (o?: StreamUtteranceOptions) => g.begin(o), stats: () => g.stats() } : {}), warm: () => g.warm(), close: async () => undefined, model: Promise.resolve(null) };
      }
      let file: string | null = null;
      let failed = false;
      let model: Promise<string | null> | null = null;
      // Built when the mic first turns on (warm) or the first utterance comes: most sessions never listen.
      const ensureModel = () =>
        (model ??= (async () => {
          const started = Date.now();
          try {
            const knowledge = more?.knowledge
              ? await more.knowledge().catch((err: unknown) => {
                  if (!closed) opts.log?.warn("the avatar's knowledge base could not be read for its speech model: built without it", { error: String(err) });
                  return undefined;
                })
              : undefined;
            file = await opts.cache.get(knowledge?.length ? { ...v, knowledge: [...(v.knowledge ?? []), ...knowledge] } : v);
            opts.log?.info("the offline recogniser has the avatar's model", { file: path.basename(file), ms: Date.now() - started });
            return file;
          } catch (err) {
            failed = true;
            // The worker stopping cancelled it: nothing to say.
            if (closed) return null;
            opts.log?.warn("the avatar's speech model could not be built: the offline recogniser uses the generic one", { error: String(err) });
            return null;
          }
        })());
      /** The avatar's recogniser when its model is loaded, else the generic one (its model loading meanwhile). */
      const pick = (): { r: OfflineRecognizer; entry: Resident | null } => {
        if (closed || failed || !file) return { r: opts.generic, entry: null };
        const entry = acquire(file);
        if (!entry?.loaded) return { r: opts.generic, entry: null };
        return { r: entry.recognizer, entry };
      };
      const use = async <T>(run: (r: OfflineRecognizer) => Promise<T>): Promise<T> => {
        void ensureModel();
        const { r, entry } = pick();
        if (entry) entry.inFlight++;
        try {
          return await run(r);
        } finally {
          if (entry) entry.inFlight--;
        }
      };
      /** An utterance decoded as it comes (ADR 106), on the recogniser picked when it starts; counted in flight until it ends. */
      const begin = (o?: StreamUtteranceOptions): StreamUtterance => {
        void ensureModel();
        const picked = pick();
        const r = isStreamingRecognizer(picked.r) ? picked.r : opts.generic;
        const entry = r === picked.r ? picked.entry : null;
        const utt = (r as typeof opts.generic & { begin: (o?: StreamUtteranceOptions) => StreamUtterance }).begin(o);
        if (!entry) return utt;
        entry.inFlight++;
        let done = false;
        const release = () => {
          if (!done) entry.inFlight--;
          done = true;
        };
        return {
          push: (pcm) => utt.push(pcm),
          end: (signal) => utt.end(signal).finally(release),
          cancel: () => {
            utt.cancel();
            release();
          },
        };
      };
      const g = opts.generic;
      return {
        ...(isStreamingRecognizer(g) ? { begin, stats: () => g.stats() } : {}),
        transcribe: (pcm, signal) => use((r) => r.transcribe(pcm, signal)),
        transcribeScored: (pcm, signal) => use(async (r) => (r.transcribeScored ? r.transcribeScored(pcm, signal) : { text: await r.transcribe(pcm, signal), score: 0 })),
        async warm() {
          await opts.generic.warm();
          // The mic is on: the avatar's recogniser is loaded in the background once its model is there.
          void ensureModel().then(() => {
            if (file && !failed && !closed) acquire(file)?.ready.catch(() => undefined);
          });
        },
        /** Closing a session's view closes nothing: the recognisers are the worker's. */
        close: async () => undefined,
        get model() {
          return ensureModel();
        },
      };
    },
    async close() {
      closed = true;
      await opts.cache.close?.();
      const all = [...resident.values()];
      resident.clear();
      await Promise.all(all.map((r) => r.recognizer.close()));
    },
  };
}

/**
 * What the worker knows of an avatar at session start (TLiveSessionConfig): its name, wake-up
 * message, the brain's instructions (LLM and assistant brains), its functions' names and its cloud
 * STT phrases. Its knowledge base is not in the session config (which says only whether it has
 * one): the worker asks the portal for its titles and text when it builds the model (runtime.ts,
 * `knowledge.vocabulary`) — ADR 105.
 */
export function vocabularyOf(config: TLiveSessionConfig): AvatarVocabulary {
  const brain = config.brain as { instructions?: unknown };
  return {
    name: config.avatar.name,
    wakeUpMessage: config.avatar.wakeUpMessage,
    instructions: typeof brain.instructions === 'string' ? brain.instructions : undefined,
    functions: config.functions.map((f) => f.name),
    phrases: config.speech.stt.phrases,
  };
}

/**
 * The worker's offline recognisers: the generic pool, and one pool per avatar model built on disk in
 * `dir` (bounded: `maxFiles` files, `maxResident` pools).
 */
export function createWorkerRecognizers(opts: { install: PocketsphinxInstall; processes: number; dir: string; maxFiles?: number; maxResident?: number; log?: AvatarRecognizersOptions['log']; makePool?: (lm: string) => OfflineRecognizer }): AvatarRecognizers {
  // makePool: the recognisers for a model file (the worker's: streaming where python3-pocketsphinx is, ADR 106).
  const pool = opts.makePool ?? ((lm: string) => createRecognizerPool(() => createOfflineRecognizer({ install: { ...opts.install, lm } }), opts.processes));
  return createAvatarRecognizers({
    generic: pool(opts.install.lm),
    cache: createModelCache({ install: opts.install, dir: opts.dir, maxFiles: opts.maxFiles }),
    make: pool,
    maxResident: opts.maxResident,
    log: opts.log,
  });
}

/** An over-the-avatar model file of another version is removed once unused this long (ms). */
const STALE_MODEL_MS = 24 * 3600_000;
/** A temporary file this old is a build that was cut short. */
const STALE_BUILD_MS = 3600_000;

/** The over-the-avatar model as the worker holds it (ADR 107). */
export interface OverAvatarModel {
  /** Its file once built or found on disk; null until then (or when it could not be built). */
  file(): string | null;
  /** Built (in a thread, once) or found in the cache; resolves to the file, or null when it could not be (logged). */
  ensure(): Promise<string | null>;
  /** Cancels a build under way. */
  close(): Promise<void>;
}

/**
 * The offline recogniser's model for speech over the avatar (over-avatar-model.ts): the generic
 * model interpolated with the backchannel and stop phrases, built once per worker in a thread of
 * its own (~3 s of one core at nice 19, 27 MB) and kept in `dir`/over-avatar under the hash of its inputs, so
 * a restarted worker finds it. One for every avatar: the phrases are the listener's, not the
 * avatar's. Asked for when a visitor first turns the mic on, where the worker was told to
 * (WORKER_STT_OVER_AVATAR=on; off by default, ADR 107).
 */
export function createOverAvatarModel(opts: { install: PocketsphinxInstall; dir: string; build?: (install: PocketsphinxInstall, spec: ModelSpec, file: string, signal: AbortSignal) => Promise<void>; log?: AvatarRecognizersOptions['log'] }): OverAvatarModel {
  const build = opts.build ?? buildModelInThread;
  const spec: ModelSpec = { texts: overAvatarTexts(), lambda: OVER_AVATAR_WEIGHT };
  const closing = new AbortController();
  let file: string | null = null;
  let job: Promise<string | null> | null = null;
  return {
    file: () => file,
    ensure() {
      return (job ??= (async () => {
        const started = Date.now();
        try {
          const key = await specKey(opts.install, spec, 'over-avatar');
          // A folder of its own: the avatar models' cache prunes every model file of its folder.
          const dir = path.join(opts.dir, 'over-avatar');
          const target = path.join(dir, `${key}.lm.bin`);
          const found = await stat(target).then(() => true, () => false);
          if (!found) {
            await buildInto(target, (tmp) => build(opts.install, spec, tmp, closing.signal));
            // An earlier version's model (other phrases, another generic model), unused for a day —
            // not one another worker on this host still uses (a rolling deploy) — and a build cut
            // short (a killed worker's temporary file) are removed.
            const now = Date.now();
            for (const name of await readdir(dir)) {
              if (name === path.basename(target)) continue;
              const age = now - ((await stat(path.join(dir, name)).catch(() => null))?.mtimeMs ?? now);
              if ((name.endsWith('.lm.bin') && age > STALE_MODEL_MS) || (name.endsWith('.tmp') && age > STALE_BUILD_MS)) await rm(path.join(dir, name), { force: true });
            }
            opts.log?.info('the offline recogniser has its over-the-avatar model', { file: path.basename(target), ms: Date.now() - started });
          }
          file = target;
          return target;
        } catch (err) {
          if (!closing.signal.aborted) opts.log?.warn('the over-the-avatar speech model could not be built: speech over the avatar is heard with the generic model', { error: String(err) });
          return null;
        }
      })());
    },
    async close() {
      closing.abort(cancelled());
      await job;
    },
  };
}
