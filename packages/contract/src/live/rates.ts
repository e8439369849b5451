/**
 * What one visitor may make the avatar's owner pay for, or make our machines work for
 * (docs/decisions/013-live-sessions.md, "Rates"). Each number bounds a cost that grows with
 * what a visitor sends: language-model calls, voices, function calls, sandbox time, sessions.
 * The worker enforces them (a page that ignores them is refused, then closed); the avatar page
 * applies the message rate itself too, so that a visitor typing fast reads a notice at once.
 */
export const LiveRates = {
  /**
   * Messages a visitor may send in one session (typed text, `sendMessageToAvatar`, the browser's
   * own recognition): a burst of `messageBurst`, then one every `messageIntervalMs`. A message
   * over the rate is not answered; the page is told (`notice` too-fast, with the message's id).
   */
  messageBurst: 5,
  messageIntervalMs: 2000,
  /**
   * Turns of one session waiting behind the one being answered (typed or spoken; the one in
   * flight not counted): more are refused like a message over the rate.
   */
  maxQueuedTurns: 4,
  /**
   * Refused messages a session may pile up (they drain at the message rate): one more ends the
   * session (`bye` too-many-messages; it cannot be resumed).
   */
  maxRefusedMessages: 10,
  /**
   * JSON frames of any kind a page socket may send (pings, playback progress, mic on/off…): a
   * burst, then `framesPerSecond`. Frames over it are dropped unread; `maxDroppedFrames` dropped
   * without coming back to the pace close the socket (badFrame).
   */
  frameBurst: 60,
  framesPerSecond: 20,
  maxDroppedFrames: 200,
  /** Mic frames longer than this (ms of audio) are not a page's: the socket is closed (the page sends 20 ms). */
  maxMicFrameMs: 200,
  /**
   * Function calls the model may make for one answer (all rounds together; the LLM brains, the
   * assistant, a speech-to-speech model's response) and in one session. Calls over either get an
   * error result telling the model to answer with what it has.
   */
  toolCallsPerTurn: 8,
  toolCallsPerSession: 60,
  /**
   * Portal, per client address: session starts and resumes a minute (the route's rate limit),
   * and resumes of one session a minute (each opens the conversation again on a worker: the
   * brain's login, a realtime connection).
   */
  startsPerIpPerMinute: 30,
  resumesPerIpPerMinute: 60,
  resumesPerSessionPerMinute: 10,
} as const;

/**
 * A token bucket on an injected clock: `capacity` tokens at most, refilled at `perMs` tokens a
 * millisecond. The live rates are all this one shape: the worker's (messages, refusals, JSON
 * frames, mic audio, its per-session log limiter) and the avatar page's own message rate.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly capacity: number,
    private readonly perMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = capacity;
    this.refilledAt = now();
  }

  /** A bucket of `capacity` that gains one token every `intervalMs`. */
  static every(capacity: number, intervalMs: number, now?: () => number): TokenBucket {
    return new TokenBucket(capacity, 1 / intervalMs, now);
  }

  private refill(): number {
    const t = this.now();
    if (t > this.refilledAt) this.tokens = Math.min(this.capacity, this.tokens + (t - this.refilledAt) * this.perMs);
    this.refilledAt = t;
    return this.tokens;
  }

  /** Takes `n` tokens when there are that many (true), else takes none (false). */
  take(n = 1): boolean {
    if (this.refill() < n) return false;
    this.tokens -= n;
    return true;
  }

  /** Full again (the client came back to the pace). */
  get isFull(): boolean {
    return this.refill() >= this.capacity;
  }
}
