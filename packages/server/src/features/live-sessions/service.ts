import { createAdmission } from './admission.js';
import { createLiveContext, type LiveSessionsDeps } from './context.js';
import { LiveRefusal } from './rules.js';
import { createSweep } from './sweep.js';
import { createWorkerRpc } from './worker-rpc.js';

export type { BillingVerdict, LiveLogger, LiveSessionsDeps } from './context.js';
export { LiveRefusal } from './rules.js';
export { voiceTurnSummary } from './worker-rpc.js';

/**
 * Live sessions (ADR 013): admission on the portal (avatar, origin, token, OAuth grant, IP
 * concurrency, billing-auth, daily limits, worker choice), the worker's RPC calls (claim,
 * heartbeat, history, end, knowledge), presence, call records and the sweep of sessions whose
 * worker went silent.
 */
export function createLiveSessionsService(deps: LiveSessionsDeps) {
  const ctx = createLiveContext(deps);
  const service = { ...createAdmission(ctx), ...createWorkerRpc(ctx), ...createSweep(ctx) };
  const counted =
    <A extends unknown[], R>(kind: 'start' | 'resume', call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const answer = await call(...args);
        deps.onAdmission?.(kind, null);
        return answer;
      } catch (err) {
        deps.onAdmission?.(kind, err instanceof LiveRefusal ? err.code : 'error');
        throw err;
      }
    };
  return { ...service, start: counted('start', service.start), resume: counted('resume', service.resume) };
}

export type LiveSessionsService = ReturnType<typeof createLiveSessionsService>;
