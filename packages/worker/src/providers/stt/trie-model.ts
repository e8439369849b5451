/**
 * Reads and writes pocketsphinx's binary trigram model ("Trie Language Model", the format of
 * Debian's `en-us.lm.bin`, sphinxbase 5-prealpha), so the worker can interpolate an avatar's
 * n-grams into the generic model in code (issue 29, ADR 105): Debian's `sphinx_lm_convert` cannot
 * write this model as ARPA (it aborts on an assertion), and an ARPA copy of it is ~100 MB that
 * pocketsphinx would re-sort on every load. The binary loads as fast as the generic model does.
 *
 * The layout, little-endian: the header text, the order (one byte), the n-gram counts (uint32 each);
 * an int32 and the quantisation tables (float32: 2^16 bigram probabilities, 2^16 bigram backoffs,
 * 2^16 trigram probabilities); the unigrams (prob, backoff: float32; index of their first bigram:
 * uint32; one more as the end); the bigrams and trigrams as bit-packed records in a *reversed*
 * trie — under each unigram w, the words v that precede it (sorted by id), each record
 * [v][quantised backoff 16 bits | probability 16 bits][index of its first trigram]; under each
 * bigram (v w), the words u (sorted), each record [u][quantised probability]; then the words,
 * NUL-terminated, by id. Scores are log base 1.0001 (pocketsphinx's logmath); this module works in
 * log10 and converts on the way in and out. Only order 3 is read.
 */

const HEADER = 'Trie Language Model';
/** log10 → pocketsphinx's log base 1.0001. */
export const LOG10_TO_LOGMATH = 1 / Math.log10(1.0001);
const BINS = 1 << 16;
/** N-grams handled between two pauses of the event loop. */
const SLICE = 25_000;

export interface TrieModel {
  words: string[];
  /** Unigram log10 probability and backoff, by word id. */
  uniProb: Float64Array;
  uniBo: Float64Array;
  /** Bigrams under word w: indices uniNext[w] … uniNext[w + 1] − 1 (length words + 1). */
  uniNext: Uint32Array;
  /** The preceding word v of each bigram (v w), its log10 probability and backoff as a context. */
  biWord: Uint32Array;
  biProb: Float64Array;
  biBo: Float64Array;
  /** Trigrams under bigram i: biNext[i] … biNext[i + 1] − 1 (length bigrams + 1). */
  biNext: Uint32Array;
  /** The first word u of each trigram (u v w) and its log10 probability. */
  triWord: Uint32Array;
  triProb: Float64Array;
  /** The quantisation tables (log10, sorted), reused when writing. */
  bins: { biProb: Float64Array; biBo: Float64Array; triProb: Float64Array };
}

/** Bits for values 0…max (sphinxbase's bitarr_required_bits). */
export function requiredBits(max: number): number {
  if (!max) return 0;
  let bits = 1;
  while ((max = Math.floor(max / 2))) bits++;
  return bits;
}

const sectionBytes = (entries: number, totalBits: number) => Math.floor(((1 + entries) * totalBits + 7) / 8) + 8;

// Every field is at most 25 bits wide (sphinxbase's limit), so one unaligned 32-bit word holds it;
// each section ends with 8 spare bytes for that read.
const readBits = (view: DataView, offset: number, mask: number) => (view.getUint32(offset >>> 3, true) >>> (offset & 7)) & mask;

function writeBits(view: DataView, offset: number, value: number): void {
  const at = offset >>> 3;
  view.setUint32(at, view.getUint32(at, true) | (value << (offset & 7)), true);
}

const toLog10 = (x: number) => x / LOG10_TO_LOGMATH;

