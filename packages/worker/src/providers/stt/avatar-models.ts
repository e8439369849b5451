import { createHash } from 'node:crypto';
import { readFile, readdir, rename, rm, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { CONVERSATION_CORPUS } from './conversation-corpus.js';
import { interpolate } from './interpolate.js';
import { buildLanguageModel, dictionaryWords } from './language-model.js';
import type { TLiveSessionConfig } from '@persona/contract';
import { createOfflineRecognizer, createRecognizerPool, type OfflineRecognizer, type PocketsphinxInstall } from './offline.js';
import { isStreamingRecognizer, type StreamUtterance, type StreamUtteranceOptions } from './offline-stream.js';
import { readTrieModel, writeTrieModel } from './trie-model.js';

/**
 * The offline recogniser adapted to each avatar (issue 29, ADR 105): a trigram model built in code
 * from what the avatar is likely to hear — its name, wake-up message, instructions, function names,
 * cloud STT phrases and knowledge base titles and text when the caller has them, and the general
 * conversation corpus — interpolated into Debian's generic model (interpolate.ts), written as a
 * pocketsphinx binary model and cached on disk under the hash of its inputs; each cached model
 * gets its own pool of resident recognisers, a few at a time.
 */
export interface AvatarVocabulary {
  name?: string;
  wakeUpMessage?: string;
  instructions?: string;
  /** Function (tool) names: `get_weather` is heard as "get weather". */
  functions?: readonly string[];
  /** The cloud STT's context phrases (speech.stt.phrases). */
  phrases?: readonly string[];
  knowledge?: readonly { title: string; text?: string }[];
}

/** Changes whenever the model built from the same inputs would change: part of the cache key. */
export const MODEL_VERSION = 1;
/** The avatar model's weight in the interpolation (ADR 105: chosen on the WER bench). */
export const AVATAR_WEIGHT = 0.1;
/** Counts of the avatar's own texts relative to the conversation corpus. */
export const AVATAR_TEXT_WEIGHT = 2;
/** Input text read at most (characters): a big knowledge base is cut, in a fixed order. */
export const MAX_INPUT_CHARS = 200_000;

/** The weighted texts of an avatar's model, capped at MAX_INPUT_CHARS; deterministic. */
export function avatarTexts(v: AvatarVocabulary): { text: string; weight: number }[] {
  const own = [v.name, v.wakeUpMessage, v.instructions, ...(v.functions ?? []).map((f) => f.replace(/[_-]+|(?<=[a-z])(?=[A-Z])/g, ' ')), ...(v.phrases ?? []), ...(v.knowledge ?? []).flatMap((k) => [k.title, k.text])]
    .map((t) => (t ?? '').trim())
    .filter(Boolean);
  const texts: { text: string; weight: number }[] = [];
  let left = MAX_INPUT_CHARS;
  for (const text of own) {
    if (left <= 0) break;
    texts.push({ text: text.slice(0, left), weight: AVATAR_TEXT_WEIGHT });
    left -= text.length;
  }
  return [...texts, { text: CONVERSATION_CORPUS, weight: 1 }];
}

/** Whether an avatar has anything of its own to adapt to (else the generic model is as good). */
export const hasVocabulary = (v: AvatarVocabulary) => avatarTexts(v).length > 1;

/** The cache key: the model's inputs (texts, weights, version, the generic model's size and date). */
export async function modelKey(install: PocketsphinxInstall, v: AvatarVocabulary): Promise<string> {
  const [lm, dict] = await Promise.all([stat(install.lm), stat(install.dict)]);
  return createHash('sha256')
    .update(JSON.stringify({ version: MODEL_VERSION, lambda: AVATAR_WEIGHT, lm: [lm.size, lm.mtimeMs], dict: [dict.size, dict.mtimeMs], texts: avatarTexts(v) }))
    .digest('hex')
    .slice(0, 32);
}

/** The pronunciation dictionary's words, read once per file (130 k words: ~0.2 s). */
const dictionaries = new Map<string, Promise<Set<string>>>();
const dictionaryOf = (file: string) => {
  let words = dictionaries.get(file);
  if (!words) {
    words = readFile(file, 'utf8').then(dictionaryWords);
    words.catch(() => dictionaries.delete(file));
    dictionaries.set(file, words);
  }
  return words;
};

/**
 * The avatar's interpolated model as `.lm.bin` bytes. Yields the event loop between slices of
 * work (none longer than ~100 ms here on a loaded machine; ADR 105).
 */
export async function buildAvatarModel(install: PocketsphinxInstall, v: AvatarVocabulary, pause: () => Promise<void> = () => yieldLoop()): Promise<Uint8Array> {
  const dictionary = await dictionaryOf(install.dict);
  await pause();
  const avatar = buildLanguageModel({ texts: avatarTexts(v), dictionary }).model;
  await pause();
  const generic = await readTrieModel(await readFile(install.lm), pause);
  await pause();
  const model = await interpolate(generic, avatar, AVATAR_WEIGHT, pause);
  await pause();
  return writeTrieModel(model, pause);
}

export interface ModelCache {
  /** The file of the avatar's model, built (once at a time per key) when not cached. */
  get(v: AvatarVocabulary): Promise<string>;
}

/**
 * Models on disk in `dir`, named by key: written to a temporary name and renamed (a reader never
 * sees half a file); at most `maxFiles` kept, the least recently used removed first; one build at
 * a time.
 */
export function createModelCache(opts: { install: PocketsphinxInstall; dir: string; maxFiles?: number; build?: typeof buildAvatarModel }): ModelCache {
  const maxFiles = Math.max(1, opts.maxFiles ?? 8);
  const build = opts.build ?? buildAvatarModel;
  const building = new Map<string, Promise<string>>();
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
        await mkdir(opts.dir, { recursive: true });
        const bytes = await oneAtATime(() => build(opts.install, v));
        const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
        try {
          await writeFile(tmp, bytes);
          await rename(tmp, file);
        } finally {
          await rm(tmp, { force: true });
        }
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
  };
}

export interface AvatarRecognizers {
  /** The generic model's recogniser (no avatar, or while an avatar's model is built). */
  generic: OfflineRecognizer;
  /**
   * A recogniser for the avatar: the generic one until its model is built and its recogniser has
   * loaded it, then that; the generic one for good when the model cannot be built (logged).
   */
  forAvatar(v: AvatarVocabulary): AvatarRecognizer;
  close(): Promise<void>;
}

export interface AvatarRecognizer extends OfflineRecognizer {
  /** The avatar's model file once built, the build started by reading this (null: none — no vocabulary of its own, or the build failed). */
  model: Promise<string | null>;
}

export interface AvatarRecognizersOptions {
  generic: OfflineRecognizer;
  cache: ModelCache;
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
    forAvatar(v) {
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
            file = await opts.cache.get(v);
            opts.log?.info("the offline recogniser has the avatar's model", { file: path.basename(file), ms: Date.now() - started });
            return file;
          } catch (err) {
            failed = true;
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
      const all = [...resident.values()];
      resident.clear();
      await Promise.all(all.map((r) => r.recognizer.close()));
    },
  };
}

/**
 * What the worker knows of an avatar at session start (TLiveSessionConfig): its name, wake-up
 * message, the brain's instructions (LLM and assistant brains), its functions' names and its cloud
 * STT phrases. Not its knowledge base: the session config says only whether it has one (the
 * passages are reachable by retrieval, query by query) — ADR 105.
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
