import type { Ngrams } from './language-model.js';
import { findSorted, type TrieModel } from './trie-model.js';

/**
 * An avatar's trigram model interpolated with the generic one (issue 29, ADR 105): for every n-gram
 * either model lists, P(w | h) = λ·P_avatar(w | h) + (1 − λ)·P_generic(w | h), each side's probability
 * taken through its own backoffs (a word the avatar model does not know has P_avatar = 0); the
 * backoff of each context then makes the words it does not list share what is left,
 * bo(h) = (1 − Σ listed P(w | h)) / (1 − Σ listed P(w | h′)) — the static interpolation SRILM's
 * `ngram -mix-lm` writes. The result has the generic model's words (plus the avatar's it lacks)
 * and n-grams (plus the avatar's), so the recogniser still hears general speech, with the
 * avatar's phrases made likelier.
 *
 * Deterministic: the same models and weight give the same arrays. Long (a second or two for
 * Debian's 3.7 M n-grams): `pause` is awaited after every `slice` bigrams (with their trigrams) so a
 * caller can yield the event loop.
 */
export async function interpolate(generic: TrieModel, avatar: Ngrams, lambda: number, pause: () => Promise<void> = async () => undefined, slice = 20_000): Promise<TrieModel> {
  if (!(lambda >= 0 && lambda < 1)) throw new Error('interpolate: λ is from 0 to less than 1');
  const SLICE = Math.max(1, slice);
  let done = 0;
  const g = generic;
  const n1g = g.words.length;
  const index = new Map<string, number>();
  g.words.forEach((w, i) => index.set(w, i));
  const added = [...avatar.unigrams.keys()].filter((w) => !index.has(w)).sort();
  const words = [...g.words, ...added];
  added.forEach((w, i) => index.set(w, n1g + i));
  const n1 = words.length;
  const id = (w: string) => index.get(w)!;
  // Pair and triple keys as numbers: ids are < 2^25, so u·n1² + v·n1 + w < 2^53.
  const k2 = (v: number, w: number) => v * n1 + w;
  const k3 = (u: number, v: number, w: number) => (u * n1 + v) * n1 + w;

  // The avatar's model by id.
  const aUni = new Float64Array(n1).fill(-Infinity);
  const aUniBo = new Float64Array(n1);
  for (const [w, [p, bo]] of avatar.unigrams) {
    aUni[id(w)] = p <= -99 ? -Infinity : p;
    aUniBo[id(w)] = bo;
  }
  const aBi = new Map<number, [number, number]>();
  /** The words before w in the avatar's bigrams, and the words before (v w) in its trigrams. */
  const aBefore = new Map<number, number[]>();
  const aBefore2 = new Map<number, number[]>();
  const push = (m: Map<number, number[]>, k: number, v: number) => {
    const list = m.get(k);
    if (list) list.push(v);
    else m.set(k, [v]);
  };
  for (const [k, pb] of avatar.bigrams) {
    const [v, w] = k.split(' ').map(id) as [number, number];
    aBi.set(k2(v, w), pb);
    push(aBefore, w, v);
  }
  const aTri = new Map<number, number>();
  for (const [k, p] of avatar.trigrams) {
    const [u, v, w] = k.split(' ').map(id) as [number, number, number];
    aTri.set(k3(u, v, w), p);
    push(aBefore2, k2(v, w), u);
  }
  for (const list of [...aBefore.values(), ...aBefore2.values()]) list.sort((a, b) => a - b);
  const aP2 = (v: number, w: number) => {
    if (aUni[w] === -Infinity) return -Infinity;
    const hit = aBi.get(k2(v, w));
    return hit ? hit[0] : aUniBo[v]! + aUni[w]!;
  };
  const aP3 = (u: number, v: number, w: number) => {
    if (aUni[w] === -Infinity) return -Infinity;
    const hit = aTri.get(k3(u, v, w));
    return hit ?? (aBi.get(k2(u, v))?.[1] ?? 0) + aP2(v, w);
  };

  // The generic model's lookups (reversed trie: under w, the words before it).
  const search = findSorted;
  const gBigram = (v: number, w: number) => (w < n1g && v < n1g ? search(g.biWord, g.uniNext[w]!, g.uniNext[w + 1]!, v) : -1);
  const gUni = (w: number) => (w < n1g && g.uniProb[w]! > -99 ? g.uniProb[w]! : -Infinity);
  const gP2 = (v: number, w: number) => {
    const b = gBigram(v, w);
    if (b >= 0) return g.biProb[b]!;
    return (v < n1g ? g.uniBo[v]! : 0) + gUni(w);
  };
  const gP3 = (u: number, v: number, w: number) => {
    const b = gBigram(v, w);
    if (b >= 0 && u < n1g) {
      const t = search(g.triWord, g.biNext[b]!, g.biNext[b + 1]!, u);
      if (t >= 0) return g.triProb[t]!;
    }
    const ctx = gBigram(u, v);
    return (ctx >= 0 ? g.biBo[ctx]! : 0) + gP2(v, w);
  };
  const mixLinear = (pa: number, pg: number) => lambda * 10 ** pa + (1 - lambda) * 10 ** pg;
  const log = (x: number) => (x > 0 ? Math.log10(x) : -99);

  // Unigrams.
  const uniProb = new Float64Array(n1);
  for (let w = 0; w < n1; w++) uniProb[w] = w < n1g && g.uniProb[w]! <= -99 && aUni[w] === -Infinity ? -99 : log(mixLinear(aUni[w]!, gUni(w)));

  // Bigrams: under each w, the union of both models' preceding words in id order, each with its
  // index in the generic model (−1: the avatar's only). Trigrams likewise under each bigram.
  const scaled = Math.log10(1 - lambda);
  const maxBi = g.biWord.length + avatar.bigrams.size;
  const maxTri = g.triWord.length + avatar.trigrams.size;
  const biWordAll = new Uint32Array(maxBi);
  const biGen = new Int32Array(maxBi);
  const uniNext = new Uint32Array(n1 + 1);
  let n2 = 0;
  for (let w = 0; w < n1; w++) {
    uniNext[w] = n2;
    let i = w < n1g ? g.uniNext[w]! : 0;
    const end = w < n1g ? g.uniNext[w + 1]! : 0;
    const extra = aBefore.get(w) ?? [];
    let j = 0;
    while (i < end || j < extra.length) {
      const x = i < end ? g.biWord[i]! : Infinity;
      const y = j < extra.length ? extra[j]! : Infinity;
      if (x <= y) {
        biWordAll[n2] = x;
        biGen[n2++] = i++;
        if (x === y) j++;
      } else {
        biWordAll[n2] = y;
        biGen[n2++] = -1;
        j++;
      }
    }
    if (++done % SLICE === 0) await pause();
  }
  uniNext[n1] = n2;
  const biWord = biWordAll.slice(0, n2);
  const biProb = new Float64Array(n2);
  const biBo = new Float64Array(n2);
  const biNext = new Uint32Array(n2 + 1);
  const num1 = new Float64Array(n1);
  const den1 = new Float64Array(n1);
  const triWordAll = new Uint32Array(maxTri);
  const triProbAll = new Float64Array(maxTri);
  let n3 = 0;
  for (let w = 0; w < n1; w++) {
    const known = aUni[w] !== -Infinity;
    for (let b = uniNext[w]!; b < uniNext[w + 1]!; b++) {
      const v = biWord[b]!;
      const gb = biGen[b]!;
      const pg = gb >= 0 ? g.biProb[gb]! : gP2(v, w);
      // A word the avatar does not know: its generic probability, scaled.
      const p = known ? log(mixLinear(aP2(v, w), pg)) : pg + scaled;
      biProb[b] = p;
      num1[v] = num1[v]! + 10 ** p;
      den1[v] = den1[v]! + 10 ** uniProb[w]!;
      // Trigrams under (v w).
      biNext[b] = n3;
      let i = gb >= 0 ? g.biNext[gb]! : 0;
      const end = gb >= 0 ? g.biNext[gb + 1]! : 0;
      const extra = aBefore2.get(k2(v, w)) ?? [];
      let j = 0;
      while (i < end || j < extra.length) {
        const x = i < end ? g.triWord[i]! : Infinity;
        const y = j < extra.length ? extra[j]! : Infinity;
        let u: number;
        let pg3: number;
        if (x <= y) {
          u = x;
          pg3 = g.triProb[i++]!;
          if (x === y) j++;
        } else {
          u = y;
          pg3 = gP3(u, v, w);
          j++;
        }
        triWordAll[n3] = u;
        triProbAll[n3++] = known ? log(mixLinear(aP3(u, v, w), pg3)) : pg3 + scaled;
      }
      if (++done % SLICE === 0) await pause();
    }
  }
  biNext[n2] = n3;
  const triWord = triWordAll.slice(0, n3);
  const triProb = triProbAll.slice(0, n3);

  // Backoffs. Unigram contexts v: what their listed bigrams leave over what their unigrams did.
  const backoff = (num: number, den: number) => Math.log10(Math.max(1e-12, 1 - num) / Math.max(1e-12, 1 - den));
  const uniBo = new Float64Array(n1);
  for (let v = 0; v < n1; v++) uniBo[v] = num1[v]! > 0 ? backoff(num1[v]!, den1[v]!) : 0;
  // Bigram contexts (u v) — the bigram stored under v with word u: sums over the trigrams (u v w),
  // each stored under the bigram (v w) whose probability is its lower order.
  const num2 = new Float64Array(n2);
  const den2 = new Float64Array(n2);
  for (let w = 0; w < n1; w++) {
    for (let b = uniNext[w]!; b < uniNext[w + 1]!; b++) {
      const v = biWord[b]!;
      const lower = 10 ** biProb[b]!;
      for (let t = biNext[b]!; t < biNext[b + 1]!; t++) {
        const ctx = search(biWord, uniNext[v]!, uniNext[v + 1]!, triWord[t]!);
        if (ctx < 0) continue;
        num2[ctx] = num2[ctx]! + 10 ** triProb[t]!;
        den2[ctx] = den2[ctx]! + lower;
      }
      if (++done % SLICE === 0) await pause();
    }
  }
  for (let b = 0; b < n2; b++) biBo[b] = num2[b]! > 0 ? backoff(num2[b]!, den2[b]!) : 0;
  return { words, uniProb, uniBo, uniNext, biWord, biProb, biBo, biNext, triWord, triProb, bins: g.bins };
}
