import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { ClusterError } from '../cluster-error.js';
import type { WorkerInfo } from './worker-info.js';

/** Options of `plugin.waitForWorkers`. */
export interface WaitForWorkersOptions {
  /** How long to wait (ms); default: the cluster's `startTimeoutMs`. `Infinity`: no limit. */
  timeoutMs?: number;
}

/** How often the count of ready workers is checked while waiting (ms). */
const POLL_MS = 20;

/**
 * Resolves with the workers once at least `n` serve tasks (`state: 'ready'`), as Dask's
 * `wait_for_workers`. Keeps node alive while it waits.
 * @throws ArgumentError when `n` is not a whole number ≥ 0 or `timeoutMs` is not ≥ 0.
 * Rejects with `ClusterError` (`reason: 'timeout'`) saying how many joined when the time is
 * up, or when the cluster closes first.
 */
export function waitForWorkers(
  n: number,
  options: WaitForWorkersOptions | undefined,
  defaultTimeoutMs: number,
  workers: () => WorkerInfo[],
  closed: () => boolean,
): Promise<WorkerInfo[]> {
  if (!Number.isInteger(n) || n < 0) {
    throw new ArgumentError(
      `waitForWorkers(n): n must be a whole number of workers, 0 or more; got ${describeValue(n)}`,
    );
  }
  const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new ArgumentError(
      `waitForWorkers(n, { timeoutMs }): timeoutMs must be a number of ms ≥ 0 (or Infinity); got ${describeValue(timeoutMs)}`,
    );
  }
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const all = workers();
      const ready = all.filter((w) => w.state === 'ready');
      if (ready.length >= n) {
        resolve(all);
        return true;
      }
      const elapsed = performance.now() - start;
      if (!closed() && elapsed < timeoutMs) return false;
      const starting = all.length - ready.length;
      reject(
        new ClusterError(
          'timeout',
          `waitForWorkers(${n}): ${ready.length} of ${n} workers ready ` +
            `${closed() ? 'when the cluster closed' : `after ${Math.round(elapsed)} ms`}` +
            `${starting > 0 ? ` (${starting} more still starting)` : ''}; ` +
            'check that the workers were started and can reach the scheduler, or wait longer (timeoutMs)',
        ),
      );
      return true;
    };
    if (check()) return;
    const timer = setInterval(() => {
      if (check()) clearInterval(timer);
    }, POLL_MS);
  });
}
