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
  /**
   * How the commit delay is chosen with English recognition: `rules` (endOfTurn: unfinished text
   * waits up to max_endpointing_delay, complete text commits sooner than min; ADR 095) or
   * `hanging-words` (looksUnfinished: max or min, the rule before issue 29; the bench's "before").
   */
  endOfTurn: 'rules' | 'hanging-words';
  /** The shortest commit delay of a complete-looking turn (ms; COMPLETE_FLOOR_MS, chosen on the turns bench). */
  completeFloorMs: number;
  /**
   * Speech counts as the visitor's only this many dB over the room's level (room-gate.ts: babble
   * at the next tables is speech to the VAD); 0 turns the gate off. Open in a quiet room.
   */
  roomGateDb: number;
  /**
   * Speech over the avatar with a batch recogniser (ADR 104): `early` — a short burst that stops
   * (under `shortBurstMs` of voice, not a shout) resumes the avatar at once, the recogniser's
   * verdict may still stop it; `recogniser` — held until the recogniser has answered (the rule
   * before; the bench's "before"). A worker option, not stored.
   */
  overlapDecision: 'early' | 'recogniser';
  /** The longest burst of voice over the avatar resumed before the recogniser's verdict (ms of speech). */
  shortBurstMs: number;
  /** With the early decision: speech over the avatar holds its playback only once it has lasted this long (ms; 0: at once). */
  holdAfterMs: number;
  /**
   * With the early decision: the pause after a short burst that ends it (ms of silence; the
   * recogniser is asked at HELD_TRANSCRIPT_MS, so a longer wait lets a fast one decide first).
   */
  resumeAfterMs: number;
  /**
   * With the early decision: a recogniser whose last answer came within this pause (asked at
   * HELD_TRANSCRIPT_MS + its answer time) is waited for up to it — its verdict, a "wait" included,
   * comes before the avatar is resumed; a slower one is not (`resumeAfterMs`). 0: never waited for.
   */
  verdictBudgetMs: number;
}

