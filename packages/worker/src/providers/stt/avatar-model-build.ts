import { readFile } from 'node:fs/promises';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { CONVERSATION_CORPUS } from './conversation-corpus.js';
import { interpolate } from './interpolate.js';
import { buildLanguageModel, dictionaryWords } from './language-model.js';
import type { PocketsphinxInstall } from './offline.js';
import { readTrieModel, writeTrieModel } from './trie-model.js';

/**
 * The build of an avatar's language model (issue 29, ADR 105), apart from the cache and the
 * recognisers so that a worker thread (avatar-model-thread.ts) loads only this: the avatar's texts
 * and the conversation corpus counted into a trigram model, interpolated into Debian's generic one,
 * written as a pocketsphinx binary model.
 */
export interface AvatarVocabulary {
  name?: string;
  wakeUpMessage?: string;
  instructions?: string;
  /** Function (tool) names: `get_weather` is heard as "get weather". */
  functions?: readonly string[];
  /** The cloud STT's context phrases (speech.stt.phrases). */
  phrases?: readonly string[];
  /** The knowledge base's titles and text (the portal's `knowledge.vocabulary`, capped there too). */
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

/** The pronunciation dictionary's words, read once per file and thread (130 k words: ~0.2 s). */
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
 * The avatar's interpolated model as `.lm.bin` bytes. `pause` is awaited between slices of work:
 * by default it yields the event loop (a build on the caller's thread, as the WER bench runs it);
 * the worker builds in a thread of its own (avatar-models.ts `buildAvatarModelInThread`), where
 * there is nothing to yield to.
 */
export function buildAvatarModel(install: PocketsphinxInstall, v: AvatarVocabulary, pause: () => Promise<void> = () => yieldLoop()): Promise<Uint8Array> {
  return buildInterpolatedModel(install, avatarTexts(v), AVATAR_WEIGHT, pause);
}

/** Weighted texts counted into a trigram model and interpolated into the generic one at `lambda`, as `.lm.bin` bytes. */
export async function buildInterpolatedModel(install: PocketsphinxInstall, texts: { text: string; weight: number }[], lambda: number, pause: () => Promise<void> = () => yieldLoop()): Promise<Uint8Array> {
  const dictionary = await dictionaryOf(install.dict);
  await pause();
  const own = buildLanguageModel({ texts, dictionary }).model;
  await pause();
  const generic = await readTrieModel(await readFile(install.lm), pause);
  await pause();
  const model = await interpolate(generic, own, lambda, pause);
  await pause();
  return writeTrieModel(model, pause);
}
