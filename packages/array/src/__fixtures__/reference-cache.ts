import { afterAll } from 'vitest';

/**
 * A test file's plain references, each computed once however many rigs (or blockings) check the
 * same inputs: the returned `once(key, compute)` gives `compute()`'s value the first time `key`
 * is asked for, and the same value after. The key must name every input of the reference (its
 * seeds and sizes). Emptied after the file's tests: the `array` project's files share a process.
 */
export function referenceCache(): <T>(key: string, compute: () => T) => T {
  const values = new Map<string, unknown>();
  afterAll(() => values.clear());
  return <T>(key: string, compute: () => T): T => {
    if (!values.has(key)) values.set(key, compute());
    return values.get(key) as T;
  };
}
