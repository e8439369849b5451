import type { TAvatarState, TLiveState } from '@persona/contract';
import type { ConnectionState } from './live-session';

/** How long the page waits for a voice that makes no progress before it stops waiting (shows the text, drops "thinking"). */
export const VOICE_WAIT_MS = 8000;

export interface AvatarStateEvents {
  /** The state changed: the header, the stage's pose and the host page's `state` event follow it. */
  state(state: TAvatarState): void;
  /** The text of utterance `utt` may be shown now: its voice is heard, or none will be. */
  reveal(utt: number): void;
}

export interface AvatarStateTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: AvatarStateTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The avatar as the visitor experiences it, in the one vocabulary of
 * `AvatarStates`. The worker's `state` frames say what the worker is doing: it says `speaking`
 * when it starts sending an answer and `listening` as soon as the answer's voice has been made —
 * seconds before the visitor has heard it, since voices are made faster than they play. Here:
 *
 * - `speaking` from the first sample of an utterance heard to its last (the page's audio clock:
 *   the player's `started`/`ended`, given to `speaking()`); without a player in the page, the
 *   worker's frames stand in (LiveSession's frame-driven `speaking`).
 * - `thinking` while an answer is on its way and not heard: the worker says `speaking`, or an
 *   utterance's audio has begun to arrive, but nothing plays yet (the player loading on a cold
 *   page, the first piece of voice being made).
 * - otherwise the worker's state (`listening`, `idle`, `thinking`), and the connection's when not
 *   connected.
 *
 * It also holds an answer's text until its voice is heard (`text()` answers whether to show it
 * now; `reveal` says when a held one may be shown): when the page can play the voice, the text
 * waits for its first sample; when it cannot (no player, sound blocked by the browser, speaker
 * off), the text shows at once. A voice that makes no progress for VOICE_WAIT_MS is not waited for.
 * Pure (timers injected): unit-tested against a fake audio clock.
 */
export class AvatarStateMachine {
  private connection: ConnectionState = 'disconnected';
  private worker: TLiveState = 'idle';
  /** The utterance being heard now. */
  private heard: number | null = null;
  /** Utterances whose audio has begun to arrive and that have not been heard to their end. */
  private readonly coming = new Set<number>();
  /** Utterances whose text waits for their voice. */
  private readonly held = new Set<number>();
  /** Utterances whose text is shown (the last few). */
  private readonly shown = new Set<number>();
  /** The page plays the avatar's voice and the visitor can hear it (player running, not blocked, speaker on). */
  private voiced = false;
  private current: TAvatarState = 'disconnected';
  private stall: unknown = null;
  private readonly timers: AvatarStateTimers;

  constructor(
    private readonly events: AvatarStateEvents,
    timers: AvatarStateTimers = realTimers,
  ) {
    this.timers = timers;
  }

  get state(): TAvatarState {
    return this.current;
  }

  setConnection(connection: ConnectionState) {
    this.connection = connection;
    if (connection !== 'connected') {
      // Whatever was playing or coming is gone with the socket (the player flushes it).
      this.heard = null;
      this.coming.clear();
      this.worker = 'idle';
      this.releaseAll();
    }
    this.update();
  }

  /** The worker's `state` frame. */
  setWorkerState(state: TLiveState) {
    this.worker = state;
    // The worker is done with its turns: an answer that has no voice on its way will get none.
    if (state === 'listening' || state === 'idle') {
      for (const utt of [...this.held]) if (!this.coming.has(utt) && this.heard !== utt) this.release(utt);
    }
    this.update();
  }

  /** Whether the visitor can hear the avatar's voice in this page now. */
  setVoiced(voiced: boolean) {
    if (this.voiced === voiced) return;
    this.voiced = voiced;
    if (!voiced) {
      this.coming.clear();
      this.releaseAll();
    }
    this.update();
  }

  /** An utterance's audio begins to arrive (the worker's `utterance start`). */
  utteranceStarted(utt: number) {
    if (!this.voiced || this.connection !== 'connected') return;
    this.coming.add(utt);
    this.restartStall();
    this.update();
  }

  /** The worker cut an utterance off: whatever of it was not heard never will be. */
  interrupted(utt: number) {
    this.coming.delete(utt);
    this.release(utt);
    this.update();
  }

  /** An utterance is heard from now (`on`), or its last sample was heard (or it was cut off). */
  speaking(utt: number, on: boolean) {
    if (on) {
      this.heard = utt;
      this.clearStall();
      this.release(utt);
    } else {
      if (this.heard === utt) this.heard = null;
      this.coming.delete(utt);
      this.restartStall();
    }
    this.update();
  }

  /** Text of utterance `utt` arrived: true to show it now, false to hold it until `reveal(utt)`. */
  text(utt: number): boolean {
    if (this.shown.has(utt)) return true;
    if (this.held.has(utt)) return false;
    if (!this.voiced || this.connection !== 'connected' || this.heard === utt) {
      this.markShown(utt);
      return true;
    }
    this.held.add(utt);
    this.restartStall();
    return false;
  }

  dispose() {
    this.clearStall();
  }

  private markShown(utt: number) {
    this.shown.add(utt);
    while (this.shown.size > 32) this.shown.delete(this.shown.values().next().value!);
  }

  private release(utt: number) {
    if (!this.held.delete(utt)) {
      this.markShown(utt);
      return;
    }
    this.markShown(utt);
    this.events.reveal(utt);
  }

  private releaseAll() {
    for (const utt of [...this.held]) this.release(utt);
    this.clearStall();
  }

  /** While nothing is heard and a voice is awaited, a voice that makes no progress for VOICE_WAIT_MS is given up. */
  private restartStall() {
    this.clearStall();
    if (this.heard !== null || (this.held.size === 0 && this.coming.size === 0)) return;
    this.stall = this.timers.setTimeout(() => {
      this.stall = null;
      this.coming.clear();
      this.releaseAll();
      this.update();
    }, VOICE_WAIT_MS);
  }

  private clearStall() {
    if (this.stall !== null) this.timers.clearTimeout(this.stall);
    this.stall = null;
  }

  private derive(): TAvatarState {
    switch (this.connection) {
      case 'disconnected':
        return 'disconnected';
      case 'connecting':
      case 'reconnecting':
        return 'connecting';
      case 'ended':
      case 'failed':
        return 'ended';
      case 'connected':
        break;
    }
    if (this.heard !== null) return 'speaking';
    if (this.voiced && (this.coming.size > 0 || this.worker === 'speaking')) return 'thinking';
    return this.worker;
  }

  private update() {
    const next = this.derive();
    if (next === this.current) return;
    this.current = next;
    this.events.state(next);
  }
}
