/**
 * Waits until `check()` holds, polling every 5 ms; throws `${what}: timed out after ${ms} ms`
 * otherwise. The default is generous: it only matters when a test fails (a loaded CI machine
 * must not turn a slow pass into a failure).
 */
export async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: timed out after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
