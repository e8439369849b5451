/**
 * Visemes: the mouth shapes the renderer blends, as a timeline on the audio clock. The set is
 * Oculus/Meta's 15 (the morph targets `viseme_sil` … `viseme_U` of the avatars):
 *   sil · PP (p b m) · FF (f v) · TH (θ ð) · DD (t d) · kk (k g ŋ) · CH (tʃ dʒ ʃ ʒ) · SS (s z) ·
 *   nn (n l) · RR (r) · aa (ɑ æ ʌ) · E (ɛ ə) · I (ɪ i) · O (oʊ ɔ) · U (ʊ u w)
 *
 * Sources of a timeline, best first:
 * - the provider's own viseme marks (Amazon Polly speech marks, Azure viseme ids);
 * - the provider's phones with times (flite's segments, Cartesia's phoneme timestamps);
 * - the provider's character or word times (ElevenLabs' alignment, Cartesia's words) with the
 *   letters of each word turned into visemes by the rules below;
 * - the text alone, its visemes given relative durations and scaled to the real audio.
 *
 * The text rules follow the approach of TalkingHead's `lipsync-en` (MIT, Mika Suominen): English
 * letter groups in context → visemes with relative durations, in the spirit of the NRL
 * letter-to-sound rules (Elovitz et al., 1976). The rule table here is our own, smaller one:
 * lip-sync needs the mouth shapes of a word in order, not its exact pronunciation.
 */

export const VISEMES = ['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR', 'aa', 'E', 'I', 'O', 'U'] as const;
export type Viseme = (typeof VISEMES)[number];

/** One entry of the `visemes` frame: start and duration in ms from the utterance's first sample. */
export interface VisemeItem {
  t: number;
  v: Viseme;
  d: number;
}

/** One entry of the `words` frame. */
export interface WordItem {
  t: number;
  d: number;
  w: string;
}

/** Relative durations (1 ≈ an average phone): open vowels last longest, taps and stops least. */
const WEIGHT: Record<Viseme, number> = {
  sil: 1,
  PP: 0.9,
  FF: 1,
  TH: 0.9,
  DD: 0.7,
  kk: 0.8,
  CH: 1.1,
  SS: 1.2,
  nn: 0.8,
  RR: 0.9,
  aa: 1.4,
  E: 1.1,
  I: 1,
  O: 1.3,
  U: 1.1,
};

/** Pauses in the same unit: after a comma-like mark and after a sentence. */
const PAUSE_CLAUSE = 2.2;
const PAUSE_SENTENCE = 3.5;
/** A gap between timed words shorter than this is not a pause (the mouth moves on). */
const MIN_SILENCE_MS = 70;

/** A viseme with its relative weight and the letters (or phone) it came from. */
export interface Segment {
  v: Viseme;
  w: number;
  /** Letter range [from, to) in the word (spelled words only). */
  from: number;
  to: number;
}

// ─── letters → visemes ─────────────────────────────────────────────────────────────────────

const VOWELS = 'aeiouy';
const isVowel = (c: string | undefined) => c !== undefined && VOWELS.includes(c);
const isConsonant = (c: string | undefined) => c !== undefined && /[a-z]/.test(c) && !VOWELS.includes(c);

interface Ctx {
  /** The word, lower case, letters and apostrophes only. */
  w: string;
  /** Index of the group's first letter. */
  i: number;
  /** Index after the group. */
  j: number;
}

interface Rule {
  g: string;
  v: string;
  when?: (c: Ctx) => boolean;
}

const atStart = (c: Ctx) => c.i === 0;
const atEnd = (c: Ctx) => c.j >= c.w.length;
const next = (c: Ctx, k = 0) => c.w[c.j + k];
const prev = (c: Ctx, k = 1) => c.w[c.i - k];
/** Has the word another vowel before this point (a final e after a syllable is silent)? */
const vowelBefore = (c: Ctx) => /[aeiouy]/.test(c.w.slice(0, c.i));
/** Vowel + one consonant + final e (+ s/d): "make", "times", "hoped". */
const magicE = (c: Ctx) => {
  const rest = c.w.slice(c.j);
  return /^[bcdfgklmnprstvz]e(s|d)?$/.test(rest) && rest[0] !== undefined;
};

const words = (list: string) => new Set(list.split(' '));
const SOFT_G_EXCEPTIONS = words('get gets getting give gives given giving girl girls gift gifts gear geese geek begin begins beginning forget forgets together target tiger finger anger hunger eager linger bigger biggest digger foggy soggy');
const O_AS_U = words('to do who two into onto whom whose lose move prove');
const O_AS_UH = words('come comes some love loves done none one once gone above glove dove shove');

