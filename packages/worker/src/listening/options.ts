import { LiveTurnDefaults, type TLiveTurns } from '@persona/contract';

/**
 * Turn-taking options of one session: the avatar's, as the portal read them from its stored
 * `vad_options` and `interrupt_handling` (contract TLiveTurns: ms, defaults applied), and this
 * worker's own timings.
 */
export interface TurnOptions extends TLiveTurns {
  /** A pause with no words after it: the avatar resumes this long after the speech ended. */
  falseInterruptionMs: number;
  /** Speech starting this soon after the avatar's utterance starts is taken for its own echo. */
  echoGuardMs: number;
  /** Batch STT: transcribe what was said so far after this much silence, before the end of speech. */
  earlyTranscriptMs: number;
}

export const TURN_DEFAULTS: TurnOptions = {
  ...LiveTurnDefaults,
  falseInterruptionMs: 2000,
  echoGuardMs: 300,
  earlyTranscriptMs: 200,
};

export function turnOptionsFrom(turns: TLiveTurns, overrides: Partial<TurnOptions> = {}): TurnOptions {
  return { ...TURN_DEFAULTS, ...turns, ...overrides };
}

/** Words that leave a sentence hanging: the visitor is probably not done. */
const HANGING = new Set(['and', 'so', 'but', 'or', 'because', 'um', 'umm', 'uh', 'uhm', 'er', 'erm', 'hmm']);

/** The text rule standing in for LiveKit's turn model: true when the turn looks unfinished. */
export function looksUnfinished(text: string): boolean {
  const t = text.trim();
  if (!t) return false;
  if (/[,;:\-–—]$|\.\.\.$|…$/.test(t)) return true;
  if (/[.!?]$/.test(t)) return false;
  const last = t.toLowerCase().match(/([a-z']+)\W*$/)?.[1];
  return last !== undefined && HANGING.has(last);
}

export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/**
 * What a listener says to show they follow, not to take the turn ("mm-hm", "I see", "oh no", a
 * laugh): said over the avatar, it goes on. Only short runs of these words count (four at most),
 * and at least one must be a backchannel of its own (not just "I" or "it"). Affirmations ("yes",
 * "okay", "sure") count only when the avatar asked nothing: after a question they are the answer.
 * English only (the listener applies these rules to English recognition).
 */
const CONTINUERS = new Set(['mm', 'mmm', 'mhm', 'mmhm', 'hm', 'hmm', 'uh', 'huh', 'uhhuh', 'um', 'wow', 'oh', 'ah', 'aha', 'ha', 'haha', 'hehe', 'cool', 'nice', 'great', 'interesting', 'exactly', 'true', 'indeed', 'totally', 'right', 'gotcha']);
const AFFIRMATIONS = new Set(['yes', 'yeah', 'yea', 'yep', 'yup', 'ok', 'okay', 'sure', 'alright', 'absolutely']);
const BACKCHANNEL_FILL = new Set(['i', 'see', 'got', 'it', 'that', "that's", 'makes', 'sense', 'so', 'of', 'course']);
const BACKCHANNEL_PHRASE = /^(?:i see|got it|(?:that )?makes sense|of course|oh no|no problem|no worries|fair enough)$/;
const splitHyphens = (text: string) => wordsOf(text.replace(/(\p{L})-(\p{L})/gu, '$1$2'));

export function isBackchannel(text: string, opts: { affirmations: boolean } = { affirmations: true }): boolean {
  const words = splitHyphens(text);
  if (words.length === 0 || words.length > 4) return false;
  if (BACKCHANNEL_PHRASE.test(words.join(' '))) return true;
  const own = (w: string) => CONTINUERS.has(w) || (opts.affirmations && AFFIRMATIONS.has(w));
  return words.every((w) => own(w) || BACKCHANNEL_FILL.has(w)) && words.some(own);
}

/**
 * The visitor asks the avatar to stop. "Wait", "stop", "hold on", "excuse me"… at the start stop
 * it as soon as they are heard; "no", "sorry", "actually" only as the whole utterance (a final
 * transcript: "no" may yet be "no problem") or before a correction ("no, I meant…").
 */
const STOP_START = /^(?:(?:okay|ok|um|uh|er)\s+)?(?:wait|stop|hold on|hang on|hold it|pause|excuse me|one (?:second|moment|sec)|just a (?:second|moment|sec|minute)|shut up|be quiet)\b/;
const STOP_CORRECTION = /^(?:no|nope|sorry|actually)\s+(?:i meant|i mean|that's not|that is not|not that|i said|i asked|i didn't|you misunderstood)\b/;
const STOP_ALONE = /^(?:no|nope|sorry|actually)(?:\s+(?:no|nope|sorry))*$/;
export function isStopRequest(text: string, final = true): boolean {
  const t = wordsOf(text).join(' ');
  return STOP_START.test(t) || STOP_CORRECTION.test(t) || (final && STOP_ALONE.test(t));
}

/** Most of the transcribed words are what the avatar is saying: its own voice through the speakers. */
export function looksLikeEcho(transcript: string, avatarText: string): boolean {
  const heard = wordsOf(transcript);
  if (heard.length === 0 || !avatarText) return false;
  const said = new Set(wordsOf(avatarText));
  const found = heard.filter((w) => said.has(w)).length;
  return found / heard.length >= 0.8;
}
