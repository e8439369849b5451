import v8 from 'node:v8';
import { PrivacyLimits, PrivacyMessages, type TLiveHistoryEntry, type TRedactionSettings } from '@persona/contract';

/*
 * Redaction at rest (ADR 097): e-mail addresses, phone numbers, card numbers (Luhn), IBANs
 * (mod 97) and an avatar's own patterns are replaced by placeholders before a conversation's text
 * is stored or sent out. Every expression here — ours and the customer's — runs on V8's linear-time
 * engine (the `l` flag): no input can make a match take more than time linear in its length, so a
 * hostile pattern or transcript cannot stall the portal (ReDoS). The engine refuses what it cannot
 * run in linear time (backreferences, lookarounds, the `i` and `u` flags, counted repeats over 16);
 * such a pattern is refused when it is saved.
 */
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/** Compiles `source` for the linear-time engine; throws (SyntaxError) when it cannot run there. */
function linear(source: string): RegExp {
  // ESLint knows only the standard flags; `l` is V8's (enabled above).
  // eslint-disable-next-line no-invalid-regexp
  return new RegExp(source, 'gl');
}

// Fail fast at start when this Node has lost the engine: redaction must never fall back to backtracking.
linear('a');

export const Placeholders = { email: '[email]', phone: '[phone]', card: '[card]', iban: '[iban]', custom: '[redacted]' } as const;

const EMAIL = linear('[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z][A-Za-z]+');
/** Two capitals, two check digits, then 11–30 letters or digits, in groups separated by single spaces. */
const IBAN = linear('\\b[A-Z][A-Z][0-9][0-9](?: ?[A-Z0-9])+\\b');
/** 13–19 digits with single spaces or dashes between them. */
const CARD = linear('\\b[0-9](?:[ -]?[0-9])+\\b');
/** A leading + (or 00), digits, and the separators numbers are written with. */
const PHONE = linear('(?:\\+|\\(|\\b)[0-9][0-9 ().\\/-]*[0-9]\\b');

/** Luhn's check digit (ISO/IEC 7812). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: the country and check digits moved to the end, letters as 10–35, mod 97 = 1. */
export function ibanValid(compact: string): boolean {
  if (compact.length < 15 || compact.length > 34 || !/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(compact)) return false;
  const moved = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) rest = (rest * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

/** The longest leading run of the space-separated groups that is a valid IBAN ("DE89 3704 … 00 THANKS"). */
function ibanPrefix(candidate: string): string | null {
  // Only the groups within an IBAN's 34 characters are tried: a hostile run of groups costs no more.
  const groups: string[] = [];
  let length = 0;
  for (const g of candidate.split(' ', 35)) {
    length += g.length;
    if (length > 34) break;
    groups.push(g);
  }
  for (let n = groups.length; n >= 1; n--) {
    const text = groups.slice(0, n).join(' ');
    if (ibanValid(text.replaceAll(' ', ''))) return text;
  }
  return null;
}

const DATE_LIKE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})$/;

/** A phone number: 8–15 digits after + or 00, else 9–15 digits that do not read as a date. */
function isPhone(candidate: string): boolean {
  const digits = candidate.replace(/[^0-9]/g, '');
  if (digits.length > 15) return false;
  if (candidate.startsWith('+') || candidate.startsWith('00')) return digits.length >= 8;
  if (DATE_LIKE.test(candidate.trim())) return false;
  // Two separators in a row (other than a bracket and a space) are prose, not a number.
  if (/[ ./-]{2}/.test(candidate)) return false;
  return digits.length >= 9;
}

export type Redactor = (text: string) => string;

/** A customer's pattern, checked as it will run: a message when it cannot be used. */
export function checkPattern(source: string): string | null {
  let re: RegExp;
  try {
    re = linear(source);
  } catch {
    return PrivacyMessages.patternNotLinear;
  }
  re.lastIndex = 0;
  // A pattern that matches the empty string would put placeholders between every character.
  if (re.test('')) return PrivacyMessages.patternMatchesEmpty;
  return null;
}