/**
 * Ordered per first letter; the first group whose context holds wins. `v` lists visemes by
 * name ('' = silent letters), `+` joins a diphthong's two parts.
 */
const RULES: Record<string, Rule[]> = {
  a: [
    { g: 'augh', v: 'aa' },
    { g: 'aigh', v: 'E+I' },
    { g: 'air', v: 'E RR' },
    { g: 'are', v: 'E RR', when: atEnd },
    { g: 'ar', v: 'E RR', when: (c) => isVowel(next(c)) },
    { g: 'ar', v: 'aa RR' },
    { g: 'ai', v: 'E+I' },
    { g: 'ay', v: 'E+I' },
    { g: 'au', v: 'O' },
    { g: 'aw', v: 'O' },
    { g: 'alk', v: 'O kk' },
    { g: 'all', v: 'O nn' },
    { g: 'a', v: 'E+I', when: (c) => magicE(c) || /^[ts]ion/.test(c.w.slice(c.j)) },
    { g: 'a', v: 'E', when: (c) => c.w === 'a' },
    { g: 'a', v: 'aa' },
  ],
  b: [
    { g: 'bb', v: 'PP' },
    { g: 'b', v: 'PP' },
  ],
  c: [
    { g: 'ch', v: 'kk', when: (c) => next(c) === 'r' },
    { g: 'ch', v: 'CH' },
    { g: 'ck', v: 'kk' },
    { g: 'cc', v: 'kk SS', when: (c) => 'eiy'.includes(next(c) ?? '-') },
    { g: 'cc', v: 'kk' },
    { g: 'ci', v: 'CH', when: (c) => 'aou'.includes(next(c) ?? '-') },
    { g: 'c', v: 'SS', when: (c) => 'eiy'.includes(next(c) ?? '-') },
    { g: 'c', v: 'kk' },
  ],
  d: [
    { g: 'dge', v: 'CH' },
    { g: 'dg', v: 'CH' },
    { g: 'dd', v: 'DD' },
    { g: 'd', v: 'DD' },
  ],
  e: [
    { g: 'eigh', v: 'E+I' },
    { g: 'eau', v: 'O' },
    { g: 'ear', v: 'E RR', when: (c) => isConsonant(next(c)) },
    { g: 'ear', v: 'I RR' },
    { g: 'eer', v: 'I RR' },
    { g: 'ere', v: 'I RR', when: (c) => atEnd(c) && c.i > 0 && !'hw'.includes(prev(c) ?? '-') },
    { g: 'ee', v: 'I' },
    { g: 'ea', v: 'I' },
    { g: 'eo', v: 'I' },
    { g: 'ei', v: 'I' },
    { g: 'ey', v: 'E+I', when: atEnd },
    { g: 'ey', v: 'I' },
    { g: 'ew', v: 'I+U' },
    { g: 'eu', v: 'I+U' },
    { g: 'er', v: 'E RR' },
    // "played", "hoped": the e is silent; "wanted", "needed": it is not.
    { g: 'ed', v: 'DD', when: (c) => atEnd(c) && vowelBefore(c) && !'td'.includes(prev(c) ?? '-') },
    // "boxes", "wishes": a syllable; "makes": a silent e.
    { g: 'es', v: 'I SS', when: (c) => atEnd(c) && vowelBefore(c) && /(s|x|z|ch|sh|ge|ce)$/.test(c.w.slice(0, c.i)) },
    { g: 'es', v: 'SS', when: (c) => atEnd(c) && vowelBefore(c) },
    { g: 'e', v: 'I', when: (c) => atEnd(c) && !vowelBefore(c) },
    { g: 'e', v: '', when: (c) => atEnd(c) && vowelBefore(c) },
    { g: 'e', v: 'I', when: magicE },
    { g: 'e', v: 'E' },
  ],
  f: [
    { g: 'ff', v: 'FF' },
    { g: 'f', v: 'FF' },
  ],
  g: [
    { g: 'gh', v: 'kk', when: atStart },
    { g: 'gh', v: '' },
    { g: 'gn', v: 'nn', when: (c) => atStart(c) || atEnd(c) },
    { g: 'gg', v: 'kk' },
    { g: 'g', v: 'CH', when: (c) => 'eiy'.includes(next(c) ?? '-') && !SOFT_G_EXCEPTIONS.has(c.w) },
    { g: 'g', v: 'kk' },
  ],
  h: [{ g: 'h', v: '' }],
  i: [
    { g: 'igh', v: 'aa+I' },
    { g: 'ie', v: 'aa+I', when: (c) => atEnd(c) && c.w.length <= 3 },
    { g: 'ie', v: 'I' },
    { g: 'ir', v: 'E RR' },
    { g: 'ind', v: 'aa+I nn DD', when: atEnd },
    { g: 'ild', v: 'aa+I nn DD', when: atEnd },
    { g: 'i', v: 'aa+I', when: (c) => magicE(c) || c.w === 'i' },
    { g: 'i', v: 'I' },
  ],
  j: [{ g: 'j', v: 'CH' }],
  k: [
    { g: 'kn', v: 'nn', when: atStart },
    { g: 'kk', v: 'kk' },
    { g: 'k', v: 'kk' },
  ],
  l: [
    { g: 'll', v: 'nn' },
    { g: 'l', v: 'nn' },
  ],
  m: [
    { g: 'mb', v: 'PP', when: atEnd },
    { g: 'mm', v: 'PP' },
    { g: 'm', v: 'PP' },
  ],
  n: [
    { g: 'nge', v: 'nn CH', when: atEnd },
    { g: 'ng', v: 'kk' },
    { g: 'nk', v: 'kk' },
    { g: 'nn', v: 'nn' },
    { g: 'n', v: 'nn' },
  ],
  o: [
    { g: 'ough', v: 'aa', when: (c) => next(c) === 't' },
    { g: 'ough', v: 'aa FF', when: (c) => atEnd(c) && 'rtnc'.includes(prev(c) ?? '-') },
    { g: 'ough', v: 'U', when: (c) => prev(c) === 'r' },
    { g: 'ough', v: 'O' },
    { g: 'ould', v: 'U DD' },
    { g: 'our', v: 'O RR', when: (c) => 'fpyc'.includes(prev(c) ?? '-') },
    { g: 'our', v: 'aa+U RR' },
    { g: 'ous', v: 'E SS', when: atEnd },
    { g: 'oor', v: 'O RR' },
    { g: 'oo', v: 'U' },
    { g: 'oa', v: 'O' },
    { g: 'oe', v: 'O', when: atEnd },
    { g: 'oi', v: 'O+I' },
    { g: 'oy', v: 'O+I' },
    { g: 'ou', v: 'aa+U' },
    { g: 'ow', v: 'aa+U', when: (c) => 'nl'.includes(next(c) ?? '-') || (next(c) === 'e' && next(c, 1) === 'r') },
    { g: 'ow', v: 'aa+U', when: (c) => atEnd(c) && 'hcvwd'.includes(prev(c) ?? '-') && prev(c, 2) !== 'n' },
    { g: 'ow', v: 'O' },
    { g: 'ore', v: 'O RR', when: atEnd },
    { g: 'or', v: 'O RR' },
    { g: 'old', v: 'O nn DD' },
    { g: 'o', v: 'U', when: (c) => O_AS_U.has(c.w) },
    { g: 'o', v: 'aa', when: (c) => O_AS_UH.has(c.w) },
    { g: 'o', v: 'O', when: (c) => magicE(c) || atEnd(c) },
    { g: 'o', v: 'aa' },
  ],
  p: [
    { g: 'ph', v: 'FF' },
    { g: 'ps', v: 'SS', when: atStart },
    { g: 'pp', v: 'PP' },
    { g: 'p', v: 'PP' },
  ],
  q: [
    { g: 'qu', v: 'kk U' },
    { g: 'q', v: 'kk' },
  ],
  r: [
    { g: 'rr', v: 'RR' },
    { g: 'r', v: 'RR' },
  ],
  s: [
    { g: 'sch', v: 'SS kk' },
    { g: 'sh', v: 'CH' },
    { g: 'sion', v: 'CH E nn' },
    { g: 'sure', v: 'CH E RR' },
    { g: 'ss', v: 'SS' },
    { g: 's', v: 'SS' },
  ],
  t: [
    { g: 'tch', v: 'CH' },
    { g: 'tion', v: 'CH E nn' },
    { g: 'tial', v: 'CH E nn' },
    { g: 'tious', v: 'CH E SS' },
    { g: 'ture', v: 'CH E RR' },
    { g: 'th', v: 'TH' },
    { g: 'tt', v: 'DD' },
    { g: 't', v: 'DD' },
  ],
  u: [
    { g: 'ur', v: 'E RR' },
    { g: 'ue', v: 'U' },
    { g: 'ui', v: 'U' },
    // u in an open syllable ("music", "human", "museum"), before a consonant and a vowel.
    { g: 'u', v: 'U', when: (c) => magicE(c) || (isConsonant(next(c)) && isVowel(next(c, 1)) && c.j + 2 < c.w.length) },
    { g: 'u', v: 'U', when: (c) => 'pf'.includes(prev(c) ?? '-') && 'lsht'.includes(next(c) ?? '-') },
    { g: 'u', v: 'aa' },
  ],
  v: [{ g: 'v', v: 'FF' }],
  w: [
    { g: 'wr', v: 'RR', when: atStart },
    { g: 'wh', v: 'U' },
    { g: 'w', v: 'U' },
  ],
  x: [
    { g: 'x', v: 'SS', when: atStart },
    { g: 'x', v: 'kk SS' },
  ],
  y: [
    { g: 'y', v: 'I', when: (c) => atStart(c) && isVowel(next(c)) },
    { g: 'y', v: 'aa+I', when: (c) => atEnd(c) && !/[aeiou]/.test(c.w.slice(0, c.i)) },
    { g: 'y', v: 'I' },
  ],
  z: [
    { g: 'zz', v: 'SS' },
    { g: 'z', v: 'SS' },
  ],
};

