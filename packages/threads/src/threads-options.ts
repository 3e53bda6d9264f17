import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import { ArgumentError } from '@dtask/core';
import { checkOptions, describeValue, type OptionsShape, unknownOption } from '@dtask/core/plugin';

/** Options of `threads()`. */
export interface ThreadsOptions {
  /**
   * Worker threads to start, a fixed number (threads 2 … count+1); default: available
   * parallelism. Not with `min`/`max`.
   */
  count?: number;
  /**
   * The fewest threads of a pool that grows and shrinks (Piscina's `minThreads`): started at
   * once, never retired. Default 1 when `max` is given.
   */
  min?: number;
  /**
   * The most threads of a pool that grows and shrinks (Piscina's `maxThreads`): a thread is
   * added while tasks wait and every thread is busy. Default: the larger of `min` and the
   * available parallelism when `min` is given.
   */
  max?: number;
  /**
   * How long a thread beyond `min` may stay idle before it is retired (ms; Piscina's
   * `idleTimeout`). Default 1000. Only with `min`/`max`.
   */
  idleTimeoutMs?: number;
  /** Per-thread V8 limits; a thread that runs out of memory is replaced like one that crashed. */
  resourceLimits?: ResourceLimits;
  /**
   * Node flags for the threads, used as given; default: the main thread's (so `--import tsx`
   * carries over) without those that change what runs (`-e`, `-p`, `--input-type`, `--test`, …;
   * see core's `threadExecArgv`).
   */
  execArgv?: string[];
  /** How long a cancelled running task may take to stop before its thread is replaced (ms). */
  cancelGraceMs?: number;
  /**
   * Most tasks queued ahead on each thread beyond the running one (default 1024); the scheduler
   * also keeps only about 8 ms of estimated work queued there.
   */
  queueAhead?: number;
}

/** `threads()`' options checked, with their defaults. */
export interface ValidThreadsOptions {
  /** Threads started at once. */
  min: number;
  /** Threads at most (`min` for a fixed-size pool). */
  max: number;
  idleTimeoutMs: number;
  cancelGraceMs: number;
  queueAhead: number;
}

/** The default `idleTimeoutMs`. */
export const IDLE_TIMEOUT_MS = 1000;

/** The longest delay `setTimeout` takes (longer ones fire at once). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const SHAPE: OptionsShape<keyof ThreadsOptions> = {
  known: [
    'count',
    'min',
    'max',
    'idleTimeoutMs',
    'resourceLimits',
    'execArgv',
    'cancelGraceMs',
    'queueAhead',
  ],
  notObject: (options) =>
    `threads(options): options must be an object such as { count: 2 }; got ${describeValue(options)}`,
  unknownKey: unknownOption('threads(options)'),
};

/** Checks `threads()`' options; throws `ArgumentError` saying what to write instead. */
export function validateThreadsOptions(options: ThreadsOptions): ValidThreadsOptions {
  checkOptions(options, SHAPE);
  const { min, max, idleTimeoutMs } = poolSize(options);
  const cancelGraceMs = options.cancelGraceMs ?? 1000;
  if (!(typeof cancelGraceMs === 'number' && cancelGraceMs >= 0)) {
    throw new ArgumentError(
      `threads({ cancelGraceMs }): must be a number of milliseconds ≥ 0; got ${describeValue(options.cancelGraceMs)}`,
    );
  }
  const queueAhead = options.queueAhead ?? 1024;
  if (!Number.isInteger(queueAhead) || queueAhead < 0) {
    throw new ArgumentError(
      `threads({ queueAhead }): must be an integer ≥ 0; got ${describeValue(queueAhead)}`,
    );
  }
  checkResourceLimits(options.resourceLimits);
  const { execArgv } = options;
  if (execArgv !== undefined && !(Array.isArray(execArgv) && execArgv.every(isString))) {
    throw new ArgumentError(
      `threads({ execArgv }): must be an array of strings, such as ['--max-semi-space-size=64']; got ${describeValue(execArgv)}`,
    );
  }
  return { min, max, idleTimeoutMs, cancelGraceMs, queueAhead };
}

/** `count`, or `min`/`max`/`idleTimeoutMs`, as the pool's bounds. */
function poolSize(
  options: ThreadsOptions,
): Pick<ValidThreadsOptions, 'min' | 'max' | 'idleTimeoutMs'> {
  const elastic = options.min !== undefined || options.max !== undefined;
  if (options.count !== undefined && elastic) {
    throw new ArgumentError(
      `threads({ count, min, max }): give either count (a fixed number of threads) or min and max (a pool that grows and shrinks), not both; got count ${describeValue(options.count)} with ${options.min !== undefined ? `min ${describeValue(options.min)}` : `max ${describeValue(options.max)}`}`,
    );
  }
  if (!elastic) {
    if (options.idleTimeoutMs !== undefined) {
      throw new ArgumentError(
        `threads({ idleTimeoutMs }): only a pool that grows and shrinks retires idle threads; give min and max with it, such as { min: 1, max: 4, idleTimeoutMs: ${typeof options.idleTimeoutMs === 'number' ? options.idleTimeoutMs : IDLE_TIMEOUT_MS} }`,
      );
    }
    const count = options.count ?? availableParallelism();
    if (!Number.isInteger(count) || count < 1) {
      throw new ArgumentError(
        `threads({ count }): count must be a positive integer; got ${describeValue(options.count)}`,
      );
    }
    return { min: count, max: count, idleTimeoutMs: IDLE_TIMEOUT_MS };
  }
  const min = options.min ?? 1;
  if (!Number.isInteger(min) || min < 1) {
    throw new ArgumentError(
      `threads({ min }): must be a positive integer (the threads always running); got ${describeValue(options.min)}`,
    );
  }
  const max = options.max ?? Math.max(min, availableParallelism());
  if (!Number.isInteger(max) || max < min) {
    throw new ArgumentError(
      `threads({ max }): must be an integer ≥ min (${min}); got ${describeValue(options.max)}`,
    );
  }
  const idleTimeoutMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  if (
    !(typeof idleTimeoutMs === 'number' && idleTimeoutMs >= 0 && idleTimeoutMs <= MAX_TIMEOUT_MS)
  ) {
    throw new ArgumentError(
      `threads({ idleTimeoutMs }): must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}; got ${describeValue(options.idleTimeoutMs)}`,
    );
  }
  return { min, max, idleTimeoutMs };
}

const LIMITS = [
  'maxOldGenerationSizeMb',
  'maxYoungGenerationSizeMb',
  'codeRangeSizeMb',
  'stackSizeMb',
];

/** `resourceLimits` as `new Worker` takes it: an object of positive sizes in MB. */
function checkResourceLimits(limits: unknown): void {
  if (limits === undefined) return;
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    throw new ArgumentError(
      `threads({ resourceLimits }): must be an object such as { maxOldGenerationSizeMb: 512 }; got ${describeValue(limits)}`,
    );
  }
  for (const [key, value] of Object.entries(limits)) {
    if (!LIMITS.includes(key)) {
      throw new ArgumentError(
        `threads({ resourceLimits }): unknown limit '${key}'; known: ${LIMITS.join(', ')}`,
      );
    }
    if (!(typeof value === 'number' && value > 0)) {
      throw new ArgumentError(
        `threads({ resourceLimits }): ${key} must be a positive number of MB; got ${describeValue(value)}`,
      );
    }
  }
}

function isString(x: unknown): x is string {
  return typeof x === 'string';
}
