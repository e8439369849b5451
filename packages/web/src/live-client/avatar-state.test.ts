import { describe, expect, it } from 'vitest';
import type { TAvatarState } from '@persona/contract';
import { JitterBuffer } from './audio/jitter-buffer';
import { PlayClock } from './audio/play-clock';
import { AvatarStateMachine, VOICE_WAIT_MS, type AvatarStateTimers } from './avatar-state';

const RATE = 16_000;
const BLOCK = 128;

/** Timers on a clock the test moves. */
class FakeTimers implements AvatarStateTimers {
  now = 0;
  private next = 1;
  private readonly due = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number) {
    const id = this.next++;
    this.due.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown) {
    this.due.delete(handle as number);
  }
  advance(ms: number) {
    const until = this.now + ms;
    for (;;) {
      const [id, first] = [...this.due].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || first!.at > until) break;
      this.due.delete(id);
      this.now = first!.at;
      first!.fn();
    }
    this.now = until;
  }
}

/**
 * The page's player without a browser: the worklet's jitter buffer rendering 128-sample blocks
 * on a frame counter (the audio clock), the PlayClock reading its reports, and what is heard
 * `latencyMs` behind what is written — its starts and ends go to the state machine as the page's
 * AvatarAudio gives them (`started` / `ended` → LiveSession's `speaking`).
 */
class FakePlayer {
  frame = 0;
  private readonly buffer = new JitterBuffer({ sampleRate: RATE, prebufferMs: 80, rebufferMs: 40 });
  private readonly clock = new PlayClock(RATE);
  constructor(
    private readonly machine: AvatarStateMachine,
    private readonly timers: FakeTimers,
    private readonly latencyMs = 40,
  ) {}
  /** `ms` of an utterance's voice arrives (a tone, so nothing is trimmed). */
  push(utt: number, ms: number, last = false) {
    const pcm = new Int16Array(Math.round((ms / 1000) * RATE)).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
    this.buffer.push(utt, pcm, last);
  }
  end(utt: number) {
    this.buffer.end(utt);
  }
  /** The audio clock runs `ms`; `each` sees the state every block (a poll at the audio's pace). */
  play(ms: number, each?: (heard: { utt: number; ms: number } | null) => void) {
    const blocks = Math.round((ms / 1000) * RATE / BLOCK);
    const out = new Float32Array(BLOCK);
    for (let b = 0; b < blocks; b++) {
      for (const e of this.buffer.read(out)) {
        const frame = this.frame + e.offset;
        if (e.type === 'start') this.clock.report({ type: 'start', utt: e.utt, frame });
        else if (e.type === 'end') this.clock.report({ type: 'end', utt: e.utt, frame, played: e.played, interrupted: e.interrupted });
      }
      const current = this.buffer.current;
      if (current && current.state !== 'waiting') this.clock.report({ type: 'pos', utt: current.utt, played: current.played, frame: this.frame + BLOCK });
      this.frame += BLOCK;
      this.timers.advance((BLOCK / RATE) * 1000);
      const heardFrame = this.frame - (this.latencyMs / 1000) * RATE;
      for (const e of this.clock.due(heardFrame)) this.machine.speaking(e.utt, e.type === 'start');
      const p = this.clock.positionAt(heardFrame);
      each?.(p ? { utt: p.utt, ms: (p.samples / RATE) * 1000 } : null);
    }
  }
}

function setup(opts: { voiced?: boolean } = {}) {
  const timers = new FakeTimers();
  const states: TAvatarState[] = [];
  const revealed: number[] = [];
  const machine = new AvatarStateMachine({ state: (s) => states.push(s), reveal: (utt) => revealed.push(utt) }, timers);
  machine.setConnection('connecting');
  machine.setConnection('connected');
  machine.setVoiced(opts.voiced ?? true);
  const player = new FakePlayer(machine, timers);
  return { timers, states, revealed, machine, player };
}