/** Frequent words the rules get wrong, spelled as visemes directly. */
const SPECIAL: Record<string, string> = {
  the: 'TH E',
  you: 'I U',
  your: 'I O RR',
  are: 'aa RR',
  one: 'U aa nn',
  once: 'U aa nn SS',
  of: 'aa FF',
  is: 'I SS',
  his: 'I SS',
  as: 'aa SS',
  was: 'U aa SS',
  says: 'SS E SS',
  said: 'SS E DD',
  have: 'aa FF',
  give: 'kk I FF',
  live: 'nn I FF',
  there: 'TH E RR',
  where: 'U E RR',
  were: 'U E RR',
  here: 'I RR',
  eye: 'aa+I',
  does: 'DD aa SS',
  been: 'PP I nn',
  through: 'TH RR U',
  any: 'E nn I',
  many: 'PP E nn I',
  people: 'PP I PP E nn',
  who: 'U',
  what: 'U aa DD',
  because: 'PP I kk aa SS',
  pretty: 'PP RR I DD I',
  busy: 'PP I SS I',
  women: 'U I PP E nn',
  island: 'aa+I nn E nn DD',
  friend: 'FF RR E nn DD',
  friends: 'FF RR E nn DD SS',
};

function parse(spec: string, from: number, to: number): Segment[] {
  const out: Segment[] = [];
  for (const part of spec.split(' ')) {
    if (!part) continue;
    const pieces = part.split('+') as Viseme[];
    for (const v of pieces) out.push({ v, w: WEIGHT[v] * (pieces.length > 1 ? 0.7 : 1), from, to });
  }
  return out;
}