/** The model in a `.lm.bin` file's bytes; throws on anything but an order-3 trie of consistent size. `pause` is awaited between slices. */
export async function readTrieModel(bytes: Uint8Array, pause: () => Promise<void> = async () => undefined): Promise<TrieModel> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (new TextDecoder().decode(bytes.subarray(0, HEADER.length)) !== HEADER) throw new Error('not a pocketsphinx trie model');
  let at = HEADER.length;
  const order = bytes[at++];
  if (order !== 3) throw new Error(`a trie model of order ${order}: only trigram models are read`);
  const n1 = view.getUint32(at, true);
  const n2 = view.getUint32(at + 4, true);
  const n3 = view.getUint32(at + 8, true);
  at += 12 + 4; // the counts, then quantiser's unused int32
  const table = () => {
    const t = new Float64Array(BINS);
    for (let i = 0; i < BINS; i++) t[i] = toLog10(view.getFloat32(at + i * 4, true));
    at += BINS * 4;
    return t;
  };
  const bins = { biProb: table(), biBo: table(), triProb: table() };
  const uniProb = new Float64Array(n1);
  const uniBo = new Float64Array(n1);
  const uniNext = new Uint32Array(n1 + 1);
  for (let i = 0; i <= n1; i++) {
    if (i < n1) {
      uniProb[i] = toLog10(view.getFloat32(at, true));
      uniBo[i] = toLog10(view.getFloat32(at + 4, true));
    }
    uniNext[i] = view.getUint32(at + 8, true);
    at += 12;
  }
  const wordBits = requiredBits(n1);
  const nextBits = requiredBits(n3);
  if (wordBits > 25 || nextBits > 25) throw new Error('a trie model too large');
  const wordMask = 2 ** wordBits - 1;
  const nextMask = 2 ** nextBits - 1;
  const midBits = wordBits + 32 + nextBits;
  const mid = new DataView(bytes.buffer, bytes.byteOffset + at, sectionBytes(n2, midBits));
  at += sectionBytes(n2, midBits);
  const longBits = wordBits + 16;
  const long = new DataView(bytes.buffer, bytes.byteOffset + at, sectionBytes(n3, longBits));
  at += sectionBytes(n3, longBits);
  if (at + 4 > bytes.length) throw new Error('a truncated trie model');
  // The header's counts size the sections; the n-grams in them can be fewer (Debian's model holds 6
  // bigrams fewer than it says): the end markers (the last unigram's and bigram's "next") tell.
  const bigrams = uniNext[n1]!;
  if (bigrams > n2) throw new Error('an inconsistent trie model');
  const biWord = new Uint32Array(bigrams);
  const biProb = new Float64Array(bigrams);
  const biBo = new Float64Array(bigrams);
  const biNext = new Uint32Array(bigrams + 1);
  for (let i = 0; i <= bigrams; i++) {
    const o = i * midBits;
    if (i < bigrams) {
      biWord[i] = readBits(mid, o, wordMask);
      biBo[i] = bins.biBo[readBits(mid, o + wordBits, 0xffff)]!;
      biProb[i] = bins.biProb[readBits(mid, o + wordBits + 16, 0xffff)]!;
    }
    biNext[i] = readBits(mid, o + wordBits + 32, nextMask);
    if (i % SLICE === SLICE - 1) await pause();
  }
  const trigrams = biNext[bigrams]!;
  if (trigrams > n3) throw new Error('an inconsistent trie model');
  const triWord = new Uint32Array(trigrams);
  const triProb = new Float64Array(trigrams);
  for (let i = 0; i < trigrams; i++) {
    const o = i * longBits;
    triWord[i] = readBits(long, o, wordMask);
    triProb[i] = bins.triProb[readBits(long, o + wordBits, 0xffff)]!;
    if (i % SLICE === SLICE - 1) await pause();
  }
  const textBytes = view.getInt32(at, true);
  at += 4;
  const words = new TextDecoder().decode(bytes.subarray(at, at + textBytes)).split('\0').slice(0, n1);
  if (words.length !== n1) throw new Error('an inconsistent trie model');
  return { words, uniProb, uniBo, uniNext, biWord, biProb, biBo, biNext, triWord, triProb, bins };
}

/**
 * The bin nearest a value (sphinxbase's bins_encode: a binary search; the tables are sorted nearly —
 * sphinxbase sorted them with an integer comparator of floats — so a value may land one bin off:
 * 4·10⁻⁵ in log10 at most, in Debian's model).
 */
