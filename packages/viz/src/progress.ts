import { ArgumentError, Context, type DTask, isDTask } from '@dtask/core';
import { checkOptions } from '@dtask/core/plugin';
import { type TaskCounts, TaskFollower } from './task-follower.js';
import { describe } from './write-report.js';

/**
 * Where a set of tasks stands; `done + failed + running + queued === total`. `running` counts
 * only what executes now: a task sent to a thread that waits there behind others, or for an
 * input being made there, is `queued`.
 */
export interface Progress extends TaskCounts {
  /** Milliseconds since following began. */
  elapsed: number;
  /** Tasks settled per second since following began (0 before the first). */
  rate: number;
  /** Milliseconds left at that rate; undefined until a task has settled; 0 once all have. */
  eta: number | undefined;
}

/** Options of `progress`. */
export interface ProgressOptions {
  /** Called with every snapshot the iterator yields (also when nobody iterates). */
  onProgress?: (progress: Progress) => void;
  /** Milliseconds between looks at tasks that are running or queued. Default 100. */
  interval?: number;
}

/** Longest stretch (ms) without a snapshot while work goes on, so elapsed time and ETA move. */
const REFRESH_MS = 1000;

/**
 * The counts of `tasks` now (no timing: `elapsed` 0, `rate` 0, `eta` undefined unless all have
 * settled). Called by the user for a one-off look.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `tasks` is not an iterable of DTasks.
 */
export function countProgress(tasks: Iterable<DTask<unknown>>): Progress {
  const follower = new TaskFollower();
  for (const t of checkTasks('countProgress', tasks)) follower.add(t);
  const c = follower.counts();
  return { ...c, elapsed: 0, rate: 0, eta: c.done + c.failed === c.total ? 0 : undefined };
}

/**
 * Follows a set of tasks, or everything a context runs; called by the user as
 * `for await (const p of progress(tasks))` or `progress(context)`. Yields `Progress` at once,
 * then whenever a count changes (looked at every `interval` ms and as soon as a task settles),
 * and at least once a second while work goes on. With tasks, it ends after the snapshot where
 * every task has settled. With a context, it follows every task the context holds when called
 * and every task submitted to it after (`total` grows), and ends once all have settled (after
 * at least one was seen) or the context closes. Leaving the loop early stops following; the
 * tasks go on.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `tasksOrContext` is neither a `Context` nor an
 * iterable of DTasks, or for an unknown or ill-typed option.
 */
export function progress(
  tasksOrContext: Iterable<DTask<unknown>> | Context,
  options: ProgressOptions = {},
): AsyncIterableIterator<Progress> {
  const follower = followerOf('progress', tasksOrContext);
  const { onProgress, interval } = checkProgressOptions(options);
  const context = tasksOrContext instanceof Context ? tasksOrContext : undefined;
  return follow(follower, context, interval, onProgress);
}

/** @internal A follower of `tasksOrContext` (see `progress`), checked. */
export function followerOf(caller: string, tasksOrContext: unknown): TaskFollower {
  const checked = checkTasksOrContext(caller, tasksOrContext);
  const follower = new TaskFollower();
  if (checked instanceof Context) follower.followContext(checked);
  else for (const t of checked) follower.add(t);
  return follower;
}

/** @internal Throws unless `x` is an open Context or an iterable of DTasks; returns it (tasks as an array). */
export function checkTasksOrContext(caller: string, x: unknown): Context | DTask<unknown>[] {
  if (!(x instanceof Context)) return checkTasks(caller, x);
  if (x.isClosed) throw new ArgumentError(`${caller}: the context is closed; follow an open one`);
  return x;
}

async function* follow(
  follower: TaskFollower,
  context: Context | undefined,
  interval: number,
  onProgress: ((p: Progress) => void) | undefined,
): AsyncGenerator<Progress> {
  let wake: (() => void) | undefined;
  follower.onSettle = () => wake?.();
  const started = performance.now();
  let last = '';
  let shownAt = Number.NEGATIVE_INFINITY;
  try {
    for (;;) {
      const now = performance.now();
      const p = withTiming(follower.counts(), now - started);
      const settled = p.done + p.failed;
      const over =
        context === undefined
          ? settled === p.total
          : context.isClosed || (p.total > 0 && follower.settledAll);
      const key = `${p.done},${p.failed},${p.running},${p.queued},${p.total}`;
      if (key !== last || over || now - shownAt >= REFRESH_MS) {
        last = key;
        shownAt = now;
        onProgress?.(p);
        yield p;
      }
      if (over) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, interval);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    follower.onSettle = undefined;
    follower.close();
  }
}

/** Adds elapsed time, rate and ETA to counts taken `elapsed` ms after following began. */
function withTiming(c: TaskCounts, elapsed: number): Progress {
  const settled = c.done + c.failed;
  const rate = settled > 0 && elapsed > 0 ? (settled * 1000) / elapsed : 0;
  const left = c.total - settled;
  const eta = left === 0 ? 0 : rate > 0 ? (left / rate) * 1000 : undefined;
  return { ...c, elapsed, rate, eta };
}

/** @internal Throws unless `tasks` is an iterable of DTasks; returns them as an array. */
export function checkTasks(caller: string, tasks: unknown): DTask<unknown>[] {
  if (tasks === null || typeof tasks !== 'object' || !(Symbol.iterator in tasks)) {
    throw new ArgumentError(
      `${caller}: expects a Context or an array (or other iterable) of the DTasks spawn() returned, got ${describe(tasks)}`,
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
  checkOptions(options, {
    known: ['onProgress', 'interval'],
    notObject: (o) => `progress: options must be an object, got ${describe(o)}`,
    unknownKey: (key) =>
      `progress: unknown option '${key}'; the options are onProgress and interval`,
  });
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