/** The visemes of one word (letters and apostrophes, any case), with the letters of each. */
export function spellWord(word: string): Segment[] {
  const w = word.toLowerCase();
  const special = SPECIAL[w];
  if (special) return merge(parse(special, 0, w.length));
  const out: Segment[] = [];
  let i = 0;
  while (i < w.length) {
    const ch = w[i]!;
    const rules = RULES[ch];
    if (!rules) {
      i++;
      continue;
    }
    let matched = false;
    for (const rule of rules) {
      if (!w.startsWith(rule.g, i)) continue;
      const ctx: Ctx = { w, i, j: i + rule.g.length };
      if (rule.when && !rule.when(ctx)) continue;
      out.push(...parse(rule.v, i, ctx.j));
      i = ctx.j;
      matched = true;
      break;
    }
    if (!matched) i++;
  }
  return merge(out);
}

/** A repeated viseme is one longer shape (as in "nk" → kk kk). */
function merge(segs: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (last && last.v === s.v) {
      last.w += s.w * 0.6;
      last.to = Math.max(last.to, s.to);
    } else out.push({ ...s });
  }
  return out;
}

// ─── text → words ──────────────────────────────────────────────────────────────────────────

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** English words for a whole number (digit by digit beyond a trillion). */
export function numberToWords(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '');
  if (clean.length > 12) return [...clean].map((d) => ONES[Number(d)]).join(' ');
  const below1000 = (n: number): string => {
    const parts: string[] = [];
    if (n >= 100) {
      parts.push(`${ONES[Math.floor(n / 100)]} hundred`);
      n %= 100;
    }
    if (n >= 20) {
      parts.push(TENS[Math.floor(n / 10)]! + (n % 10 ? ` ${ONES[n % 10]}` : ''));
    } else if (n > 0 || parts.length === 0) parts.push(ONES[n]!);
    return parts.join(' ');
  };
  let n = Number(clean);
  if (n === 0) return 'zero';
  const scales = ['', ' thousand', ' million', ' billion'];
  const parts: string[] = [];
  for (let s = 0; n > 0; s++) {
    const chunk = n % 1000;
    if (chunk) parts.unshift(below1000(chunk) + scales[s]);
    n = Math.floor(n / 1000);
  }
  return parts.join(' ');
}

