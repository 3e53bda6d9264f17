import { ArgumentError } from '@dtask/core';
import { logEvent, loggingState, now } from '@dtask/core/plugin';
import { describe } from './write-report.js';

/**
 * Runs `fn` as a named phase of the run: while logging is on, logs a `phase` event spanning
 * it (`name`, `time`, `duration`), which reports split their figures by (tasks, data moved,
 * spilled and read back per phase, beside the whole run's). Called by the user around each
 * step of a job; resolves (or rejects) as `fn` does, the span logged either way.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `name` is not a non-empty string or `fn` not a
 * function.
 */
export async function phase<T>(name: string, fn: () => T | Promise<T>): Promise<Awaited<T>> {
  if (typeof name !== 'string' || name.length === 0) {
    throw new ArgumentError(`phase: name must be a non-empty string, got ${describe(name)}`);
  }
  if (typeof fn !== 'function') {
    throw new ArgumentError(`phase: fn must be a function to run, got ${describe(fn)}`);
  }
  const time = now();
  try {
    return await fn();
  } finally {
    if (loggingState.enabled) logEvent({ kind: 'phase', name, time, duration: now() - time });
  }
}
