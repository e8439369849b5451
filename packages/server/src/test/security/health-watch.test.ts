import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { healthWatch } from './health-watch.js';

/** Runs this thread for `ms` of wall time without yielding. */
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
/** Runs this thread for `ms` of CPU time without yielding (however long a loaded machine makes that). */
const busyCpu = (ms: number) => {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
};
const onLinux = process.platform === 'linux';

describe('the health watch', () => {
  it('finds a block of the loop: one turn of 300 ms of CPU', { timeout: 30_000 }, async () => {
    const watch = await healthWatch(async () => 200, { baselineMs: 300 });
    const watched = await watch.during(async () => {
      await turn();
      busyCpu(300);
    });
    expect(watched.over, watch.describe('a block', watched)).toHaveLength(1);
    expect(watched.over[0]).toBeGreaterThanOrEqual(290);
    // The thread's clock counts in 10 ms ticks.
    if (onLinux) expect(watched.figures.cpuMax).toBeGreaterThanOrEqual(280);
  });

  it.runIf(onLinux)('does not blame short turns for a health answer slow for another reason (a sample starved of a core collects their CPU)', { timeout: 30_000 }, async () => {
    let slow = false;
    const watch = await healthWatch(
      async () => {
        if (slow) await new Promise((r) => setTimeout(r, 400));
        return 200;
      },
      { baselineMs: 300 },
    );
    slow = true;
    // 800 ms of 10 ms tasks, one per turn: the loop answers between every two.
    const watched = await watch.during(async () => {
      for (let i = 0; i < 80; i++) {
        busy(10);
        await turn();
      }
    });
    expect(watched.figures.max).toBeGreaterThan(watched.bound);
    expect(watched.over, watch.describe('short turns', watched)).toEqual([]);
    expect(watched.figures.cpuMax).toBeLessThan(100);
  });
});
