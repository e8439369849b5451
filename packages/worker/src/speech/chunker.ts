/**
 * Cuts the model's streamed answer into pieces that can be spoken one after the other, as soon
 * as each is complete: the first piece early and short (its audio is what the visitor waits
 * for), later ones longer (fewer requests, better prosody). Cuts fall at sentence ends, at
 * clause marks (, ; : —) once a piece is long enough, and at line ends (list items, headings);
 * a piece that grows past `maxChars` without one is cut at a word. Full stops that do not end a
 * sentence — decimals, abbreviations ("Dr.", "e.g."), initials, list numbers, an ellipsis
 * followed by lower case — are not cuts.
 *
 * What is spoken is cleaned of markdown (emphasis, headings, list and quote markers, tables,
 * code fences and their contents, inline code → its text, links and images → their text),
 * HTML tags, URLs and emoji. The text shown in the chat is the model's, unchanged: the session
 * sends the deltas to the page itself. Pure, no timers.
 */

/** `cut`: the text was cut where a pause or a change of speed goes (`cutHere`). */
export type PieceBoundary = 'sentence' | 'clause' | 'line' | 'forced' | 'end' | 'cut';

export interface SpeechPiece {
  /** 0, 1, … within the turn. */
  index: number;
  /** What the text-to-speech says. */
  text: string;
  /** What ended the piece: decides the pause kept after its audio. */
  boundary: PieceBoundary;
  /** Where the piece's text begins and ends in the text pushed (characters, as pushed). */
  rawStart: number;
  rawEnd: number;
}

export interface ChunkerOptions {
  /** The first piece is cut at a clause mark once it has this many characters. */
  firstClauseChars?: number;
  /** …and at a word once it has this many without any mark (latency over prosody). */
  firstMaxChars?: number;
  /** Later pieces: a sentence shorter than this waits for the next one. */
  sentenceChars?: number;
  /** Later pieces: cut at a clause mark once this long. */
  clauseChars?: number;
  /** Any piece: cut at the last clause mark or word once this long. */
  maxChars?: number;
}

const DEFAULTS: Required<ChunkerOptions> = { firstClauseChars: 8, firstMaxChars: 60, sentenceChars: 16, clauseChars: 90, maxChars: 240 };

/** Raw text without any whitespace longer than this (a pasted blob) is cut anyway. */
const MAX_RAW_CHARS = 4000;

