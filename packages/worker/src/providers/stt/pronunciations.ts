import { readFile } from 'node:fs/promises';
import type { Pronounce } from './types.js';

/**
 * A CMU-format pronunciation dictionary (`word PH ON ES`, variants as `word(2)`; pocketsphinx's
 * `cmudict-en-us.dict`, 135 k lines, 3.3 MB) as a lookup, for the listener's "sounds like a stop
 * request" (ADR 109). Kept as the file's text and a sorted index of line starts (~0.5 MB beside
 * the text), not as 126 k map entries: a worker holds it for its whole life. Words are looked up
 * lower case; a word the dictionary lacks gives undefined.
 */
export function pronunciationsOf(dict: string): Pronounce {
  const keyAt = (start: number) => {
    const key = dict.slice(start, dict.indexOf(' ', start));
    const paren = key.endsWith(')') ? key.lastIndexOf('(') : -1;
    return paren > 0 ? key.slice(0, paren) : key;
  };
  // Each line's word (its "(2)" dropped) with its start, sorted by the word, variants in the
  // file's order. Debian's file is sorted by the whole key, so "a's" comes between "a" and "a(2)"
  // ("'" sorts before "("): sorting here is needed for it (the whole index ~50 ms, once per worker).
  const lines: [string, number][] = [];
  for (let at = 0; at < dict.length; ) {
    const end = dict.indexOf('\n', at);
    const stop = end === -1 ? dict.length : end;
    const space = dict.indexOf(' ', at);
    if (space > at && space < stop) lines.push([keyAt(at), at]);
    at = stop + 1;
  }
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  const index = Int32Array.from(lines, ([, start]) => start);
  const phonemesAt = (start: number) => {
    const end = dict.indexOf('\n', start);
    return dict
      .slice(dict.indexOf(' ', start) + 1, end === -1 ? dict.length : end)
      .trim()
      .split(/\s+/)
      .map((p) => p.replace(/\d$/, ''));
  };
  return (word) => {
    const w = word.toLowerCase();
    let lo = 0;
    let hi = index.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keyAt(index[mid]!) < w) lo = mid + 1;
      else hi = mid;
    }
    const out: string[][] = [];
    for (let i = lo; i < index.length && keyAt(index[i]!) === w; i++) out.push(phonemesAt(index[i]!));
    return out.length > 0 ? out : undefined;
  };
}

const loaded = new Map<string, Promise<Pronounce>>();

/** The dictionary at `file`, read once per worker (a failed read is tried again next time). */
export function loadPronunciations(file: string): Promise<Pronounce> {
  let p = loaded.get(file);
  if (!p) {
    p = readFile(file, 'latin1').then(pronunciationsOf);
    loaded.set(file, p);
    p.catch(() => loaded.delete(file));
  }
  return p;
}

/**
 * The dictionary at `file` as a lookup to hand out at once, shared by every session. Until it is
 * read — and if it cannot be — the lookup knows no word (nothing sounds like a stop request; the
 * text rules still apply).
 */
export function sharedPronunciations(file: string, onError?: (err: unknown) => void): Pronounce {
  let ready: Pronounce | null = null;
  loadPronunciations(file).then(
    (f) => {
      ready = f;
    },
    (err: unknown) => onError?.(err),
  );
  return (word) => ready?.(word);
}
