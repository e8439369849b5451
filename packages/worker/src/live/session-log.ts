import type { WorkerLogger } from '../agent.js';
import { TokenBucket } from '@persona/contract';

/**
 * The one logger of a live session on a worker: every line carries the session's
 * context (sessionId, avatarId), and what one session writes is rate limited, so a hostile or
 * broken page cannot fill the log. Each message has its own allowance (a burst of `burst` lines,
 * then one every `intervalMs`); lines over it are counted, not written, and the next line of that
 * message that is written says how many were left out (`suppressed`).
 */
export interface SessionLogOptions {
  now?: () => number;
  /** Lines of one message written at once (default 10). */
  burst?: number;
  /** Then one line of that message every `intervalMs` (default 2 s: a conversation at the message rate is never cut). */
  intervalMs?: number;
}

/** Messages tracked per session at most (their own allowances); beyond it they share one. */
const MAX_MESSAGES = 100;

export function sessionLog(base: WorkerLogger, context: Record<string, unknown>, opts: SessionLogOptions = {}): WorkerLogger {
  const now = opts.now ?? Date.now;
  const burst = opts.burst ?? 10;
  const intervalMs = opts.intervalMs ?? 2000;
  const allowances = new Map<string, { bucket: TokenBucket; suppressed: number }>();
  const write = (level: keyof WorkerLogger) => (msg: string, data?: object) => {
    const key = allowances.size >= MAX_MESSAGES && !allowances.has(msg) ? '' : msg;
    let a = allowances.get(key);
    if (!a) allowances.set(key, (a = { bucket: TokenBucket.every(burst, intervalMs, now), suppressed: 0 }));
    if (!a.bucket.take()) {
      a.suppressed += 1;
      return;
    }
    const suppressed = a.suppressed;
    a.suppressed = 0;
    base[level](msg, { ...context, ...data, ...(suppressed ? { suppressed } : {}) });
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
