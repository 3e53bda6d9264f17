const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Collects garbage until `done()` holds (finalizers run on later turns), or gives up after 50
 * tries; returns whether it holds. Without `--expose-gc` it only waits.
 */
export async function collectUntil(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 50 && !done(); i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 10));
  }
  return done();
}