const SYMBOL_WORDS: Record<string, string> = { '%': 'percent', '&': 'and', '+': 'plus', '=': 'equals', '@': 'at', '°': 'degrees', '€': 'euros', $: 'dollars', '£': 'pounds' };

/** A word of the text (letters only), or a pause after it. */
export type TextToken = { word: string } | { pause: number };

/** Words and pauses of a text: numbers and a few symbols read out, punctuation → pauses. */
export function tokenize(text: string): TextToken[] {
  const folded = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const out: TextToken[] = [];
  const re = /(\d+(?:[.,]\d+)?)|([A-Za-z]+(?:'[A-Za-z]+)*)|([.!?…]+)|([,;:—–()])|([%&+=@°€$£])/g;
  for (const m of folded.matchAll(re)) {
    if (m[1]) {
      const [whole, frac] = m[1].split(/[.,]/);
      for (const w of numberToWords(whole!).split(' ')) out.push({ word: w });
      if (frac !== undefined) {
        out.push({ word: 'point' });
        for (const d of frac) out.push({ word: ONES[Number(d)]! });
      }
    } else if (m[2]) out.push({ word: m[2] });
    else if (m[3]) out.push({ pause: PAUSE_SENTENCE });
    else if (m[4]) out.push({ pause: PAUSE_CLAUSE });
    else if (m[5]) out.push({ word: SYMBOL_WORDS[m[5]]! });
  }
  // No pause at the very end: the audio's own tail is not speech.
  while (out.length && 'pause' in out[out.length - 1]!) out.pop();
  return out;
}

// ─── timelines ─────────────────────────────────────────────────────────────────────────────

const round = (x: number) => Math.round(x * 10) / 10;

/** Items from weighted visemes laid end to end from `start`, scaled by `scale` ms per unit. */
function layOut(segs: readonly { v: Viseme; w: number }[], start: number, scale: number, out: VisemeItem[]): number {
  let t = start;
  for (const s of segs) {
    const d = s.w * scale;
    pushItem(out, { t: round(t), v: s.v, d: round(d) });
    t += d;
  }
  return t;
}

/** Appends, merging with the previous item when it has the same viseme. */
function pushItem(out: VisemeItem[], item: VisemeItem): void {
  if (item.d <= 0) return;
  const last = out[out.length - 1];
  if (last && last.v === item.v && Math.abs(last.t + last.d - item.t) < 1) {
    last.d = round(item.t + item.d - last.t);
    return;
  }
  out.push(item);
}

/** Closes the mouth at the end of speech. */
function closeAt(out: VisemeItem[], end: number): VisemeItem[] {
  const last = out[out.length - 1];
  if (last?.v !== 'sil') out.push({ t: round(end), v: 'sil', d: 100 });
  return out;
}

/**
 * The timeline of a text spoken over `durationMs` (from the first to the last sample of speech):
 * each word's visemes and each pause get their relative share of the time.
 */
export function textToVisemes(text: string, durationMs: number, startMs = 0): VisemeItem[] {
  const segs: { v: Viseme; w: number }[] = [];
  for (const tok of tokenize(text)) {
    if ('pause' in tok) segs.push({ v: 'sil', w: tok.pause });
    else segs.push(...spellWord(tok.word));
  }
  if (segs.length === 0 || durationMs <= 0) return [];
  const total = segs.reduce((s, x) => s + x.w, 0);
  const out: VisemeItem[] = [];
  const end = layOut(segs, startMs, durationMs / total, out);
  return closeAt(out, end);
}

/** The words of a text with times spread the same way (estimates, for subtitles). */
export function textToWords(text: string, durationMs: number, startMs = 0): WordItem[] {
  const parts: { word: string | null; w: number }[] = [];
  for (const tok of tokenize(text)) {
    if ('pause' in tok) parts.push({ word: null, w: tok.pause });
    else parts.push({ word: tok.word, w: spellWord(tok.word).reduce((s, x) => s + x.w, 0) || 1 });
  }
  const total = parts.reduce((s, x) => s + x.w, 0);
  if (!total || durationMs <= 0) return [];
  const out: WordItem[] = [];
  let t = startMs;
  for (const p of parts) {
    const d = (p.w / total) * durationMs;
    if (p.word) out.push({ t: round(t), d: round(d), w: p.word });
    t += d;
  }
  return out;
}

/** Visemes of a word spread over its time span by their weights. */
function spanVisemes(segs: readonly Segment[], start: number, end: number, out: VisemeItem[]): void {
  const total = segs.reduce((s, x) => s + x.w, 0);
  if (!total || end <= start) return;
  layOut(segs, start, (end - start) / total, out);
}

export interface TimedWord {
  /** The word as the provider spelled it (punctuation around it is ignored). */
  word: string;
  startMs: number;
  endMs: number;
}

/** Words → the letters of each word as visemes within its span; gaps between words → sil. */
export function wordsToVisemes(timed: readonly TimedWord[]): VisemeItem[] {
  const out: VisemeItem[] = [];
  let lastEnd: number | null = null;
  for (const tw of timed) {
    const segs: Segment[] = [];
    for (const tok of tokenize(tw.word)) if ('word' in tok) segs.push(...spellWord(tok.word));
    if (segs.length === 0) continue;
    if (lastEnd !== null && tw.startMs - lastEnd >= MIN_SILENCE_MS) pushItem(out, { t: round(lastEnd), v: 'sil', d: round(tw.startMs - lastEnd) });
    spanVisemes(segs, tw.startMs, Math.max(tw.endMs, tw.startMs + 40), out);
    lastEnd = Math.max(tw.endMs, tw.startMs + 40);
  }
  return lastEnd === null ? out : closeAt(out, lastEnd);
}

/**
 * Character timings (ElevenLabs' alignment: a time span per character of the text) → visemes,
 * each letter group at the time of its own letters. Streams: characters arrive in pieces and a
 * word may be split between two; only complete words are turned into visemes, `end()` the rest.
 */
export class CharacterAligner {
  private chars: { c: string; start: number; end: number }[] = [];
  private lastEnd: number | null = null;

  /** Times in ms; returns the visemes and words that are complete. */
  push(chars: readonly string[], startsMs: readonly number[], endsMs: readonly number[]): { visemes: VisemeItem[]; words: WordItem[] } {
    const n = Math.min(chars.length, startsMs.length, endsMs.length);
    for (let k = 0; k < n; k++) {
      const start = Number(startsMs[k]);
      const end = Number(endsMs[k]);
      if (!Number.isFinite(start) || !Number.isFinite(end)) continue;
      this.chars.push({ c: String(chars[k]), start, end: Math.max(start, end) });
    }
    // Keep a trailing run of word characters: the word may go on in the next piece.
    let cut = this.chars.length;
    while (cut > 0 && isWordChar(this.chars[cut - 1]!.c)) cut--;
    return this.take(cut);
  }

  end(): { visemes: VisemeItem[]; words: WordItem[] } {
    const res = this.take(this.chars.length);
    if (this.lastEnd !== null) closeAt(res.visemes, this.lastEnd);
    return res;
  }

  private take(count: number): { visemes: VisemeItem[]; words: WordItem[] } {
    const chars = this.chars.slice(0, count);
    this.chars = this.chars.slice(count);
    const visemes: VisemeItem[] = [];
    const words: WordItem[] = [];
    let k = 0;
    while (k < chars.length) {
      if (!isWordChar(chars[k]!.c)) {
        k++;
        continue;
      }
      let e = k;
      while (e < chars.length && isWordChar(chars[e]!.c)) e++;
      const run = chars.slice(k, e);
      this.word(run, visemes, words);
      k = e;
    }
    return { visemes, words };
  }

  private word(run: { c: string; start: number; end: number }[], visemes: VisemeItem[], words: WordItem[]): void {
    const text = run.map((r) => r.c).join('');
    const start = run[0]!.start;
    const end = Math.max(...run.map((r) => r.end));
    words.push({ t: round(start), d: round(end - start), w: text });
    if (this.lastEnd !== null && start - this.lastEnd >= MIN_SILENCE_MS) pushItem(visemes, { t: round(this.lastEnd), v: 'sil', d: round(start - this.lastEnd) });
    this.lastEnd = end;
    // Letters only (diacritics folded) keep their index; digits are read as words over the span.
    const letters = run.map((r) => r.c.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase());
    if (letters.every((l) => /^[a-z']$/.test(l))) {
      // Visemes of one letter group share the span of its letters, by weight.
      const segs = spellWord(letters.join(''));
      for (let g = 0; g < segs.length; ) {
        let h = g;
        while (h < segs.length && segs[h]!.from === segs[g]!.from && segs[h]!.to === segs[g]!.to) h++;
        const a = run[segs[g]!.from]!;
        const b = run[Math.max(segs[g]!.from, segs[g]!.to - 1)]!;
        spanVisemes(segs.slice(g, h), a.start, Math.max(b.end, a.start + 10), visemes);
        g = h;
      }
    } else {
      const segs: Segment[] = [];
      for (const tok of tokenize(text)) if ('word' in tok) segs.push(...spellWord(tok.word));
      spanVisemes(segs, start, end, visemes);
    }
  }
}

const isWordChar = (c: string) => /^[\p{L}\p{N}']$/u.test(c);

// ─── phones → visemes ──────────────────────────────────────────────────────────────────────

/** ARPAbet (CMU, as flite's US voices print them) → visemes; diphthongs are two shapes. */
const ARPABET: Record<string, string> = {
  pau: 'sil',
  'h#': 'sil',
  sil: 'sil',
  aa: 'aa',
  ae: 'aa',
  ah: 'aa',
  ao: 'O',
  aw: 'aa+U',
  ax: 'E',
  axr: 'E RR',
  ay: 'aa+I',
  eh: 'E',
  er: 'E RR',
  ey: 'E+I',
  ih: 'I',
  ix: 'I',
  iy: 'I',
  ow: 'O+U',
  oy: 'O+I',
  uh: 'U',
  uw: 'U',
  ux: 'U',
  b: 'PP',
  p: 'PP',
  m: 'PP',
  em: 'PP',
  f: 'FF',
  v: 'FF',
  th: 'TH',
  dh: 'TH',
  t: 'DD',
  d: 'DD',
  dx: 'DD',
  k: 'kk',
  g: 'kk',
  ng: 'kk',
  hh: 'kk',
  ch: 'CH',
  jh: 'CH',
  sh: 'CH',
  zh: 'CH',
  s: 'SS',
  z: 'SS',
  n: 'nn',
  en: 'nn',
  l: 'nn',
  el: 'nn',
  r: 'RR',
  w: 'U',
  y: 'I',
};

/** IPA (Cartesia's phonemes, espeak-style) → visemes, longest symbols first. */
const IPA: [string, string][] = [
  ['aɪ', 'aa+I'],
  ['aʊ', 'aa+U'],
  ['eɪ', 'E+I'],
  ['oʊ', 'O+U'],
  ['əʊ', 'O+U'],
  ['ɔɪ', 'O+I'],
  ['tʃ', 'CH'],
  ['dʒ', 'CH'],
  ['ɚ', 'E RR'],
  ['ɝ', 'E RR'],
  ['p', 'PP'],
  ['b', 'PP'],
  ['m', 'PP'],
  ['ɱ', 'PP'],
  ['f', 'FF'],
  ['v', 'FF'],
  ['θ', 'TH'],
  ['ð', 'TH'],
  ['t', 'DD'],
  ['d', 'DD'],
  ['ɾ', 'DD'],
  ['ʔ', 'DD'],
  ['n', 'nn'],
  ['l', 'nn'],
  ['ɫ', 'nn'],
  ['ɲ', 'nn'],
  ['k', 'kk'],
  ['g', 'kk'],
  ['ɡ', 'kk'],
  ['ŋ', 'kk'],
  ['x', 'kk'],
  ['h', 'kk'],
  ['ʃ', 'CH'],
  ['ʒ', 'CH'],
  ['ç', 'CH'],
  ['s', 'SS'],
  ['z', 'SS'],
  ['ɹ', 'RR'],
  ['r', 'RR'],
  ['ɻ', 'RR'],
  ['ʁ', 'RR'],
  ['w', 'U'],
  ['j', 'I'],
  ['ɑ', 'aa'],
  ['a', 'aa'],
  ['æ', 'aa'],
  ['ʌ', 'aa'],
  ['ɐ', 'aa'],
  ['ə', 'E'],
  ['ɛ', 'E'],
  ['e', 'E'],
  ['ɜ', 'E'],
  ['ɪ', 'I'],
  ['i', 'I'],
  ['ɨ', 'I'],
  ['ɔ', 'O'],
  ['o', 'O'],
  ['ɒ', 'O'],
  ['ø', 'O'],
  ['œ', 'O'],
  ['ʊ', 'U'],
  ['u', 'U'],
  ['y', 'U'],
  ['ʏ', 'U'],
];

export type PhoneAlphabet = 'arpabet' | 'ipa';

/** One phone → its visemes with weights (unknown symbols: none). */
export function phoneToVisemes(phone: string, alphabet: PhoneAlphabet): { v: Viseme; w: number }[] {
  if (alphabet === 'arpabet') {
    const spec = ARPABET[phone.toLowerCase().replace(/[0-9]$/, '')];
    return spec ? parse(spec, 0, 0) : [];
  }
  // Stress, length, syllabicity, ties and other diacritics do not change the mouth shape.
  let p = phone
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[ˈˌːˑ]/g, '');
  const out: { v: Viseme; w: number }[] = [];
  while (p.length) {
    const hit = IPA.find(([sym]) => p.startsWith(sym));
    if (!hit) {
      p = p.slice(1);
      continue;
    }
    out.push(...parse(hit[1], 0, 0));
    p = p.slice(hit[0].length);
  }
  return out;
}

export interface TimedPhone {
  phone: string;
  startMs: number;
  endMs: number;
}

/** Phones with times → visemes, each phone's shapes within its own span. */
export function phonesToVisemes(phones: readonly TimedPhone[], alphabet: PhoneAlphabet): VisemeItem[] {
  const out: VisemeItem[] = [];
  let end = 0;
  for (const ph of phones) {
    const segs = phoneToVisemes(ph.phone, alphabet);
    if (segs.length === 0 || ph.endMs <= ph.startMs) continue;
    spanVisemes(
      segs.map((s) => ({ ...s, from: 0, to: 0 })),
      ph.startMs,
      ph.endMs,
      out,
    );
    end = ph.endMs;
  }
  return out.length ? closeAt(out, end) : out;
}

// ─── provider viseme sets ──────────────────────────────────────────────────────────────────

/** Amazon Polly's viseme speech marks (its viseme column of the phoneme tables) → Oculus. */
const POLLY: Record<string, Viseme> = {
  sil: 'sil',
  p: 'PP',
  B: 'PP',
  f: 'FF',
  T: 'TH',
  t: 'DD',
  k: 'kk',
  S: 'CH',
  J: 'CH',
  s: 'SS',
  l: 'nn',
  r: 'RR',
  a: 'aa',
  '@': 'E',
  e: 'E',
  E: 'E',
  i: 'I',
  o: 'O',
  O: 'O',
  u: 'U',
};

export function pollyViseme(value: string): Viseme | null {
  return POLLY[value] ?? null;
}

/**
 * Azure Speech viseme ids (0–21, the SAPI/Disney set Azure uses for en-US) → Oculus:
 * 0 silence, 1 æ ə ʌ, 2 ɑ, 3 ɔ, 4 ɛ ʊ eɪ, 5 ɝ, 6 j i ɪ, 7 w u, 8 oʊ, 9 aʊ, 10 ɔɪ, 11 aɪ, 12 h,
 * 13 ɹ, 14 l, 15 s z, 16 ʃ tʃ dʒ ʒ, 17 ð θ, 18 f v, 19 d t n, 20 k g ŋ, 21 p b m.
 */
const AZURE: Viseme[] = ['sil', 'aa', 'aa', 'O', 'E', 'E', 'I', 'U', 'O', 'aa', 'O', 'aa', 'kk', 'RR', 'nn', 'SS', 'CH', 'TH', 'FF', 'DD', 'kk', 'PP'];

export function azureViseme(id: number): Viseme | null {
  return Number.isInteger(id) && id >= 0 && id < AZURE.length ? AZURE[id]! : null;
}

/**
 * Point marks (a viseme starting at a time, as Polly and Azure give them) → items whose duration
 * runs to the next mark; the last one to `endMs`.
 */
export function marksToVisemes(marks: readonly { t: number; v: Viseme | null }[], endMs: number): VisemeItem[] {
  const known = marks.filter((m): m is { t: number; v: Viseme } => m.v !== null && Number.isFinite(m.t)).sort((a, b) => a.t - b.t);
  const out: VisemeItem[] = [];
  known.forEach((m, k) => {
    const nextT = known[k + 1]?.t ?? Math.max(endMs, m.t + 80);
    pushItem(out, { t: round(Math.max(0, m.t)), v: m.v, d: round(Math.max(nextT - m.t, 0)) });
  });
  return out;
}

/** Moves a timeline by `deltaMs` (marks measured before the leading silence was cut), dropping what falls before 0. */
export function shiftVisemes(items: readonly VisemeItem[], deltaMs: number): VisemeItem[] {
  const out: VisemeItem[] = [];
  for (const it of items) {
    const t = it.t + deltaMs;
    const end = t + it.d;
    if (end <= 0) continue;
    out.push({ t: round(Math.max(0, t)), v: it.v, d: round(end - Math.max(0, t)) });
  }
  return out;
}

export function shiftWords(items: readonly WordItem[], deltaMs: number): WordItem[] {
  return items.map((w) => ({ ...w, t: round(Math.max(0, w.t + deltaMs)) }));
}