/** Never the end of a sentence: titles, and abbreviations that introduce what follows. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'gen', 'rev', 'hon', 'capt', 'sgt', 'lt', 'col', 'gov', 'pres', 'e.g', 'i.e', 'vs', 'cf', 'viz', 'approx', 'ca', 'al', 'dept']);
/** Not the end of a sentence when a number follows: "No. 5", "p. 12", "Fig. 3". */
const BEFORE_NUMBER = new Set(['no', 'nos', 'vol', 'ch', 'sec', 'p', 'pp', 'fig', 'art', 'nr']);
/** The end of a sentence only when a capital letter follows. */
const MAYBE_END = new Set(['etc', 'inc', 'ltd', 'co', 'corp', 'a.m', 'p.m', 'u.s', 'u.k', 'u.s.a', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);

interface CleanState {
  inFence: boolean;
  atLineStart: boolean;
}

interface Candidate {
  /** Raw index after the mark (and after the whitespace that follows it). */
  end: number;
  kind: 'sentence' | 'clause' | 'line';
}

export class SpeechChunker {
  private readonly o: Required<ChunkerOptions>;
  private buf = '';
  private state: CleanState = { inFence: false, atLineStart: true };
  private index = 0;
  /** Characters of the pushed text consumed into pieces (or dropped as wordless). */
  private consumed = 0;

  constructor(options: ChunkerOptions = {}) {
    this.o = { ...DEFAULTS, ...options };
  }

  /** Adds streamed text; returns the pieces it completed. */
  push(delta: string): SpeechPiece[] {
    this.buf += delta;
    return this.cut(false);
  }

  /** The answer ended: whatever is left is the last piece. */
  flush(): SpeechPiece[] {
    return this.cut(true);
  }

  /**
   * A cut where the text pushed so far ends (a pause or a change of speed goes there): what is
   * held becomes pieces, the last one ending here; the text pushed next starts a new piece.
   */
  cutHere(): SpeechPiece[] {
    return this.cut(true, 'cut');
  }

  private cut(final: boolean, last: PieceBoundary = 'end'): SpeechPiece[] {
    const out: SpeechPiece[] = [];
    for (;;) {
      const next = this.findCut(final);
      if (!next) break;
      const raw = this.buf.slice(0, next.end);
      this.buf = this.buf.slice(next.end);
      const rawStart = this.consumed;
      this.consumed += raw.length;
      const text = cleanForSpeech(raw, this.state, next.boundary);
      if (hasWords(text)) out.push({ index: this.index++, text, boundary: next.boundary, rawStart, rawEnd: this.consumed });
      if (!this.buf) break;
    }
    if (final && this.buf) {
      const text = cleanForSpeech(this.buf, this.state, last);
      const rawStart = this.consumed;
      this.consumed += this.buf.length;
      this.buf = '';
      if (hasWords(text)) out.push({ index: this.index++, text, boundary: last, rawStart, rawEnd: this.consumed });
    }
    return out;
  }

  private speakableLength(end: number): number {
    return cleanForSpeech(this.buf.slice(0, end), { ...this.state }, 'clause').length;
  }

  /** The next place to cut, by the policy for this piece, or null to wait for more text. */
  private findCut(final: boolean): { end: number; boundary: PieceBoundary } | null {
    const first = this.index === 0;
    let lastClause: number | null = null;
    let lastSpace: number | null = null;
    for (const c of scan(this.buf, final, this.state.atLineStart)) {
      if ('undecided' in c) break;
      if ('space' in c) {
        lastSpace = c.space;
        const limit = first ? this.o.firstMaxChars : this.o.maxChars;
        // Cleaning only removes characters (but for a few per line): skip the measure while short.
        if (c.space >= limit && this.speakableLength(c.space) >= limit) {
          // Too long without a mark that allows a cut: the last clause mark, else this word.
          return lastClause !== null ? { end: lastClause, boundary: 'clause' } : { end: c.space, boundary: 'forced' };
        }
        continue;
      }
      // A line end always cuts: list items and headings keep their pause, and lines that say
      // nothing (code fences and their contents) are consumed as they come.
      if (c.kind === 'line') return { end: c.end, boundary: 'line' };
      if (c.kind === 'clause' && c.end < (first ? this.o.firstClauseChars : this.o.clauseChars)) {
        lastClause = c.end;
        continue;
      }
      const len = this.speakableLength(c.end);
      if (c.kind === 'sentence') {
        if (len > 0 && (first || len >= this.o.sentenceChars)) return { end: c.end, boundary: 'sentence' };
        lastClause = c.end;
        continue;
      }
      // clause
      if (len >= (first ? this.o.firstClauseChars : this.o.clauseChars)) return { end: c.end, boundary: 'clause' };
      lastClause = c.end;
    }
    if (!final && this.buf.length > MAX_RAW_CHARS) return { end: lastSpace ?? this.buf.length, boundary: 'forced' };
    return null;
  }
}

type ScanItem = Candidate | { space: number } | { undecided: true };

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0';
const CLOSERS = '"\'”’»)]*_';

/** Cut candidates in order; stops with `undecided` where the text so far cannot tell. */
function* scan(buf: string, final: boolean, atLineStart: boolean): Generator<ScanItem> {
  let lineStart = atLineStart ? 0 : -1;
  for (let i = 0; i < buf.length; i++) {
    const ch = buf[i]!;
    if (ch === '\n') {
      yield { end: skipSpaces(buf, i + 1), kind: 'line' };
      lineStart = i + 1;
      continue;
    }
    if (isSpace(ch)) {
      if (i > 0 && !isSpace(buf[i - 1])) yield { space: i };
      continue;
    }
    if (ch === '.' || ch === '!' || ch === '?' || ch === '…') {
      let j = i + 1;
      while (j < buf.length && (buf[j] === '.' || buf[j] === '!' || buf[j] === '?' || buf[j] === '…')) j++;
      while (j < buf.length && CLOSERS.includes(buf[j]!)) j++;
      if (j >= buf.length) {
        if (final) yield { end: j, kind: 'sentence' };
        else yield { undecided: true };
        return;
      }
      if (!isSpace(buf[j])) {
        i = j - 1;
        continue;
      }
      const marks = buf.slice(i, j).replace(/[^.!?…]/g, '');
      const after = skipSpaces(buf, j);
      const nextChar = buf[after];
      const kind = sentenceEnd(buf, i, marks, nextChar, lineStart);
      if (kind === 'undecided') {
        if (final) yield { end: after, kind: 'sentence' };
        else yield { undecided: true };
        return;
      }
      if (kind === 'sentence') yield { end: after, kind: 'sentence' };
      i = j - 1;
      continue;
    }
    if ((ch === ',' || ch === ';' || ch === ':') && isSpace(buf[i + 1])) {
      yield { end: skipSpaces(buf, i + 1, false), kind: 'clause' };
      continue;
    }
    if ((ch === '—' || ch === '–') && (isSpace(buf[i + 1]) || isSpace(buf[i - 1]))) {
      yield { end: skipSpaces(buf, i + 1, false), kind: 'clause' };
    }
  }
}

/** Index of the first non-space at or after `from` (newlines included unless told). */
function skipSpaces(buf: string, from: number, newlines = true): number {
  let k = from;
  while (k < buf.length && isSpace(buf[k]) && (newlines || buf[k] !== '\n')) k++;
  return k;
}

/** Does the mark at `i` end a sentence? `undecided` when it depends on text not yet here. */
function sentenceEnd(buf: string, i: number, marks: string, nextChar: string | undefined, lineStart: number): 'sentence' | 'no' | 'undecided' {
  if (marks.includes('!') || marks.includes('?')) return 'sentence';
  const ellipsis = marks.length > 1 || marks.includes('…');
  // The word before the mark.
  let k = i;
  while (k > 0 && /[\p{L}\p{N}.']/u.test(buf[k - 1]!)) k--;
  const word = buf.slice(k, i);
  if (ellipsis) {
    if (nextChar === undefined) return 'undecided';
    return /\p{Ll}/u.test(nextChar) ? 'no' : 'sentence';
  }
  // "1. " / "12) " at the start of a line is a list number.
  if (/^\d+$/.test(word) && lineStart >= 0 && buf.slice(lineStart, k).trim() === '') return 'no';
  const lower = word.toLowerCase();
  if (TITLES.has(lower)) return 'no';
  if (BEFORE_NUMBER.has(lower)) {
    if (nextChar === undefined) return 'undecided';
    if (/\d/.test(nextChar)) return 'no';
  }
  // Initials: "J. R. R. Tolkien", "U.S."
  if (/^\p{Lu}$/u.test(word) || /^(\p{L}\.)+\p{L}$/u.test(word)) {
    if (MAYBE_END.has(lower)) {
      if (nextChar === undefined) return 'undecided';
      return /\p{Lu}/u.test(nextChar) ? 'sentence' : 'no';
    }
    return 'no';
  }
  if (MAYBE_END.has(lower)) {
    if (nextChar === undefined) return 'undecided';
    return /\p{Lu}/u.test(nextChar) ? 'sentence' : 'no';
  }
  return 'sentence';
}

const hasWords = (text: string) => /[\p{L}\p{N}]/u.test(text);

// ─── cleaning ──────────────────────────────────────────────────────────────────────────────

const EMOJI = /[0-9#*]\uFE0F?\u20E3|\p{Extended_Pictographic}(\uFE0F|\uFE0E)?(\p{Emoji_Modifier})?(\u200D\p{Extended_Pictographic}(\uFE0F|\uFE0E)?(\p{Emoji_Modifier})?)*|[\u{1F1E6}-\u{1F1FF}]|[\u{E0020}-\u{E007F}]|\p{Emoji_Modifier}|[\uFE0E\uFE0F\u200D]/gu;
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>)\]]+/gi;

/**
 * The spoken form of a stretch of markdown. `state` carries what a line start and an open code
 * fence mean across pieces; it is updated.
 */
export function cleanForSpeech(raw: string, state: CleanState, boundary: PieceBoundary): string {
  const lines = raw.split('\n');
  const spoken: string[] = [];
  lines.forEach((line, k) => {
    const atStart = k > 0 || state.atLineStart;
    let text = line;
    if (atStart) {
      const trimmed = text.trim();
      if (/^(```|~~~)/.test(trimmed)) {
        state.inFence = !state.inFence;
        return;
      }
      if (state.inFence) return;
      if (/^([-*_]\s*){3,}$/.test(trimmed) || /^=+$/.test(trimmed)) return;
      if (/^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/.test(trimmed)) return;
      text = text
        .replace(/^\s{0,3}#{1,6}\s+/, '')
        .replace(/\s+#+\s*$/, '')
        .replace(/^\s*(>\s*)+/, '')
        .replace(/^\s*([-*+•]|\d{1,3}[.)])\s+(\[[ xX]\]\s+)?/, '');
      if (/^\s*\|.*\|\s*$/.test(text)) {
        text = text
          .trim()
          .replace(/^\||\|$/g, '')
          .split('|')
          .map((c) => c.trim())
          .filter(Boolean)
          .join(', ');
      }
    } else if (state.inFence) return;
    const cleaned = cleanInline(text);
    // A line that ends without punctuation (heading, list item) still ends with a pause.
    const isLastLine = k === lines.length - 1;
    if (cleaned && !isLastLine) spoken.push(/[.!?…,;:]$/.test(cleaned) ? cleaned : `${cleaned}.`);
    else if (cleaned) spoken.push(cleaned);
  });
  state.atLineStart = raw.endsWith('\n') || (raw.length > 0 && /\n[ \t]*$/.test(raw)) || (raw.length === 0 && state.atLineStart);
  let text = spoken.join(' ');
  text = text
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?…])/g, '$1')
    .replace(/([,;:])(?=[,;:.!?])/g, '')
    .trim();
  if (boundary === 'line' && text && !/[.!?…,;:]$/.test(text)) text += '.';
  return text;
}

function cleanInline(text: string): string {
  return (
    text
      // images first, then links → their text; reference-style links too
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
      // pieces of a link cut in two: "](url)" and a stray bracket
      .replace(/\]\([^)]*\)?/g, '')
      .replace(/\[\^[^\]]*\]/g, '')
      .replace(URL_RE, '')
      .replace(/<\/?[a-zA-Z][^>]*>/g, '')
      .replace(/`+([^`]*)`+/g, '$1')
      .replace(/`/g, '')
      .replace(/\*{1,3}|~~/g, '')
      .replace(/(^|[^\p{L}\p{N}_])_{1,3}|_{1,3}(?=[^\p{L}\p{N}_]|$)/gu, '$1')
      .replace(EMOJI, '')
      .replace(/[[\]<>]/g, '')
      .replace(/\(\s*\)/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
