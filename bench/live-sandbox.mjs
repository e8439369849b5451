// The python function sandbox (packages/worker/src/sandbox, ADR 020), from the built worker:
// - cold start: the pool's memory snapshot (made once), a process started from it, a process
//   loading Pyodide afresh (the fallback), each until it answers its first call;
// - a warm call (p50/p95 over 200 calls of the split_bill template) and a describe();
// - calls per second with the pool's 2 processes busy;
// - resident memory of a warm sandbox process, and how long an endless loop takes to be stopped
//   (time limit 1 s) and its process to be replaced.
import fs from 'node:fs';
import path from 'node:path';
import { percentile, root, round } from './support.mjs';

const { createSandboxPool } = await import(path.join(root, 'packages/worker/dist/sandbox/index.js'));

const SPLIT_BILL = `def split_bill(total: float, people: int = 1, tip_percent: float = 15.0) -> dict:
    """Work out the tip for a restaurant bill and how much each person pays.

    Args:
        total: The bill amount before the tip.
        people: How many people share the bill (at least 1).
        tip_percent: The tip as a percentage of the bill, for example 15.
    """
    tip = round(total * tip_percent / 100, 2)
    grand_total = round(total + tip, 2)
    return {"tip": tip, "total_with_tip": grand_total, "each_person_pays": round(grand_total / max(1, people), 2)}
`;
const silent = { warn: () => {}, error: (m, d) => console.error(m, d ?? '') };

/** Resident memory (MB) of this process's sandbox children, read from /proc. */
function sandboxRssMb() {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid || !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('child.mjs')) continue;
      const kb = /^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (kb) out.push(Number(kb) / 1024);
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

async function expectOk(answer) {
  const a = await answer;
  if (!a.ok) throw new Error(`sandbox call failed: ${a.error}`);
  return a;
}

export async function run() {
  // Cold: the snapshot and the first process from it (one pool of one).
  const [poolReadyMs, pool] = await timed(async () => {
    const p = createSandboxPool({ size: 2, log: silent, timeoutMs: 5000 });
    await p.ready();
    return p;
  });
  // A process from the snapshot, measured as a call with a new isolation key (the pool recycles
  // an idle process and starts a fresh one) minus a warm call. Both processes are bound first.
  await Promise.all(['a', 'b'].map((k) => expectOk(pool.call(SPLIT_BILL, 'split_bill', '{"total": 1}', { isolationKey: `bound-${k}` }))));
  const fromSnapshot = [];
  for (let i = 0; i < 5; i++) {
    const [ms] = await timed(() => expectOk(pool.call(SPLIT_BILL, 'split_bill', '{"total": 10}', { isolationKey: `cold-${i}` })));
    fromSnapshot.push(ms);
  }

  const warm = { isolationKey: 'warm' };
  await expectOk(pool.call(SPLIT_BILL, 'split_bill', '{"total": 1}', warm));
  const calls = [];
  for (let i = 0; i < 200; i++) {
    const [ms] = await timed(() => expectOk(pool.call(SPLIT_BILL, 'split_bill', JSON.stringify({ total: 10 + i, people: 3 }), warm)));
    calls.push(ms);
  }
  const describes = [];
  for (let i = 0; i < 20; i++) {
    // A new code text each time: describe() caches by code.
    const [ms] = await timed(() => expectOk(pool.describe(`${SPLIT_BILL}\n# ${i}\n`, 'split_bill', warm)));
    describes.push(ms);
  }

  // Throughput with both processes of the pool busy (same key: both serve it).
  await Promise.all([1, 2].map(() => expectOk(pool.call(SPLIT_BILL, 'split_bill', '{"total": 1}', warm))));
  // Ten callers, 100 calls each, one after another (the queue holds at most 100).
  const [throughputMs] = await timed(() =>
    Promise.all(
      Array.from({ length: 10 }, async (_, caller) => {
        for (let i = 0; i < 100; i++) await expectOk(pool.call(SPLIT_BILL, 'split_bill', JSON.stringify({ total: caller * 100 + i }), warm));
      }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const rss = sandboxRssMb();

  // An endless loop with a 1 s limit, then the replacement's first call.
  const [loopMs, loop] = await timed(() => pool.call('def spin():\n    while True:\n        pass\n', 'spin', '{}', { ...warm, timeoutMs: 1000 }));
  await pool.close();

  // The fallback: Pyodide loaded afresh in every process.
  const plain = [];
  for (let i = 0; i < 2; i++) {
    const [ms] = await timed(async () => {
      const p = createSandboxPool({ size: 1, snapshot: false, log: silent });
      await expectOk(p.call(SPLIT_BILL, 'split_bill', '{"total": 10}'));
      await p.close();
    });
    plain.push(ms);
  }

  const warmP50 = percentile(calls, 50);
  return {
    coldStart: {
      poolOfTwoReadyMs: round(poolReadyMs, 0),
      processFromSnapshotMs: fromSnapshot.map((ms) => round(ms - warmP50, 0)),
      processWithoutSnapshotMs: plain.map((ms) => round(ms, 0)),
      note: 'pool ready = memory snapshot made once + 2 processes started from it; a process from the snapshot = a call needing a fresh process minus a warm call',
    },
    warmCall: { p50Ms: round(warmP50), p95Ms: round(percentile(calls, 95)), calls: calls.length },
    describe: { p50Ms: round(percentile(describes, 50)), p95Ms: round(percentile(describes, 95)) },
    throughput: { callsPerSecond: round(1000 / (throughputMs / 1000), 0), processes: 2 },
    memory: { warmProcessRssMb: rss.map((mb) => round(mb, 0)), limitMb: 320, note: 'after 1,200 calls and 3 s idle' },
    endlessLoop: { answeredAfterMs: round(loopMs, 0), limitMs: 1000, kind: loop.ok ? 'ok?!' : loop.kind },
    machine: `${process.platform} ${process.arch}, node ${process.versions.node}, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  };
}