describe('AvatarStateMachine: the state follows what is heard', () => {
  it('a greeting on a cold page: thinking (not speaking) until its first sample plays, speaking to its last sample although the worker said listening long before, then listening', () => {
    const { machine, player, revealed } = setup();
    expect(machine.state).toBe('idle');
    // The worker says the greeting: its state, the text, the utterance's audio — all at once, the
    // voice made faster than it plays — and `listening` as soon as the voice is made.
    machine.setWorkerState('speaking');
    expect(machine.text(1)).toBe(false);
    machine.utteranceStarted(1);
    expect(machine.state).toBe('thinking');
    // The player is still loading on a cold page: nothing is heard for 3 s, nor is the text shown.
    player.play(3000);
    expect(machine.state).toBe('thinking');
    expect(revealed).toEqual([]);
    player.push(1, 2500, true);
    player.end(1);
    machine.setWorkerState('listening');
    // Still thinking: the voice is in the buffer, not heard yet.
    expect(machine.state).toBe('thinking');
    // Poll every block while the clock runs: speaking exactly while a sample of it is heard.
    const polls: { heard: boolean; state: TAvatarState }[] = [];
    player.play(3500, (heard) => polls.push({ heard: heard !== null, state: machine.state }));
    const audible = polls.filter((p) => p.heard);
    expect(audible.length).toBeGreaterThan(300);
    expect(audible.filter((p) => p.state !== 'speaking')).toEqual([]);
    // The text showed with the first sample heard, not before.
    expect(revealed).toEqual([1]);
    const firstHeard = polls.findIndex((p) => p.heard);
    expect(polls.slice(0, firstHeard).every((p) => p.state === 'thinking')).toBe(true);
    const lastHeard = polls.map((p) => p.heard).lastIndexOf(true);
    expect(polls.slice(lastHeard + 1).every((p) => p.state === 'listening')).toBe(true);
    expect(machine.state).toBe('listening');
  });

  it('an answer streamed in pieces: speaking through an underrun between pieces, and the next turn’s thinking waits for the last sample', () => {
    const { machine, player } = setup();
    machine.setWorkerState('thinking');
    machine.setWorkerState('speaking');
    machine.text(2);
    machine.utteranceStarted(2);
    player.push(2, 600);
    player.play(500);
    expect(machine.state).toBe('speaking');
    // The next piece is late: the buffer runs dry, the utterance has not ended.
    player.play(400);
    expect(machine.state).toBe('speaking');
    player.push(2, 600, true);
    player.end(2);
    // The visitor already typed the next question: the worker thinks while the answer still plays.
    machine.setWorkerState('thinking');
    player.play(300);
    expect(machine.state).toBe('speaking');
    player.play(1000);
    expect(machine.state).toBe('thinking');
  });

  it('two utterances back to back: no listening between them', () => {
    const { machine, player } = setup();
    machine.setWorkerState('speaking');
    machine.utteranceStarted(1);
    player.push(1, 500, true);
    player.end(1);
    machine.utteranceStarted(2);
    machine.setWorkerState('listening');
    const states = new Set<TAvatarState>();
    player.play(700, () => states.add(machine.state));
    player.push(2, 500, true);
    player.end(2);
    player.play(800, () => states.add(machine.state));
    expect(states.has('listening')).toBe(true); // after the second
    expect(machine.state).toBe('listening');
    // Between the first's end and the second's start: thinking, never listening.
    const { machine: m2, player: p2 } = setup();
    m2.setWorkerState('speaking');
    m2.utteranceStarted(1);
    p2.push(1, 500, true);
    p2.end(1);
    m2.utteranceStarted(2);
    m2.setWorkerState('listening');
    const seen: TAvatarState[] = [];
    p2.play(700, () => seen.push(m2.state));
    expect(seen.at(-1)).toBe('thinking');
    expect(seen).not.toContain('listening');
  });

  it('the text of an answer without a voice (the voice failed) shows when the worker is done, and the state is listening', () => {
    const { machine, revealed } = setup();
    machine.setWorkerState('speaking');
    expect(machine.text(3)).toBe(false);
    expect(machine.state).toBe('thinking');
    machine.setWorkerState('listening');
    expect(revealed).toEqual([3]);
    expect(machine.state).toBe('listening');
    // Later parts of a shown answer show at once.
    expect(machine.text(3)).toBe(true);
  });

  it('a voice that makes no progress is not waited for beyond VOICE_WAIT_MS', () => {
    const { machine, timers, revealed } = setup();
    machine.setWorkerState('speaking');
    machine.text(4);
    machine.utteranceStarted(4);
    machine.setWorkerState('listening');
    timers.advance(VOICE_WAIT_MS - 1);
    expect(machine.state).toBe('thinking');
    expect(revealed).toEqual([]);
    timers.advance(1);
    expect(revealed).toEqual([4]);
    expect(machine.state).toBe('listening');
  });

  it('an utterance interrupted before it was heard: its text shows, the state is the worker’s', () => {
    const { machine, revealed } = setup();
    machine.setWorkerState('speaking');
    machine.text(5);
    machine.utteranceStarted(5);
    machine.setWorkerState('listening');
    machine.interrupted(5);
    expect(revealed).toEqual([5]);
    expect(machine.state).toBe('listening');
  });

  it('where the voice cannot be heard (no player, sound blocked, speaker off) the text shows at once and the worker’s state stands', () => {
    const { machine, revealed } = setup({ voiced: false });
    machine.setWorkerState('speaking');
    expect(machine.text(6)).toBe(true);
    machine.utteranceStarted(6);
    expect(machine.state).toBe('speaking');
    // Sound blocked by the browser after the text was held: it shows then.
    const b = setup();
    b.machine.setWorkerState('speaking');
    expect(b.machine.text(7)).toBe(false);
    b.machine.utteranceStarted(7);
    b.machine.setVoiced(false);
    expect(b.revealed).toEqual([7]);
    expect(b.machine.state).toBe('speaking');
    expect(revealed).toEqual([]);
  });

  it('follows the connection: connecting while reconnecting, ended after a refusal, and held text is shown when the socket goes', () => {
    const { machine, revealed, states } = setup();
    machine.setWorkerState('speaking');
    machine.text(8);
    machine.setConnection('reconnecting');
    expect(machine.state).toBe('connecting');
    expect(revealed).toEqual([8]);
    machine.setConnection('connected');
    expect(machine.state).toBe('idle');
    machine.setConnection('failed');
    expect(machine.state).toBe('ended');
    expect(states).toEqual(['connecting', 'idle', 'thinking', 'connecting', 'idle', 'ended']);
  });
});
