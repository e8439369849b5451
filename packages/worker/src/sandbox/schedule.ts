/**
 * Which waiting call runs where (pool.ts asks; these functions only decide). Fair between
 * isolation keys (one owner's functions, for the tool runner): jobs of a key with the fewest
 * processes running go first, in arrival order within a key, and no key runs on more than
 * `maxPerKey` processes at once — so one owner's queue of slow calls cannot take every process
 * while another owner waits (measured before this rule: 14.7 s). Each job in that order takes an
 * idle process of its key, else a fresh one; a job whose key runs nowhere may have a process
 * started for it: the pool grows, else the idle process of another key unused the longest is
 * recycled.
 */

export interface Slot {
  state: 'starting' | 'idle' | 'busy' | 'dead';
  /** The isolation key whose code has run here; null while fresh. */
  key: string | null;
  lastUsed: number;
}

export interface Waiting {
  key: string;
  /** Arrival order. */
  seq?: number;
}

/** Processes running each key's code now. */
export function busyByKey(slots: readonly Slot[]): Map<string, number> {
  const busy = new Map<string, number>();
  for (const s of slots) if (s.state === 'busy' && s.key !== null) busy.set(s.key, (busy.get(s.key) ?? 0) + 1);
  return busy;
}

/** The next job to run now and the idle process it runs on, or null when none can run. */
export function nextRun<J extends Waiting, S extends Slot>(queue: readonly J[], slots: readonly S[], maxPerKey: number): { job: J; slot: S } | null {
  const busy = busyByKey(slots);
  const order = [...queue].sort((a, b) => (busy.get(a.key) ?? 0) - (busy.get(b.key) ?? 0) || (a.seq ?? 0) - (b.seq ?? 0));
  const idle = (predicate: (s: S) => boolean) => slots.find((s) => s.state === 'idle' && predicate(s));
  for (const job of order) {
    // One key never holds every process: the next owner's call finds one (or its start).
    if ((busy.get(job.key) ?? 0) >= maxPerKey) continue;
    const slot = idle((s) => s.key === job.key) ?? idle((s) => s.key === null);
    if (slot) return { job, slot };
  }
  return null;
}

/**
 * The processes to start for the jobs left whose key runs nowhere, in arrival order: the ones
 * already starting are theirs; then the pool grows up to `size`, else an idle process of another
 * key is recycled (`retire`: the process to stop first). Stops at the first job that gets nothing.
 */
export function startsFor<S extends Slot>(queue: readonly Waiting[], slots: readonly S[], size: number): { retire: S | null }[] {
  let starting = slots.filter((s) => s.state === 'starting').length;
  let count = slots.length;
  const retired = new Set<S>();
  const busy = busyByKey(slots);
  const waiting = queue.filter((job) => !busy.has(job.key)).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  const starts: { retire: S | null }[] = [];
  for (const { key } of waiting) {
    if (starting > 0) {
      starting -= 1;
      continue;
    }
    if (count < size) {
      count += 1;
      starts.push({ retire: null });
      continue;
    }
    const victim = slots.filter((s) => !retired.has(s) && s.state === 'idle' && s.key !== null && s.key !== key).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!victim) break;
    retired.add(victim);
    starts.push({ retire: victim });
  }
  return starts;
}
