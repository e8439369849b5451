/**
 * A trigram language model built from text, written in the ARPA format pocketsphinx reads (issue 29:
 * the offline recogniser adapted to what an avatar is likely to hear). Interpolated Kneser-Ney
 * with one discount per order (Ney's estimate from the counts of counts), written in backoff form:
 * a listed n-gram carries its interpolated probability, a context its lower order's weight, so the
 * model is the same as the interpolated one for every word sequence.
 *
 * Deterministic: the same texts and dictionary give the same bytes (n-grams sorted, numbers
 * printed to fixed places). Only words the pronunciation dictionary has can be in a pocketsphinx
 * model: an n-gram with any other word is not counted (the word stays a sentence's break).
 */

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** 0–999,999 as words ("twenty one", no "and"); sentencesOf reads longer runs of digits six at a time. */
export function numberWords(n: number): string {
  if (n < 20) return ONES[n]!;
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? ` ${ONES[n % 10]}` : ''}`;
  if (n < 1000) return `${ONES[Math.floor(n / 100)]} hundred${n % 100 ? ` ${numberWords(n % 100)}` : ''}`;
  return `${numberWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${numberWords(n % 1000)}` : ''}`;
}

/** Text as sentences of lower-case words (digits spelt out, apostrophes kept inside words). */
export function sentencesOf(text: string): string[][] {
  const out: string[][] = [];
  for (const part of text.split(/[.!?;:\n\r]+|,\s|\s[-–—]\s/)) {
    const words = part
      .toLowerCase()
      .replace(/\d{1,6}/g, (d) => ` ${numberWords(Number(d))} `)
      .replace(/\d/g, (d) => ` ${ONES[Number(d)]} `)
      .replace(/[_/]/g, ' ')
      .replace(/[^a-z' ]+/g, ' ')
      .split(/\s+/)
      .map((w) => w.replace(/^'+|'+$/g, ''))
      .filter(Boolean);
    if (words.length > 0) out.push(words);
  }
  return out;
}

/** The words of a CMU-format pronunciation dictionary (`word PH ON ES`, variants as `word(2)`). */
export function dictionaryWords(dict: string): Set<string> {
  const words = new Set<string>();
  for (const line of dict.split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    words.add(line.slice(0, space).replace(/\(\d+\)$/, ''));
  }
  return words;
}

export interface LanguageModelSource {
  /** Texts, each weighted (a weight of 3 counts every sentence of it three times). */
  texts: { text: string; weight?: number }[];
  /** The words the recogniser can say. */
  dictionary: ReadonlySet<string>;
}

const BOS = '<s>';
const EOS = '</s>';
const SEP = ' ';

function discount(counts: Map<string, number>): number {
  let n1 = 0;
  let n2 = 0;
  for (const c of counts.values()) {
    if (c === 1) n1++;
    else if (c === 2) n2++;
  }
  const d = n1 + 2 * n2 > 0 ? n1 / (n1 + 2 * n2) : 0.5;
  return Math.min(0.9, Math.max(0.1, d));
}

const log10 = (p: number) => (p > 0 ? Math.log10(p) : -99);
const fmt = (x: number) => (x <= -99 ? '-99' : x.toFixed(6));
const inc = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);

/** A trigram model in backoff form, log10: unigrams and bigrams [probability, backoff], trigrams probability. */
export interface Ngrams {
  unigrams: Map<string, [number, number]>;
  bigrams: Map<string, [number, number]>;
  trigrams: Map<string, number>;
}

/** The model as ARPA text, its n-grams (for interpolation: interpolate.ts), and what it holds. */
export function buildLanguageModel(source: LanguageModelSource): { arpa: string; model: Ngrams; vocabulary: number; ngrams: [number, number, number]; outOfVocabulary: string[] } {
  const tri = new Map<string, number>();
  const oov = new Set<string>();
  /** Words that follow an unknown word: each such place is one more (unknown) word they follow. */
  const afterUnknown = new Map<string, number>();
  for (const { text, weight = 1 } of source.texts) {
    if (!Number.isInteger(weight) || weight < 1 || weight > 1000) throw new Error('buildLanguageModel: a weight is a whole number from 1 to 1000');
    for (const sentence of sentencesOf(text)) {
      const words = [BOS, ...sentence, EOS];
      const known = words.map((w) => w === BOS || w === EOS || source.dictionary.has(w));
      words.forEach((w, i) => !known[i] && oov.add(w));
      // Trigrams (and the sentence-initial bigram as "<s> <s> w"-free: a bigram context of <s>).
      for (let i = 1; i < words.length; i++) {
        if (known[i] && !known[i - 1]) inc(afterUnknown, words[i]!);
        if (!known[i] || !known[i - 1]) continue;
        if (i >= 2 && known[i - 2]) inc(tri, [words[i - 2], words[i - 1], words[i]].join(SEP), weight);
        else inc(tri, [words[i - 1], words[i]].join(SEP), weight); // a bigram with no trigram: its start
      }
    }
  }
  // Raw counts per order: trigrams as counted; bigrams and unigrams as KN continuation counts
  // (how many different words precede them), except those that start a sentence, which keep raw
  // counts (nothing precedes <s>).
  const c3 = new Map<string, number>();
  const rawBi = new Map<string, number>();
  for (const [k, c] of tri) {
    const parts = k.split(SEP);
    if (parts.length === 3) {
      c3.set(k, c);
    } else inc(rawBi, k, c);
  }
  const c2 = new Map<string, number>();
  for (const k of c3.keys()) {
    const [, v, w] = k.split(SEP);
    inc(c2, `${v}${SEP}${w}`);
  }
  for (const [k, c] of rawBi) inc(c2, k, k.startsWith(`${BOS}${SEP}`) ? c : 1);
  const c1 = new Map<string, number>();
  for (const k of c2.keys()) inc(c1, k.split(SEP)[1]!);
  // A word seen only after unknown words still needs its unigram (it starts the bigrams written for it).
  for (const w of afterUnknown.keys()) inc(c1, w);
  c1.delete(BOS);

  const d3 = discount(c3);
  const d2 = discount(c2);
  const d1 = discount(c1);
  // Context totals and distinct followers.
  const totals = (m: Map<string, number>) => {
    const sum = new Map<string, number>();
    const followers = new Map<string, number>();
    for (const [k, c] of m) {
      const h = k.slice(0, k.lastIndexOf(SEP));
      inc(sum, h, c);
      inc(followers, h);
    }
    return { sum, followers };
  };
  const t3 = totals(c3);
  const t2 = totals(c2);
  const vocab = [...c1.keys()].sort();
  const total1 = [...c1.values()].reduce((a, b) => a + b, 0);
  // Unigrams: discounted continuation counts, the rest spread evenly over the vocabulary.
  const p1 = new Map<string, number>();
  for (const w of vocab) p1.set(w, Math.max(c1.get(w)! - d1, 0) / total1 + (d1 * vocab.length) / total1 / vocab.length);
  const p2 = new Map<string, number>();
  for (const [k, c] of c2) {
    const [v, w] = k.split(SEP) as [string, string];
    const sum = t2.sum.get(v)!;
    p2.set(k, Math.max(c - d2, 0) / sum + ((d2 * t2.followers.get(v)!) / sum) * p1.get(w)!);
  }
  const p3 = new Map<string, number>();
  for (const [k, c] of c3) {
    const [u, v, w] = k.split(SEP) as [string, string, string];
    const h = `${u}${SEP}${v}`;
    const sum = t3.sum.get(h)!;
    const lower = p2.get(`${v}${SEP}${w}`) ?? 0;
    p3.set(k, Math.max(c - d3, 0) / sum + ((d3 * t3.followers.get(h)!) / sum) * lower);
  }
  const backoff = (h: string, t: { sum: Map<string, number>; followers: Map<string, number> }, d: number) => {
    const sum = t.sum.get(h);
    return sum ? log10((d * t.followers.get(h)!) / sum) : 0;
  };

  const bigrams = [...p2.keys()].sort();
  const trigrams = [...p3.keys()].sort();
  const model: Ngrams = { unigrams: new Map(), bigrams: new Map(), trigrams: new Map() };
  model.unigrams.set(BOS, [-99, backoff(BOS, t2, d2)]);
  for (const w of vocab) model.unigrams.set(w, [log10(p1.get(w)!), w === EOS ? 0 : backoff(w, t2, d2)]);
  for (const k of bigrams) model.bigrams.set(k, [log10(p2.get(k)!), backoff(k, t3, d3)]);
  for (const k of trigrams) model.trigrams.set(k, log10(p3.get(k)!));
  const lines = ['\\data\\', `ngram 1=${vocab.length + 1}`, `ngram 2=${bigrams.length}`, `ngram 3=${trigrams.length}`, '', '\\1-grams:'];
  lines.push(`-99\t${BOS}\t${fmt(backoff(BOS, t2, d2))}`);
  for (const w of vocab) lines.push(`${fmt(log10(p1.get(w)!))}\t${w}${w === EOS ? '' : `\t${fmt(backoff(w, t2, d2))}`}`);
  lines.push('', '\\2-grams:');
  for (const k of bigrams) lines.push(`${fmt(log10(p2.get(k)!))}\t${k}\t${fmt(backoff(k, t3, d3))}`);
  lines.push('', '\\3-grams:');
  for (const k of trigrams) lines.push(`${fmt(log10(p3.get(k)!))}\t${k}`);
  lines.push('', '\\end\\', '');
  return { arpa: lines.join('\n'), model, vocabulary: vocab.length, ngrams: [vocab.length + 1, bigrams.length, trigrams.length], outOfVocabulary: [...oov].sort() };
}
