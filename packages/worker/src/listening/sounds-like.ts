import type { Pronounce } from '../providers/stt/types.js';
import { STOP_LEADERS, STOP_PHRASES, wordsOf } from './options.js';

/**
 * Stop requests the recogniser misheard (issue 29, ADR 109). Over the avatar, a fast "hold on"
 * loses its /h/ and comes back as "gold on" / "told on", a clipped "stop" as "top", and "wait"
 * can come back as its homophone "weight": real words of the dictionary, so no text rule sees a
 * stop request in them. Compared by how they sound (the recogniser's own pronunciation dictionary),
 * they are one phoneme from the phrase. This module says which heard words sound like a stop
 * request; the listener asks it only for speech over the avatar that is neither a stop request
 * nor a backchannel as written.
 */

/**
 * The stop requests matched by sound: the text rule's phrases that stop the avatar at the start of
 * what is said (STOP_PHRASES). "no", "sorry", "actually" are not among them: one or two phonemes,
 * too near "now", "so", "oh" and the rest of a listener's small words.
 */
export const SOUNDED_STOP_PHRASES: readonly string[] = STOP_PHRASES;

/** A phrase of this many phonemes or more may be heard with one phoneme off (at most SOUNDS_LIKE_SHARE of them). */
export const NEAR_FROM_PHONEMES = 5;
/** Heard words this many phonemes' cost from a phrase, per phoneme of the phrase, sound like it. */
export const SOUNDS_LIKE_SHARE = 0.25;

/** At most this many words from the start are compared (the longest phrase has three). */
const MAX_WORDS = 4;
/** Pronunciation variants tried per word (the dictionary has up to ~6; the first ones are the common ones). */
const MAX_VARIANTS = 3;
const LEADERS = new Set<string>(STOP_LEADERS);

const CLASSES: readonly (readonly string[])[] = [
  ['AA', 'AE', 'AH', 'AO', 'AW', 'AY', 'EH', 'ER', 'EY', 'IH', 'IY', 'OW', 'OY', 'UH', 'UW'],
  ['M', 'N', 'NG'],
  ['P', 'B', 'T', 'D', 'K', 'G'],
  ['F', 'V', 'TH', 'DH', 'S', 'Z', 'SH', 'ZH', 'HH'],
  ['CH', 'JH'],
  ['L', 'R', 'W', 'Y'],
];
const classOf = new Map<string, number>(CLASSES.flatMap((c, i) => c.map((p) => [p, i] as const)));

/** One phoneme for another: nothing if the same, half if of the same kind (two vowels, two nasals, two stops…), else one. */
function substitution(a: string, b: string): number {
  if (a === b) return 0;
  const ca = classOf.get(a);
  return ca !== undefined && ca === classOf.get(b) ? 0.5 : 1;
}

/** A phoneme heard that was not said, or said and not heard: one, but half for /h/ (the weakest onset, lost in fast speech). */
const gap = (p: string) => (p === 'HH' ? 0.5 : 1);

/** Weighted edit distance between two phoneme strings (Levenshtein with the costs above). */
export function phoneticDistance(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1);
  let row = new Array<number>(b.length + 1);
  prev[0] = 0;
  for (let j = 1; j <= b.length; j++) prev[j] = prev[j - 1]! + gap(b[j - 1]!);
  for (let i = 1; i <= a.length; i++) {
    row[0] = prev[0]! + gap(a[i - 1]!);
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j - 1]! + substitution(a[i - 1]!, b[j - 1]!), prev[j]! + gap(a[i - 1]!), row[j - 1]! + gap(b[j - 1]!));
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length]!;
}

/** Phonemes that differ, plain (any substitution, dropped or added phoneme counts one). */
function edits(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), prev[j]! + 1, row[j - 1]! + 1);
    [prev, row] = [row, prev];
  }
  return prev[b.length]!;
}

/** Every way to say a run of words (the product of their variants); undefined if one is unknown. */
function sayings(words: readonly string[], pronounce: Pronounce): string[][] | undefined {
  let out: string[][] = [[]];
  for (const w of words) {
    const variants = pronounce(w);
    if (!variants || variants.length === 0) return undefined;
    out = out.flatMap((head) => variants.slice(0, MAX_VARIANTS).map((v) => [...head, ...v]));
  }
  return out;
}

const phraseCache = new WeakMap<Pronounce, Map<string, string[][] | undefined>>();
function phraseSayings(phrase: string, pronounce: Pronounce): string[][] | undefined {
  let cache = phraseCache.get(pronounce);
  if (!cache) phraseCache.set(pronounce, (cache = new Map()));
  if (!cache.has(phrase)) cache.set(phrase, sayings(phrase.split(' '), pronounce));
  return cache.get(phrase);
}

/**
 * Does `heard` sound like `said`? The same phonemes; or, for a phrase of NEAR_FROM_PHONEMES or
 * more, one phoneme off (substituted, dropped or added) at a cost of at most SOUNDS_LIKE_SHARE of
 * the phrase; or, for any phrase, only its first phoneme lost (the onset a fast voice and the VAD's
 * start clip: "top" for "stop"). Its cost, or null.
 */
function nearness(heard: readonly string[], said: readonly string[]): number | null {
  if (Math.abs(heard.length - said.length) > 1 || edits(heard, said) > 1) return null;
  if (heard.length === said.length - 1 && heard.every((p, k) => p === said[k + 1])) return gap(said[0]!);
  const cost = phoneticDistance(heard, said);
  if (cost === 0) return 0;
  return said.length >= NEAR_FROM_PHONEMES && cost <= SOUNDS_LIKE_SHARE * said.length ? cost : null;
}

/**
 * The stop phrase the heard words sound like, or null. As the text rule stops the avatar for
 * "hold on" at the start of anything said (after an "okay", "um"…), the words from the start (one
 * to four of them: "gold on", "gold on it", "okay gold on") are compared with each phrase:
 * "gold on" (G for HH, one of six phonemes) and "told on" are "hold on"; "top" (its onset S lost)
 * is "stop"; "weight" is "wait". A phrase of four phonemes or fewer only by the same sounds or its
 * onset lost: one phoneme off such a phrase is another common word ("what" for "wait", "step" for
 * "stop"). "and on" (three phonemes from "hang on") is not. Words the dictionary does not know
 * match nothing. The nearest phrase wins.
 */
export function soundsLikeStopRequest(text: string, pronounce: Pronounce): string | null {
  const all = wordsOf(text);
  const words = (all.length > 1 && LEADERS.has(all[0]!) ? all.slice(1) : all).slice(0, MAX_WORDS);
  let best: { phrase: string; cost: number } | null = null;
  for (let n = 1; n <= words.length; n++) {
    const heard = sayings(words.slice(0, n), pronounce);
    if (!heard) break;
    for (const phrase of SOUNDED_STOP_PHRASES) {
      for (const said of phraseSayings(phrase, pronounce) ?? []) {
        for (const h of heard) {
          const cost = nearness(h, said);
          if (cost !== null && (!best || cost < best.cost)) best = { phrase, cost };
        }
      }
    }
  }
  return best?.phrase ?? null;
}
