import type { TAvatarMood } from '@persona/contract';

/**
 * A light mood from the tone of an answer that has no avatar tags: each sentence, once complete,
 * is read against a few English phrases, and a mood is given at its start only when it differs
 * from the mood the answer already shows — an apology looks concerned, good news happy, a
 * question back thoughtful. Conservative on purpose: few words, a low intensity, held for a few
 * seconds only, at most MAX_CUES per answer; a sentence that matches nothing changes nothing.
 * Offsets count characters of the text pushed (the text that is spoken). Pure.
 */
export interface MoodCueItem {
  mood: TAvatarMood;
  intensity: number;
  durationMs: number;
  /** Offset of the sentence's first character in the text pushed so far. */
  at: number;
}

export const MAX_CUES = 3;
/** How long a cued mood is held (ms). */
export const CUE_MS = 5000;

interface Rule {
  mood: TAvatarMood;
  intensity: number;
  test: (sentence: string) => boolean;
}

const words = (re: RegExp) => (s: string) => re.test(s);

/** In order: the first that matches gives the sentence's mood. */
const RULES: Rule[] = [
  { mood: 'sad', intensity: 0.5, test: words(/\b(my condolences|sorry for your loss|passed away|heartbreaking|sad to hear)\b/i) },
  { mood: 'concerned', intensity: 0.45, test: words(/\b(sorry|unfortunately|apologi[sz]e|i'm afraid|i am afraid|regrettably)\b/i) },
  { mood: 'surprised', intensity: 0.5, test: words(/^(wow|whoa|oh my)\b/i) },
  { mood: 'happy', intensity: 0.45, test: words(/\b(great|glad|happy to|wonderful|awesome|congratulations|delighted|excellent|welcome)\b/i) },
  { mood: 'happy', intensity: 0.35, test: (s) => /!\s*$/.test(s) },
  { mood: 'thinking', intensity: 0.3, test: (s) => /\?\s*$/.test(s) },
];

/** The mood of one sentence, or null. */
export function sentenceMood(sentence: string): { mood: TAvatarMood; intensity: number } | null {
  const s = sentence.trim();
  if (!/[\p{L}\p{N}]/u.test(s)) return null;
  for (const rule of RULES) if (rule.test(s)) return { mood: rule.mood, intensity: rule.intensity };
  return null;
}

/** Sentence ends: . ! ? … followed by white space (or the end of the answer). */
const END_RE = /[.!?…]+["'”’)\]]*(?=\s)/g;

export class MoodCue {
  private buf = '';
  /** Offset of `buf[0]` in the text pushed. */
  private base = 0;
  private shown: TAvatarMood = 'neutral';
  private given = 0;

  /** Adds spoken text; returns the cues of the sentences it completed. */
  push(text: string): MoodCueItem[] {
    this.buf += text;
    const out: MoodCueItem[] = [];
    let cut = 0;
    END_RE.lastIndex = 0;
    for (let m = END_RE.exec(this.buf); m; m = END_RE.exec(this.buf)) {
      const end = m.index + m[0].length;
      this.read(this.buf.slice(cut, end), this.base + cut, out);
      cut = end;
    }
    this.buf = this.buf.slice(cut);
    this.base += cut;
    // A sentence that never ends (a pasted blob) is not read, nor kept whole.
    if (this.buf.length > 2000) {
      this.base += this.buf.length;
      this.buf = '';
    }
    return out;
  }

  /** The answer ended: its last sentence is read. */
  end(): MoodCueItem[] {
    const out: MoodCueItem[] = [];
    this.read(this.buf, this.base, out);
    this.base += this.buf.length;
    this.buf = '';
    return out;
  }

  private read(sentence: string, offset: number, out: MoodCueItem[]) {
    if (this.given >= MAX_CUES) return;
    const mood = sentenceMood(sentence);
    if (!mood || mood.mood === this.shown) return;
    const lead = sentence.length - sentence.trimStart().length;
    this.shown = mood.mood;
    this.given++;
    out.push({ ...mood, durationMs: CUE_MS, at: offset + lead });
  }
}
