import { LiveCode, LiveLimits, WorkerProtocol } from '@persona/contract';
import type { LiveContext } from './context.js';

/** The sweep of sessions whose page or worker went silent. */
export function createSweep(ctx: LiveContext) {
  const { deps, repo, log, now, endSession } = ctx;
  /** Since when the sweep reads the database: this service's start, or the end of the last outage it met. */
  let readableSince = now().getTime();
  let sweepFailed = false;

  return {
    /**
     * Closes silent sessions (no heartbeat for the stale time), billed up to their last heartbeat
     * (once: the end is a conditional update). A silent session whose worker still reports was
     * left by its page (its connection lost, no resume): it ends as a hang-up, in the info log.
     * Only those whose worker stopped reporting too are the warning (and end worker-lost). A page
     * that closes its socket itself (a closed tab) is ended by the worker at once.
     */
    async sweep(): Promise<number> {
      const staleMs = (deps.staleSessionSeconds ?? LiveLimits.staleSessionSeconds) * 1000;
      const cutoff = new Date(now().getTime() - staleMs);
      let closed = 0;
      let left = 0;
      try {
        const stale = await repo.stale(cutoff);
        if (sweepFailed) {
          sweepFailed = false;
          readableSince = now().getTime();
        }
        // Heartbeats could not be written while the database was down (or this portal was): a
        // session is lost only once its worker has had the whole stale time since to report (ADR 078).
        if (now().getTime() - readableSince < staleMs) return 0;
        const reporting = await repo.workersReporting([...new Set(stale.map((r) => r.workerId))], new Date(now().getTime() - WorkerProtocol.pingTimeoutMs));
        for (const row of stale) {
          if (reporting.has(row.workerId)) {
            if (await endSession(row.id, LiveCode.hangUp, row.lastHeartbeatAt)) left++;
          } else if (await endSession(row.id, LiveCode.workerLost, row.lastHeartbeatAt)) closed++;
        }
      } catch (err) {
        sweepFailed = true;
        throw err;
      }
      if (left) log.info({ closed: left }, 'closed live sessions whose page left without coming back');
      if (closed) log.warn({ closed }, 'closed live sessions whose worker stopped reporting');
      return closed + left;
    },

  };
}
