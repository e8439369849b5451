import { useCallback, useEffect, useRef, useState } from 'react';
import { KnowledgeLimits } from '@persona/contract';

export type SingleProgressState = 'idle' | 'normal' | 'success' | 'error';

/**
 * Single-item progress (spec section 4): idle, then normal while waiting — the bar creeps towards
 * 98% every 200 ms — then 100% on the outcome, success or error.
 */
export function useCreepingProgress() {
  const [state, setState] = useState<SingleProgressState>('idle');
  const [value, setValue] = useState(0);
  const timer = useRef<ReturnType<typeof setInterval> | null>(null);
  const stopTimer = () => {
    if (timer.current) clearInterval(timer.current);
    timer.current = null;
  };
  useEffect(() => stopTimer, []);

  const start = useCallback(() => {
    stopTimer();
    setState('normal');
    setValue(0);
    timer.current = setInterval(() => {
      setValue((v) => Math.min(KnowledgeLimits.progressCap, v + Math.max(0.4, (KnowledgeLimits.progressCap - v) * 0.06)));
    }, KnowledgeLimits.progressTickMs);
  }, []);
  const finish = useCallback((outcome: 'success' | 'error') => {
    stopTimer();
    setValue(100);
    setState(outcome);
  }, []);
  const reset = useCallback(() => {
    stopTimer();
    setValue(0);
    setState('idle');
  }, []);
  return { state, value, start, finish, reset };
}

export type MultiProgressState = 'idle' | 'normal' | 'success' | 'partial' | 'error';

/** Multi-URL progress: the share of settled items, capped at 98% until all are done. */
export function multiProgress(total: number, ready: number, failed: number): { state: MultiProgressState; value: number } {
  if (total === 0) return { state: 'idle', value: 0 };
  const done = ready + failed;
  if (done < total) return { state: 'normal', value: Math.min(KnowledgeLimits.progressCap, Math.round((done / total) * 100)) };
  if (failed === 0) return { state: 'success', value: 100 };
  if (ready === 0) return { state: 'error', value: 100 };
  return { state: 'partial', value: 100 };
}
