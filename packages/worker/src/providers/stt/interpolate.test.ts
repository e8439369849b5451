import { describe, expect, it } from 'vitest';
import { interpolate } from './interpolate.js';
import { buildLanguageModel, type Ngrams } from './language-model.js';
import { readTrieModel, trieLogProb, writeTrieModel, type TrieModel } from './trie-model.js';

const GENERAL = 'I went to the park. The dog ran to the park. What is the time? I think it is late. We went home.';
const AVATAR = 'What is the price of the blue shirt? What are your opening hours? Where is my order? The blue shirt is on sale.';
const words = (text: string) => new Set(text.toLowerCase().replace(/[^a-z' ]+/g, ' ').split(/\s+/).filter(Boolean));
const dictionary = new Set([...words(GENERAL), ...words(AVATAR)]);

/** Evenly spaced quantisation tables (sorted). */
const table = (from: number, to: number) => Float64Array.from({ length: 1 << 16 }, (_, i) => from + ((to - from) * i) / ((1 << 16) - 1));

/** A trie model holding exactly an n-gram model (the "generic" model of these tests). */
function trieOf(n: Ngrams): TrieModel {
  const ws = [...n.unigrams.keys()].sort();
  const id = new Map(ws.map((w, i) => [w, i]));
  const bi = [...n.bigrams.entries()].map(([k, pb]) => ({ ids: k.split(' ').map((w) => id.get(w)!), pb })).sort((a, b) => a.ids[1]! - b.ids[1]! || a.ids[0]! - b.ids[0]!);
  const tri = [...n.trigrams.entries()].map(([k, p]) => ({ ids: k.split(' ').map((w) => id.get(w)!), p })).sort((a, b) => a.ids[2]! - b.ids[2]! || a.ids[1]! - b.ids[1]! || a.ids[0]! - b.ids[0]!);
  const uniNext = new Uint32Array(ws.length + 1);
  for (let w = 0, b = 0; w <= ws.length; w++) {
    while (b < bi.length && bi[b]!.ids[1]! < w) b++;
    uniNext[w] = b;
  }
  const biNext = new Uint32Array(bi.length + 1);
  for (let b = 0, t = 0; b <= bi.length; b++) {
    const key = (x: number[]) => x[1]! * ws.length + x[0]!;
    while (t < tri.length && (b === bi.length || key([tri[t]!.ids[1]!, tri[t]!.ids[2]!]) < key(bi[b]!.ids))) t++;
    biNext[b] = t;
  }
  return {
    words: ws,
    uniProb: Float64Array.from(ws, (w) => n.unigrams.get(w)![0]),
    uniBo: Float64Array.from(ws, (w) => n.unigrams.get(w)![1]),
    uniNext,
    biWord: Uint32Array.from(bi, (b) => b.ids[0]!),
    biProb: Float64Array.from(bi, (b) => b.pb[0]),
    biBo: Float64Array.from(bi, (b) => b.pb[1]),
    biNext,
    triWord: Uint32Array.from(tri, (t) => t.ids[0]!),
    triProb: Float64Array.from(tri, (t) => t.p),
    bins: { biProb: table(-12, 0), biBo: table(-4, 4), triProb: table(-12, 0) },
  };
}

/** log10 P(w | history) of an n-gram model through its backoffs; −∞ for a word it does not know. */
function ngramLogProb(n: Ngrams, w: string, history: string[]): number {
  if (!n.unigrams.has(w)) return -Infinity;
  const p1 = n.unigrams.get(w)![0];
  const p2 = (v: string) => n.bigrams.get(`${v} ${w}`)?.[0] ?? (n.unigrams.get(v)?.[1] ?? 0) + p1;
  if (history.length === 0) return p1;
  const v = history.at(-1)!;
  if (history.length === 1) return p2(v);
  const u = history.at(-2)!;
  return n.trigrams.get(`${u} ${v} ${w}`) ?? (n.bigrams.get(`${u} ${v}`)?.[1] ?? 0) + p2(v);
}

describe('interpolate (an avatar model into the generic one)', () => {
  const generic = buildLanguageModel({ texts: [{ text: GENERAL }], dictionary }).model;
  const avatar = buildLanguageModel({ texts: [{ text: AVATAR, weight: 2 }], dictionary }).model;
  const genericTrie = trieOf(generic);
  const histories = [[], ['the'], ['<s>'], ['<s>', 'what'], ['what', 'is'], ['is', 'the'], ['to', 'the'], ['blue'], ['went', 'to']];

  it('is λ·P_avatar + (1 − λ)·P_generic for every word after every history, and each distribution sums to 1', async () => {
    const lambda = 0.3;
    const m = await interpolate(genericTrie, avatar, lambda);
    const id = new Map(m.words.map((w, i) => [w, i]));
    // The avatar's words the generic model lacks are added.
    expect(m.words).toContain('shirt');
    let exact = 0;
    for (const h of histories) {
      let sum = 0;
      for (const w of m.words) {
        if (w === '<s>') continue;
        const got = trieLogProb(m, id.get(w)!, h.map((x) => id.get(x)!));
        const pg = genericTrie.words.includes(w) ? 10 ** trieLogProb(genericTrie, genericTrie.words.indexOf(w), h.map((x) => genericTrie.words.indexOf(x)).filter((x) => x >= 0)) : 0;
        const want = lambda * 10 ** ngramLogProb(avatar, w, h) + (1 - lambda) * pg;
        // Exact where either model lists the n-gram; elsewhere the backoff form spreads what is left
        // over the lower order (SRILM's static mixture: the same approximation).
        const key = [...h, w].join(' ');
        const listed = h.length === 0 || [generic, avatar].some((n) => (h.length === 1 ? n.bigrams.has(key) : n.trigrams.has(key)));
        if (listed) {
          expect(10 ** got, `P(${w} | ${h.join(' ')})`).toBeCloseTo(want, 9);
          exact++;
        }
        sum += 10 ** got;
      }
      expect(sum, `Σ P(· | ${h.join(' ')})`).toBeCloseTo(1, 6);
    }
    expect(exact).toBeGreaterThan(m.words.length);
  });

  it('with λ = 0 is the generic model; the same inputs give the same bytes', async () => {
    const m = await interpolate(genericTrie, avatar, 0);
    const id = new Map(m.words.map((w, i) => [w, i]));
    for (const h of histories.filter((x) => x.every((w) => genericTrie.words.includes(w)))) {
      for (const [i, w] of genericTrie.words.entries()) {
        if (w === '<s>') continue;
        expect(trieLogProb(m, id.get(w)!, h.map((x) => id.get(x)!))).toBeCloseTo(trieLogProb(genericTrie, i, h.map((x) => genericTrie.words.indexOf(x))), 9);
      }
    }
    const a = await writeTrieModel(await interpolate(genericTrie, avatar, 0.3));
    const b = await writeTrieModel(await interpolate(genericTrie, avatar, 0.3));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    await expect(interpolate(genericTrie, avatar, 1)).rejects.toThrow(/λ/);
  });

  it('yields between slices of work, and the pauses change nothing', async () => {
    let pauses = 0;
    const paused = await interpolate(genericTrie, avatar, 0.3, async () => void pauses++, 10);
    const straight = await interpolate(genericTrie, avatar, 0.3);
    expect(pauses).toBeGreaterThan(straight.biWord.length / 10 - 1);
    expect(Buffer.from(await writeTrieModel(paused)).equals(Buffer.from(await writeTrieModel(straight)))).toBe(true);
  });
});

describe('the binary trie model', () => {
  it('reads back what it writes (probabilities to the quantisation tables\' step)', async () => {
    const m = await interpolate(trieOf(buildLanguageModel({ texts: [{ text: GENERAL }], dictionary }).model), buildLanguageModel({ texts: [{ text: AVATAR }], dictionary }).model, 0.3);
    const back = await readTrieModel(await writeTrieModel(m));
    expect(back.words).toEqual(m.words);
    for (const k of ['uniNext', 'biWord', 'biNext', 'triWord'] as const) expect(Array.from(back[k])).toEqual(Array.from(m[k]));
    for (const k of ['uniProb', 'uniBo'] as const) back[k].forEach((x, i) => expect(x).toBeCloseTo(m[k][i]!, 4));
    for (const k of ['biProb', 'triProb'] as const) back[k].forEach((x, i) => expect(Math.abs(x - m[k][i]!)).toBeLessThan(2e-4));
    back.biBo.forEach((x, i) => expect(Math.abs(x - m.biBo[i]!)).toBeLessThan(2e-4));
    await expect(readTrieModel(new TextEncoder().encode('Darpa Trigram LM'))).rejects.toThrow(/not a pocketsphinx trie model/);
  });
});
