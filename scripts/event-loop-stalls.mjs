// Loaded into every Node process of a loaded run (`node scripts/loaded-suite.mjs --stalls <ms>`
// sets NODE_OPTIONS=--import=<this file>): holds the process's event loop for a random time up to
// LOADED_STALL_MS, every LOADED_STALL_EVERY_MS (default 1000) — the pauses a busy machine gives a
// process (garbage collection, a core taken by another process), which a CPU hog alone seldom
// gives on Linux's fair scheduler. A test whose short bound is met by a healthy fake, or whose
// fixed wait is too short for the work, fails here within a run or two.
const ms = Number(process.env.LOADED_STALL_MS);
const every = Number(process.env.LOADED_STALL_EVERY_MS || 1000);
if (ms > 0 && every > 0) {
  const timer = setInterval(() => {
    const end = Date.now() + ms * Math.random();
    while (Date.now() < end) {
      // busy: the event loop is held
    }
  }, every);
  timer.unref();
}
