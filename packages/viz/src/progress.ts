import { ArgumentError, type DTask, isDTask } from '@dtask/core';
import { describe } from './write-report.js';

/** Where a set of tasks stands; `done + failed + running + queued === total`. */
export interface Progress {
  /** Finished with a value. */
  done: number;
  /** Finished with an error (cancelled included). */
  failed: number;
  /** Placed on a processor and running there. */
  running: number;
  /** Not started yet: waiting for inputs, or ready and waiting for a processor. */
  queued: number;
  /** All the tasks followed. */
  total: number;
}

/** Options of `progress`. */
export interface ProgressOptions {
  /** Called with every snapshot the iterator yields (also when nobody iterates). */
  onProgress?: (progress: Progress) => void;
  /** Milliseconds between looks at tasks that are running or queued. Default 100. */
  interval?: number;
}

// DTask.state values (core's TaskState, not exported by @dtask/core): 3 Running, 4 Done,
// 5 Failed. Read here until core gives a task a public status.
const RUNNING = 3;
const DONE = 4;
const FAILED = 5;

/** The current counts of `tasks`. Called by `progress` and `progressBar`. */
export function countProgress(tasks: readonly DTask<unknown>[]): Progress {
  const p: Progress = { done: 0, failed: 0, running: 0, queued: 0, total: tasks.length };
  for (const t of tasks) {
    const state = (t as unknown as { state: number }).state;
    if (state === DONE) p.done++;
    else if (state === FAILED) p.failed++;
    else if (state === RUNNING) p.running++;
    else p.queued++;
  }
  return p;
}

/**
 * Follows a set of tasks; called by the user as `for await (const p of progress(tasks))`.
 * Yields `{ done, failed, running, queued, total }` at once, then whenever a count changes
 * (looked at every `interval` ms and as soon as a task settles), and ends after the snapshot
 * where every task has settled. Leaving the loop early stops following; the tasks go on.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `tasks` is not an iterable of DTasks, or for
 * an unknown or ill-typed option.
 */
export function progress(
  tasks: Iterable<DTask<unknown>>,
  options: ProgressOptions = {},
): AsyncIterableIterator<Progress> {
  const list = checkTasks('progress', tasks);
  const { onProgress, interval } = checkProgressOptions(options);
  return follow(list, interval, onProgress);
}

async function* follow(
  tasks: DTask<unknown>[],
  interval: number,
  onProgress: ((p: Progress) => void) | undefined,
): AsyncGenerator<Progress> {
  let wake: (() => void) | undefined;
  for (const t of tasks) {
    t.wait().then(
      () => wake?.(),
      () => wake?.(),
    );
  }
  let last = '';
  for (;;) {
    const p = countProgress(tasks);
    const key = `${p.done},${p.failed},${p.running},${p.queued}`;
    if (key !== last) {
      last = key;
      onProgress?.(p);
      yield p;
    }
    if (p.done + p.failed === p.total) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, interval);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }
}

/** @internal Throws unless `tasks` is an iterable of DTasks; returns them as an array. */
export function checkTasks(caller: string, tasks: unknown): DTask<unknown>[] {
  if (tasks === null || typeof tasks !== 'object' || !(Symbol.iterator in tasks)) {
    throw new ArgumentError(
      `${caller}: expects an array (or other iterable) of the DTasks spawn() returned, got ${describe(tasks)}`,
    );
  }
  const list = [...(tasks as Iterable<unknown>)];
  list.forEach((t, i) => {
    if (!isDTask(t)) {
      throw new ArgumentError(
        `${caller}: entry ${i} is ${describe(t)}, not a DTask; pass the tasks spawn() returned`,
      );
    }
  });
  return list as DTask<unknown>[];
}

function checkProgressOptions(options: ProgressOptions): {
  onProgress?: (p: Progress) => void;
  interval: number;
} {
  if (options === null || typeof options !== 'object') {
    throw new ArgumentError(`progress: options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'onProgress' && key !== 'interval') {
      throw new ArgumentError(
        `progress: unknown option '${key}'; the options are onProgress and interval`,
      );
    }
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new ArgumentError(
      `progress: options.onProgress must be a function, got ${describe(options.onProgress)}`,
    );
  }
  return {
    onProgress: options.onProgress,
    interval: checkInterval('progress', options.interval, 100),
  };
}

/** @internal A positive finite number of milliseconds, or `fallback` when undefined. */
export function checkInterval(
  caller: string,
  value: unknown,
  fallback: number,
  name = 'interval',
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ArgumentError(
      `${caller}: options.${name} must be a positive number of milliseconds, got ${describe(value)}`,
    );
  }
  return value;
}
