import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { healthWatch } from './health-watch.js';

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
  it('finds a block of the loop: 300 ms of CPU without a turn', { timeout: 30_000 }, async () => {
    const watch = await healthWatch(async () => 200, { baselineMs: 300 });
    const watched = await watch.during(async () => {
      await turn();
      busyCpu(300);
    });
    expect(watched.over, watch.describe('a block', watched)).toHaveLength(1);
    expect(watched.over[0]).toBeGreaterThanOrEqual(250);
    // The thread's clock counts in 10 ms ticks.
    if (onLinux) expect(watched.figures.cpuMax).toBeGreaterThanOrEqual(280);
  });
});