export const TURN_DEFAULTS: TurnOptions = {
  ...LiveTurnDefaults,
  falseInterruptionMs: 2000,
  echoGuardMs: 300,
  earlyTranscriptMs: 200,
  endOfTurn: 'rules',
  completeFloorMs: 250,
  roomGateDb: 12,
  overlapDecision: 'early',
  shortBurstMs: 450,
  holdAfterMs: 0,
  resumeAfterMs: 96,
  verdictBudgetMs: 224,
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
/** Phrases that stop the avatar at the start of what is said (also heard by their sound, ADR 109). */
export const STOP_PHRASES = ['wait', 'stop', 'hold on', 'hang on', 'hold it', 'pause', 'excuse me', 'one second', 'one moment', 'one sec', 'just a second', 'just a moment', 'just a sec', 'just a minute', 'shut up', 'be quiet'] as const;
/** Words that may come before such a phrase ("okay wait", "um hold on"). */
export const STOP_LEADERS = ['okay', 'ok', 'um', 'uh', 'er'] as const;
const STOP_START = new RegExp(`^(?:(?:${STOP_LEADERS.join('|')})\\s+)?(?:${STOP_PHRASES.join('|')})\\b`);
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

// ─── end of turn from what was said (issue 29, ADR 095) ───

/**
 * How finished the visitor's words look, from their text alone (English): `unfinished` (a trailing
 * "and", "um", "the", "to", "my name is"… or a comma-like pause mark), `complete` (a question that
 * is syntactically whole, a short answer, a punctuated or full sentence) or `neutral` (no sign
 * either way). `score` grades it: −2 unfinished, 0 neutral, 1 a full declarative sentence, 2 a
 * question, a short answer or a sentence the recogniser ended with . ! ?
 */
export type EndOfTurn = { kind: 'unfinished' | 'neutral' | 'complete'; score: number; why: string };

/** Conjunctions and fillers after which a sentence is not over. */
const CONJUNCTIONS = new Set(['and', 'or', 'but', 'so', 'because', 'cause', 'cuz', 'if', 'when', 'while', 'although', 'though', 'unless', 'until', 'since', 'than', 'whether', 'whereas', 'plus', 'nor', 'as']);
/** A subject with no verb yet ("and then I", "I think it's"). */
const BARE_SUBJECTS = new Set(['i', 'we', 'they', 'he', 'she', "i'm", 'im', "we're", "they're", "he's", "she's", "it's", "there's", "that's", "i've", "i'd", "i'll", "we'll", "you're"]);
/** Words before the sentence proper, left out when its shape is read ("so what time…", "um can you…"). */
const LEADERS = new Set(['and', 'so', 'but', 'um', 'umm', 'uh', 'er', 'erm', 'well', 'oh', 'okay', 'ok', 'hi', 'hello', 'hey', 'sorry', 'also', 'then', 'now', 'right', 'yes', 'yeah', 'no', 'alright', 'please', 'goodbye', 'bye', 'thanks', 'good', 'morning', 'afternoon', 'evening']);
const FILLERS = new Set(['um', 'umm', 'uh', 'uhm', 'uhh', 'er', 'erm', 'hmm', 'ehm', 'ah']);
/** Articles and possessives: a noun must follow. */
const DETERMINERS = new Set(['the', 'a', 'an', 'my', 'your', 'our', 'their', 'its', 'every', 'each', 'another', 'some', 'any', 'no', 'this', 'these', 'those']);
const PREPOSITIONS = new Set(['to', 'with', 'for', 'of', 'in', 'on', 'at', 'from', 'about', 'into', 'onto', 'by', 'like', 'through', 'over', 'under', 'between', 'after', 'before', 'without', 'towards', 'toward', 'near', 'around', 'than', 'per', 'via', 'during']);
/** A particle after its verb or its object ends a phrasal verb ("hold on", "sign up", "turn it off"), not a preposition. */
const PARTICLES = new Set(['on', 'in', 'up', 'off', 'out', 'over', 'down', 'back', 'away', 'around', 'through', 'by', 'along']);
const PHRASAL_HEADS = new Set(['hold', 'hang', 'go', 'goes', 'going', 'come', 'comes', 'coming', 'carry', 'move', 'log', 'logged', 'sign', 'signed', 'turn', 'switch', 'put', 'get', 'got', 'give', 'gave', 'check', 'checked', 'find', 'figure', 'sort', 'work', 'set', 'sit', 'stand', 'shut', 'calm', 'slow', 'hurry', 'speak', 'keep', 'pick', 'show', 'fill', 'break', 'broke', 'run', 'ran', 'back', 'cut', 'drop', 'log', 'look', 'looking', 'think', 'thinking', 'bring', 'call', 'called', 'phone', 'read', 'write', 'wrote', 'print', 'clean', 'wake', 'grow', 'give', 'send', 'sent', 'take', 'took', 'come', 'came', 'pass', 'passed', 'cheer', 'sold', 'sell', 'walk', 'drive', 'fly', 'stop', 'stay', 'hand', 'turned', 'switched', 'worked', 'closed', 'close', 'open', 'opened', 'plug', 'plugged', 'zoom', 'scroll', 'back']);
const OBJECTS = new Set(['it', 'them', 'that', 'this', 'me', 'him', 'her', 'us', 'everything', 'something', 'one']);
/** Verbs that want what follows them ("I want", "can you give"). */
const NEEDS_OBJECT = new Set(['want', 'need', 'needs', 'wanted', 'needed', 'give', 'get', 'bring', 'send', 'buy', 'order', 'book', 'make', 'take', 'put', 'find', 'tell', 'show', 'trying', 'looking', 'wondering', 'mean', 'meant', 'think', 'guess', 'hope', 'believe']);
const COPULAS = new Set(['is', 'are', 'was', 'were', 'am', "'s", 'be', 'been']);
const MODALS_AUX = new Set(['can', 'could', 'would', 'will', 'should', 'shall', 'may', 'might', 'must', 'do', 'does', 'did', 'have', 'has', 'had', 'is', 'are', 'was', 'were', 'am']);
/** Subjects after which a bare copula or auxiliary ends a sentence ("yes it is", "I think I can"). */
const PRONOUNS = new Set(['i', 'you', 'he', 'she', 'it', 'we', 'they', 'that', 'there', 'this', 'what', 'who', 'so', 'not']);
const WH = new Set(['what', "what's", 'whats', 'where', "where's", 'wheres', 'when', "when's", 'who', "who's", 'whos', 'whom', 'why', "why's", 'how', "how's", 'hows', 'which', 'whose']);
const WH_CONTRACTED = new Set(["what's", 'whats', "where's", 'wheres', "when's", "who's", 'whos', "why's", "how's", 'hows']);
const INVERTED = new Set(['do', 'does', 'did', 'is', 'are', 'was', 'were', 'can', 'could', 'would', 'will', 'should', 'have', 'has', 'may', 'shall', 'am', "isn't", "aren't", "don't", "doesn't", "didn't", "can't", "won't", "couldn't", "wouldn't"]);
const SUBJECTS = new Set(['i', 'you', 'we', 'they', 'he', 'she', 'it', 'there', 'that', 'this', 'the', 'a', 'an', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'these', 'those', 'anyone', 'someone', 'somebody', 'anybody', 'everyone']);
const DECLARATIVE_START = new Set(['i', "i'm", "i've", "i'd", "i'll", 'im', 'we', "we're", "we've", "we'd", 'it', "it's", 'its', "that's", 'thats', 'that', 'there', "there's", 'you', "you're", 'he', 'she', 'they', "they're", 'my', 'our', 'please', 'tell', 'show', 'give', 'send', 'book', 'cancel', 'help', 'let', "let's", 'thanks', 'thank', 'have', 'close', 'open', 'call', 'check', 'find', 'bring', 'add', 'remove', 'play', 'stop', 'start', 'turn', 'put', 'take', 'make']);
/** A sentence may open on its subject's determiner ("the meeting has been moved"): complete when long enough. */
const DETERMINER_START = new Set(['the', 'a', 'an', 'this', 'these', 'those', 'your', 'his', 'her', 'their', 'our', 'my']);
/** Whole utterances that are a complete answer or greeting on their own. */
const SHORT_ANSWER = /^(?:(?:yes|yeah|yep|yup|no|nope|nah|ok|okay|sure|alright|right|fine|great|perfect|good|cool|exactly|correct|absolutely|definitely|certainly)(?: (?:yes|yeah|no|ok|okay|sure|please|thanks|thank you|indeed|sir|ma'am))*|(?:yes|yeah|no|ok|okay)? ?(?:please|thanks|thank you(?: (?:so|very) much)?|no thanks|no thank you|not really|not yet|not now|never mind|nevermind|of course|sounds good|that's (?:all|it|right|correct|fine|great|perfect|good)|that is (?:all|it|right|correct)|that's all(?: thanks| thank you)?|nothing else|i don't know|i do not know|i'm not sure|not sure|i see|got it|hello|hi|hey|hi there|hello there|good (?:morning|afternoon|evening|night)|bye|goodbye|bye bye|see you|me too|you too|why not|how come|really|me neither))$/;
/** Endings of a clause that is not over ("my name is", "I want to", "I'm looking for", "let me think"). */
const UNFINISHED_TAIL = /(?:\b(?:want|need|have|going|trying|like|love|hoping|planning|able|supposed|used|got) to|\b(?:let me|let's) (?:see|think|check)|\b(?:i was|i'm|i am|we were|we're) (?:wondering|thinking|hoping|looking)|\bi(?:'d| would) like|\b(?:the|my|our|your) (?:name|number|address|email|problem|question|issue|thing|reason|point|idea|plan) (?:is|was)|\bwhat i (?:mean|meant|want|need) is|\bkind of|\bsort of|\ba lot of|\bas well as|\bin order to|\bsuch as)$/;
/** "so" that ends a clause: "I think so", "and so on", "or so". */
const SO_ENDS = /\b(?:think|hope|guess|believe|suppose|said|told|say|do|did|not|is|that|and|or|so) so$/;

function isWhQuestion(words: string[]): boolean {
  const [w0, w1, w2] = words;
  if (w0 === undefined || !WH.has(w0)) return false;
  if (WH_CONTRACTED.has(w0)) return words.length >= 2;
  // "what are your opening hours", "how much is it", "what time do you open", "which one is cheaper"
  const auxAt = [w1, w2].findIndex((w) => w !== undefined && (MODALS_AUX.has(w) || /^(?:\w+)'(?:s|re|ll|d|ve)$/.test(w)));
  return auxAt >= 0 && words.length >= auxAt + 3;
}

function isInvertedQuestion(words: string[]): boolean {
  const [w0, w1] = words;
  return w0 !== undefined && w1 !== undefined && INVERTED.has(w0) && SUBJECTS.has(w1) && words.length >= 3;
}

/** The rule set: the last words first (they decide most), then the shape of the whole. */
export function endOfTurn(text: string): EndOfTurn {
  const t = text.trim();
  if (!t) return { kind: 'neutral', score: 0, why: 'empty' };
  if (/(?:[,;:\-–—]|\.\.\.|…)$/.test(t)) return { kind: 'unfinished', score: -2, why: 'pause mark' };
  const all = splitHyphens(t.replace(/[’‘]/g, "'")).filter((w) => w !== "'");
  let lead = 0;
  while (lead < all.length - 1 && LEADERS.has(all[lead]!)) lead++;
  const words = all.slice(lead);
  const n = words.length;
  const last = words[n - 1] ?? '';
  const prev = words[n - 2];
  const tail = words.slice(-6).join(' ');
  if (SHORT_ANSWER.test(all.join(' ')) || SHORT_ANSWER.test(words.join(' '))) return { kind: 'complete', score: 2, why: 'short answer' };
  const question = isWhQuestion(words) || isInvertedQuestion(words);
  if (FILLERS.has(last)) return { kind: 'unfinished', score: -2, why: 'filler' };
  if (last === 'so' && SO_ENDS.test(tail)) return { kind: n >= 3 ? 'complete' : 'neutral', score: n >= 3 ? 1 : 0, why: 'so ends it' };
  if (BARE_SUBJECTS.has(last)) return { kind: 'unfinished', score: -2, why: 'subject without its verb' };
  if (UNFINISHED_TAIL.test(tail)) return { kind: 'unfinished', score: -2, why: 'unfinished clause' };
  if (CONJUNCTIONS.has(last) && !(question && ['that', 'which', 'who', 'where', 'as'].includes(last))) return { kind: 'unfinished', score: -2, why: 'conjunction' };
  if (DETERMINERS.has(last) && !(['this', 'these', 'those', 'some', 'any', 'no'].includes(last) && n >= 3)) return { kind: 'unfinished', score: -2, why: 'determiner' };
  // A preposition at the end: stranded in a question ("who do I talk to", "what is it for") it ends it.
  const phrasal = PARTICLES.has(last) && prev !== undefined && (PHRASAL_HEADS.has(prev) || (OBJECTS.has(prev) && PHRASAL_HEADS.has(words[n - 3] ?? '')));
  // Stranded only in a wh-question ("who do I talk to"); "can I pay with" is not over.
  if (PREPOSITIONS.has(last) && !phrasal && !(isWhQuestion(words) && last !== 'than')) return { kind: 'unfinished', score: -2, why: 'preposition' };
  // "my name is", "the problem was": a copula after a noun; "yes it is", "I think I am": after a pronoun, whole.
  if (COPULAS.has(last) && (prev === undefined || WH.has(prev) || !PRONOUNS.has(prev))) return { kind: question && n >= 3 ? 'neutral' : 'unfinished', score: question && n >= 3 ? 0 : -2, why: 'copula' };
  // "my order", "the book": a noun after a determiner, not the verb.
  if (NEEDS_OBJECT.has(last) && !question && !(prev !== undefined && (DETERMINERS.has(prev) || ['his', 'her'].includes(prev)))) return { kind: 'unfinished', score: -1, why: 'verb wants an object' };
  if (/[.!?]$/.test(t)) return { kind: 'complete', score: 2, why: 'end mark' };
  if (question && !(NEEDS_OBJECT.has(last) && !(prev !== undefined && DETERMINERS.has(prev))) && !MODALS_AUX.has(last)) return { kind: 'complete', score: 2, why: 'question' };
  if (((n >= 3 && DECLARATIVE_START.has(words[0]!)) || (n >= 5 && DETERMINER_START.has(words[0]!))) && !MODALS_AUX.has(last)) return { kind: 'complete', score: 1, why: 'sentence' };
  return { kind: 'neutral', score: 0, why: 'no sign' };
}

/**
 * The commit delay after the last speech for this text, within the Advanced tab's bounds:
 * unfinished → max_endpointing_delay (a verb still wanting its object: 2 × min, at least 1 s, at most max); neutral → min_endpointing_delay (the silence rule);
 * complete → shorter than min_endpointing_delay (×0.5 for a question or a short answer, ×0.75
 * for a full sentence) but never under COMPLETE_FLOOR_MS (the bench's choice: ADR 095).
 */
export const COMPLETE_FLOOR_MS = TURN_DEFAULTS.completeFloorMs;
export function endpointingDelay(text: string, o: Pick<TurnOptions, 'minEndpointingMs' | 'maxEndpointingMs'>, floorMs = COMPLETE_FLOOR_MS): number {
  const e = endOfTurn(text);
  const min = o.minEndpointingMs;
  const max = Math.max(min, o.maxEndpointingMs);
  if (e.kind === 'unfinished') return e.score <= -2 ? max : Math.min(max, Math.max(2 * min, 1000));
  if (e.kind === 'neutral') return min;
  const shorter = Math.round(min * (e.score >= 2 ? 0.5 : 0.75));
  return Math.min(min, Math.max(floorMs, shorter));
}
