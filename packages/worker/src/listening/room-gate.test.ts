import { describe, expect, it } from 'vitest';
import { createRoomGate, levelDb, QUIET_ROOM_DB } from './room-gate.js';

/** A seeded wobble of ±`spread` dB around `db` (babble's level is not flat). */
function wobble(db: number, spread: number, seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return db + ((s / 2 ** 31) * 2 - 1) * spread;
  };
}

describe('the room gate', () => {
  it('measures a window in dBFS of its RMS', () => {
    const full = new Int16Array(512).fill(32767);
    expect(levelDb(full)).toBeCloseTo(0, 1);
    const tenth = new Int16Array(512).map((_, i) => (i % 2 ? 3277 : -3277));
    expect(levelDb(tenth)).toBeCloseTo(-20, 1);
    expect(levelDb(new Int16Array(512))).toBe(-100);
  });

  it('in a room that talks (babble: speech to the VAD, all the time), passes the visitor and not the room', () => {
    const gate = createRoomGate(10);
    const babble = wobble(-35, 3, 1);
    for (let i = 0; i < 200; i++) gate.hear(babble(), true);
    expect(gate.talking()).toBe(true);
    expect(gate.roomDb()).toBeGreaterThan(-40);
    let passed = 0;
    for (let i = 0; i < 200; i++) if (gate.hear(babble(), true)) passed++;
    expect(passed).toBe(0);
    // The visitor, close to the microphone, near −20 dBFS.
    const visitor = wobble(-20, 4, 2);
    for (let i = 0; i < 50; i++) expect(gate.hear(visitor(), true)).toBe(true);
  });

  it('does not close on the visitor over a long question: the pauses between their words hear the room', () => {
    const gate = createRoomGate(10);
    const babble = wobble(-35, 3, 3);
    const visitor = wobble(-20, 4, 4);
    for (let i = 0; i < 100; i++) gate.hear(babble(), true);
    // Ten seconds of speech: three windows of words, one of a pause (the room), over and over.
    // What must not happen is a run of the visitor's words taken for the room long enough to end
    // the turn (min_silence_duration: 550 ms, 17 windows); a quiet syllable here and there may be.
    let words = 0;
    let heard = 0;
    let run = 0;
    let longestRun = 0;
    for (let i = 0; i < 312; i++) {
      if (i % 4 === 3) gate.hear(babble(), true);
      else {
        words++;
        const passed = gate.hear(visitor(), true);
        if (passed) heard++;
        run = passed ? 0 : run + 1;
        longestRun = Math.max(longestRun, run);
      }
    }
    expect(heard / words).toBeGreaterThan(0.9);
    expect(longestRun).toBeLessThan(8);
  });

  it('stays open over a fan or the street (not speech to the VAD): the visitor’s quiet words are not cut', () => {
    const gate = createRoomGate(10);
    const fan = wobble(-35, 1, 5);
    for (let i = 0; i < 200; i++) gate.hear(fan(), false);
    expect(gate.talking()).toBe(false);
    // A soft last word, only 6 dB over the fan.
    for (let i = 0; i < 10; i++) expect(gate.hear(-29, true)).toBe(true);
  });

  it('stays open over a conversation at the next table (speech to the VAD, but its level is not steady)', () => {
    const gate = createRoomGate(10);
    const near = wobble(-38, 9, 7);
    for (let i = 0; i < 400; i++) gate.hear(near(), true);
    expect(gate.talking()).toBe(false);
    expect(gate.hear(-30, true)).toBe(true);
  });

  it('is open in a quiet room, while it warms up, and when the margin is 0', () => {
    const quiet = createRoomGate(10);
    for (let i = 0; i < 200; i++) quiet.hear(QUIET_ROOM_DB - 15, i % 2 === 0);
    expect(quiet.talking()).toBe(false);
    expect(quiet.hear(QUIET_ROOM_DB - 10, true)).toBe(true);

    const warming = createRoomGate(10);
    for (let i = 0; i < 20; i++) expect(warming.hear(-35, true)).toBe(true);
    expect(warming.roomDb()).toBeNull();

    const off = createRoomGate(0);
    for (let i = 0; i < 200; i++) expect(off.hear(-35, true)).toBe(true);
  });
});
