import type { Clock } from '../listening/turns.js';

/** Settles pending promise chains (`rounds` microtask turns). */
export async function flushMicrotasks(rounds: number) {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/**
 * A clock the test moves (the listener's `Clock`): timers fire in time order as it advances, with
 * the promise chains they start settled between them (`rounds` microtask turns each time).
 */
export class FakeClock implements Clock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  constructor(private readonly rounds = 20) {}
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      await flushMicrotasks(this.rounds);
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await flushMicrotasks(this.rounds);
  }
}
