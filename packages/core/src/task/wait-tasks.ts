import { ArgumentError } from '../errors/errors.js';
import { checkOptions as checkShape, isPlainObject } from '../options/index.js';
import { CompletionOrder, taskList } from './completion-order.js';
import type { DTask } from './dtask.js';

/** Options of `wait` and `waitAny`. */
export interface WaitOptions {
  /** How many tasks must finish: 1 to all of them (default: all; `waitAny`: 1). */
  count?: number;
  /** Give up after this many milliseconds and return what has finished by then. */
  timeoutMs?: number;
}

/** What `wait` returns: the finished tasks in finishing order, the others in the order given. */
export interface WaitResult<T> {
  /** Finished tasks (failed ones too), in the order they finished. */
  done: DTask<T>[];
  /** Tasks not finished yet, in the order given. */
  pending: DTask<T>[];
}

const KNOWN = ['count', 'timeoutMs'];

/**
 * Waits until `count` of `tasks` have finished, or `timeoutMs` has passed (Dask's `wait`,
 * Ray's `ray.wait(refs, num_returns, timeout)`, Python's `concurrent.futures.wait`). Never
 * rejects for a task's own error: a failed task counts as finished. Returns `{ done, pending }`;
 * on a timeout `done` may hold fewer than `count` tasks.
 *
 * Throws `ArgumentError` at the call for a bad task list or bad options.
 */
export function wait<T>(
  tasks: Iterable<DTask<T>>,
  options: WaitOptions = {},
): Promise<WaitResult<T>> {
  const list = taskList('wait(tasks, options)', tasks);
  const { count, timeoutMs } = checkOptions('wait(tasks, options)', options, list.length);
  return waitFor(new CompletionOrder(list), count ?? list.length, timeoutMs);
}

/**
 * Waits until one of `tasks` has finished (or `timeoutMs` has passed): `wait` with `count: 1`.
 * With no tasks, resolves at once with both lists empty.
 */
export function waitAny<T>(
  tasks: Iterable<DTask<T>>,
  options: Omit<WaitOptions, 'count'> = {},
): Promise<WaitResult<T>> {
  const list = taskList('waitAny(tasks, options)', tasks);
  if (isPlainObject(options) && 'count' in options) {
    throw new ArgumentError('waitAny(tasks, options): no count here; use wait(tasks, { count })');
  }
  const { timeoutMs } = checkOptions('waitAny(tasks, options)', options, list.length);
  return waitFor(new CompletionOrder(list), Math.min(1, list.length), timeoutMs);
}

function checkOptions(where: string, options: unknown, n: number): WaitOptions {
  checkShape(options, {
    known: KNOWN,
    plain: true,
    notObject: () => `${where}: options must be an object`,
    unknownKey: (key, known) =>
      `${where}: unknown option '${key}'. Known options: ${known.join(', ')}`,
  });
  const { count, timeoutMs } = options as WaitOptions;
  if (count !== undefined && (!Number.isInteger(count) || count < 0 || count > n)) {
    throw new ArgumentError(
      `${where}: count must be an integer from 0 to ${n} (the number of tasks), got ${String(count)}`,
    );
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs >= 0))) {
    throw new ArgumentError(
      `${where}: timeoutMs must be a number of milliseconds ≥ 0, got ${String(timeoutMs)}`,
    );
  }
  return { count, timeoutMs };
}

async function waitFor<T>(
  order: CompletionOrder<T>,
  count: number,
  timeoutMs: number | undefined,
): Promise<WaitResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const enough = (async () => {
    while (order.finished.length < count) await order.next(order.finished.length);
  })();
  try {
    if (timeoutMs === undefined) await enough;
    else {
      await Promise.race([
        enough,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
    }
  } finally {
    clearTimeout(timer);
  }
  return { done: order.finished.slice(), pending: order.pending() };
}