/*
 * The linear-time engine costs tens of microseconds a call and ~0.1 µs a character, and the worker
 * sends a session's whole history at every turn: a text already redacted with the same settings is
 * answered from memory (least recently used first out, at most MEMO_MAX_CHARS characters of texts
 * shared by every redactor), so a history write redacts its new entries only.
 */
const MEMO_MAX_CHARS = 4_000_000;
const MEMO_TEXT_MAX = 8_000;
const memo = new Map<string, string>();
let memoChars = 0;
let redactorIds = 0;

function remembered(key: string): string | undefined {
  const hit = memo.get(key);
  if (hit !== undefined) {
    memo.delete(key);
    memo.set(key, hit);
  }
  return hit;
}

function remember(key: string, value: string): void {
  const size = key.length + value.length;
  while (memo.size > 0 && memoChars + size > MEMO_MAX_CHARS) {
    const oldest = memo.keys().next().value!;
    memoChars -= oldest.length + memo.get(oldest)!.length;
    memo.delete(oldest);
  }
  memo.set(key, value);
  memoChars += size;
}

const DIGIT = /[0-9]/;
const IBAN_START = /[A-Z]{2}[0-9]{2}/;

/** The redactor of an avatar's settings, or null when nothing is to be redacted. */
export function createRedactor(settings: TRedactionSettings): Redactor | null {
  const custom = settings.patterns.slice(0, PrivacyLimits.patternsMax).flatMap((source) => {
    if (source.length > PrivacyLimits.patternMaxLength || checkPattern(source)) return [];
    return [linear(source)];
  });
  if (!settings.email && !settings.phone && !settings.card && !settings.iban && custom.length === 0) return null;
  const id = `${++redactorIds}\u0000`;

  function redact(text: string): string {
    let out = text;
    // Cheap native checks first: most lines of a conversation have no @ and no digit.
    if (settings.email && out.includes('@')) out = out.replace(EMAIL, Placeholders.email);
    const hasDigit = DIGIT.test(out);
    if (settings.iban && hasDigit && IBAN_START.test(out)) {
      out = out.replace(IBAN, (m) => {
        const iban = ibanPrefix(m);
        return iban ? Placeholders.iban + m.slice(iban.length) : m;
      });
    }
    if (settings.card && hasDigit) {
      out = out.replace(CARD, (m) => {
        const digits = m.replace(/[ -]/g, '');
        return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? Placeholders.card : m;
      });
    }
    if (settings.phone && hasDigit) out = out.replace(PHONE, (m) => (isPhone(m) ? Placeholders.phone : m));
    for (const re of custom) out = out.replace(re, Placeholders.custom);
    return out;
  }

  return (text: string) => {
    if (text.length > MEMO_TEXT_MAX) return redact(text);
    const key = id + text;
    const hit = remembered(key);
    if (hit !== undefined) return hit;
    const out = redact(text);
    remember(key, out);
    return out;
  };
}

/**
 * One history entry with every text it carries redacted (ADR 097, 102): the turn's text and its
 * detail — the recogniser's corrections, the functions' arguments and results, the passages' titles
 * and snippets; a provider and its code are the worker's words but pass too (nothing is stored unread).
 */
export function redactEntry(h: TLiveHistoryEntry, redact: (s: string) => string): TLiveHistoryEntry {
  const d = h.detail;
  if (!d) return { ...h, text: redact(h.text) };
  return {
    ...h,
    text: redact(h.text),
    detail: {
      ...d,
      ...(d.interims ? { interims: d.interims.map(redact) } : {}),
      ...(d.calls ? { calls: d.calls.map((c) => ({ ...c, name: redact(c.name), arguments: redact(c.arguments), result: c.result === null ? null : redact(c.result) })) } : {}),
      ...(d.passages ? { passages: d.passages.map((p) => ({ title: redact(p.title), snippet: redact(p.snippet) })) } : {}),
      ...(d.errors ? { errors: d.errors.map((e) => ({ ...e, provider: redact(e.provider), code: redact(e.code) })) } : {}),
    },
  };
}