function encode(table: Float64Array, value: number): number {
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (table[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return 0;
  if (lo === table.length) return table.length - 1;
  return value - table[lo - 1]! < table[lo]! - value ? lo - 1 : lo;
}

const fromLog10 = (x: number) => Math.fround(x * LOG10_TO_LOGMATH);

/** The model as a `.lm.bin` file pocketsphinx reads (quantised with the model's own tables); `pause` is awaited between slices. */
export async function writeTrieModel(m: TrieModel, pause: () => Promise<void> = async () => undefined): Promise<Uint8Array> {
  const n1 = m.words.length;
  const n2 = m.biWord.length;
  const n3 = m.triWord.length;
  const wordBits = requiredBits(n1);
  const nextBits = requiredBits(n3);
  const midBits = wordBits + 32 + nextBits;
  const longBits = wordBits + 16;
  const text = new TextEncoder().encode(m.words.map((w) => `${w}\0`).join(''));
  const size = HEADER.length + 1 + 12 + 4 + 3 * BINS * 4 + 12 * (n1 + 1) + sectionBytes(n2, midBits) + sectionBytes(n3, longBits) + 4 + text.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(HEADER), 0);
  let at = HEADER.length;
  out[at++] = 3;
  view.setUint32(at, n1, true);
  view.setUint32(at + 4, n2, true);
  view.setUint32(at + 8, n3, true);
  at += 12 + 4;
  for (const t of [m.bins.biProb, m.bins.biBo, m.bins.triProb]) {
    for (let i = 0; i < BINS; i++) view.setFloat32(at + i * 4, fromLog10(t[i]!), true);
    at += BINS * 4;
  }
  for (let i = 0; i <= n1; i++) {
    view.setFloat32(at, i < n1 ? fromLog10(m.uniProb[i]!) : 0, true);
    view.setFloat32(at + 4, i < n1 ? fromLog10(m.uniBo[i]!) : 0, true);
    view.setUint32(at + 8, m.uniNext[i]!, true);
    at += 12;
  }
  if (wordBits > 25 || nextBits > 25) throw new Error('a trie model too large');
  const mid = new DataView(out.buffer, at, sectionBytes(n2, midBits));
  at += sectionBytes(n2, midBits);
  for (let i = 0; i <= n2; i++) {
    const o = i * midBits;
    if (i < n2) {
      writeBits(mid, o, m.biWord[i]!);
      writeBits(mid, o + wordBits, encode(m.bins.biBo, m.biBo[i]!));
      writeBits(mid, o + wordBits + 16, encode(m.bins.biProb, m.biProb[i]!));
    }
    writeBits(mid, o + wordBits + 32, m.biNext[i]!);
    if (i % SLICE === SLICE - 1) await pause();
  }
  const long = new DataView(out.buffer, at, sectionBytes(n3, longBits));
  at += sectionBytes(n3, longBits);
  for (let i = 0; i < n3; i++) {
    const o = i * longBits;
    writeBits(long, o, m.triWord[i]!);
    writeBits(long, o + wordBits, encode(m.bins.triProb, m.triProb[i]!));
    if (i % SLICE === SLICE - 1) await pause();
  }
  view.setInt32(at, text.length, true);
  out.set(text, at + 4);
  return out;
}

/** The index of x in the sorted arr[from…to), or −1. */
export function findSorted(arr: Uint32Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < to && arr[lo] === x ? lo : -1;
}

/** log10 P(w | history) in the model, through its backoffs (word ids; the history oldest first, its last two words used). */
export function trieLogProb(m: TrieModel, w: number, history: readonly number[] = []): number {
  const bigram = (v: number, x: number) => findSorted(m.biWord, m.uniNext[x]!, m.uniNext[x + 1]!, v);
  const p2 = (v: number) => {
    const b = bigram(v, w);
    return b >= 0 ? m.biProb[b]! : m.uniBo[v]! + m.uniProb[w]!;
  };
  if (history.length === 0) return m.uniProb[w]!;
  const v = history[history.length - 1]!;
  if (history.length === 1) return p2(v);
  const u = history[history.length - 2]!;
  const b = bigram(v, w);
  if (b >= 0) {
    const t = findSorted(m.triWord, m.biNext[b]!, m.biNext[b + 1]!, u);
    if (t >= 0) return m.triProb[t]!;
  }
  const ctx = bigram(u, v);
  return (ctx >= 0 ? m.biBo[ctx]! : 0) + p2(v);
}
