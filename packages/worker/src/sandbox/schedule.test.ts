import { describe, expect, it } from 'vitest';
import { nextRun, startsFor, type Slot } from './schedule.js';

const slot = (state: Slot['state'], key: string | null, lastUsed = 0): Slot & { name: string } => ({ state, key, lastUsed, name: `${state}:${key ?? '-'}:${lastUsed}` });

describe('which waiting call runs where', () => {
  it('a key with fewer processes running goes first; arrival order within a key', () => {
    const slots = [slot('busy', 'a'), slot('idle', null)];
    const queue = [
      { key: 'a', seq: 1 },
      { key: 'b', seq: 2 },
      { key: 'b', seq: 3 },
    ];
    expect(nextRun(queue, slots, 3)).toEqual({ job: queue[1], slot: slots[1] });
  });

  it('a process that ran a key’s code is reused for that key before a fresh one', () => {
    const slots = [slot('idle', null), slot('idle', 'a')];
    expect(nextRun([{ key: 'a', seq: 1 }], slots, 1)?.slot).toBe(slots[1]);
  });

  it('never runs a key on more than maxPerKey processes, nor on another key’s process', () => {
    const slots = [slot('busy', 'a'), slot('idle', null), slot('idle', 'b')];
    expect(nextRun([{ key: 'a', seq: 1 }], slots, 1)).toBeNull();
    expect(nextRun([{ key: 'c', seq: 1 }], [slot('idle', 'b')], 3)).toBeNull();
  });

  it('starts processes for keys that run nowhere: those starting count, then growth, then the longest-unused idle process of another key', () => {
    const queue = [
      { key: 'x', seq: 1 },
      { key: 'y', seq: 2 },
      { key: 'z', seq: 3 },
      { key: 'w', seq: 4 },
    ];
    const old = slot('idle', 'b', 10);
    const older = slot('idle', 'c', 5);
    const slots = [slot('starting', null), old, older];
    // x takes the starting one; y grows the pool to 4; z recycles c (older), w recycles b; nothing is recycled twice.
    expect(startsFor(queue, slots, 4)).toEqual([{ retire: null }, { retire: older }, { retire: old }]);
    // A key already running gets no start; with nothing to recycle, nothing more starts.
    expect(startsFor([{ key: 'b', seq: 1 }], [slot('busy', 'b')], 1)).toEqual([]);
    expect(startsFor([{ key: 'x', seq: 1 }], [slot('busy', 'b')], 1)).toEqual([]);
  });
});
