import { type Chunk, isChunk, type PieceChunk } from '../chunk/chunk.js';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { messageOf } from '../errors/message-of.js';
import { isPlainObject } from '../options/index.js';
import { argTypesOf } from './arg-types-of.js';
import { applyDefaultOptions, hasDefaultOptions } from './default-option.js';
import { DTask, isDTask, type TaskOwner } from './dtask.js';
import { currentFrame, type Frame } from './frame.js';
import { mergeOptions, NO_OPTIONS, normalizeOptions, type TaskOptions } from './options.js';
import type { SubmitTask } from './task-queue-contract.js';
import { TaskFlags } from './task-state.js';

/**
 * An argument of type `A` may also be given as a task or chunk producing an `A`, or a chunk of
 * one `A` per processor (a shard).
 */
export type SpawnArgs<A extends unknown[]> = {
  [K in keyof A]: A[K] | DTask<A[K]> | Chunk<A[K]> | PieceChunk<A[K]>;
};

const ID_KEY = Symbol.for('dtask.taskIds');
/** The id counter, shared by every copy of the package in this thread. */
const ids: { next: number } = ((globalThis as Record<symbol, unknown>)[ID_KEY] ??= { next: 1 }) as {
  next: number;
};

/** A new program-wide task id. */
export function nextTaskId(): number {
  return ids.next++;
}

/** `n` consecutive new task ids: the first of them (a group task's outputs' keys). */
export function takeTaskIds(n: number): number {
  const base = ids.next;
  ids.next += n;
  return base;
}

/** Makes task ids in this thread start at `base` or later (worker runtimes use a range each). */
export function reserveTaskIds(base: number): void {
  if (ids.next < base) ids.next = base;
}

/**
 * The body of every `spawn`: splits options from the function, validates both, merges options
 * (explicit > withOptions > defaultOption), makes the task and hands it to the current task
 * queue or to `scheduler`. Throws `ArgumentError` for a bad call; never schedules half a task.
 */
export function spawnTask(scheduler: TaskSink, first: unknown, rest: unknown[]): DTask<unknown> {
  let fn: unknown;
  let args: unknown[];
  let explicit = NO_OPTIONS;
  if (typeof first === 'function') {
    fn = first;
    args = rest;
  } else if (isPlainObject(first)) {
    explicit = normalizeOptions(first, 'spawn');
    fn = rest[0];
    args = rest.slice(1);
  } else {
    fn = first;
    args = rest;
  }
  if (typeof fn !== 'function' && !isChunk(fn)) {
    throw new ArgumentError(
      `spawn(f, ...args): f must be a function or a Chunk holding one; got ${describeValue(fn)}. ` +
        'Options, if any, come first: spawn({ name: "x" }, f, ...args)',
    );
  }
  checkArgs(args);
  const frame = currentFrame();
  const inherited = frame === undefined ? NO_OPTIONS : frame.propagated;
  return submitNew(scheduler, frame, inherited, mergeOptions(inherited, explicit), fn, args);
}

/**
 * `spawnTask` for many tasks of one function with the same options, spawned together (a batch
 * of `map`): the caller has checked `fn` and normalized `explicit` once, and the frame and the
 * merged options are read once, so each task costs only its argument check, its admission and
 * its submission. Each entry of `argLists` becomes one task's argument array (it is not copied).
 * Pushes each task onto `out` as it is made, so that a caller whose later task throws (a
 * thenable argument, `QueueFullError`) can cancel those already spawned.
 */
export function spawnEach(
  scheduler: TaskSink,
  explicit: TaskOptions,
  fn: unknown,
  argLists: readonly unknown[][],
  out: DTask<unknown>[],
): void {
  const frame = currentFrame();
  const inherited = frame === undefined ? NO_OPTIONS : frame.propagated;
  const options = mergeOptions(inherited, explicit);
  for (let i = 0; i < argLists.length; i++) {
    const args = argLists[i] as unknown[];
    checkArgs(args);
    out.push(submitNew(scheduler, frame, inherited, options, fn, args));
  }
}

/**
 * Throws `ArgumentError` for an argument that is a promise or another thenable (an `await`
 * missing: a `DTask` is the one thenable taken), or that cannot be read at all.
 */
function checkArgs(args: unknown[]): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null) continue;
    let thenable = false;
    try {
      // A task handle first: the one thenable taken, and most object arguments of a graph.
      thenable = !isDTask(a) && typeof (a as { then?: unknown }).then === 'function';
    } catch (cause) {
      // A proxy whose traps throw, or a revoked one: it can be neither read nor copied.
      throw new ArgumentError(
        `spawn(f, ...args): argument ${i + 1} cannot be read (${messageOf(cause)}): a proxy whose ` +
          'traps throw, or a revoked one, can be neither used as a dependency nor copied to a ' +
          'worker. Pass plain data (a copy of what it holds).',
        { cause },
      );
    }
    if (thenable) {
      throw new ArgumentError(
        `spawn(f, ...args): argument ${i + 1} is a Promise (or another thenable), not a value or a DTask; ` +
          'is an `await` missing? Pass the awaited value, or spawn the work that makes it and pass that DTask',
      );
    }
  }
}

/**
 * Makes the task (with the defaults `defaultOption` gives it), admits it and hands it to the
 * frame's task queue or to `scheduler`.
 */
function submitNew(
  scheduler: TaskSink,
  frame: Frame | undefined,
  inherited: TaskOptions,
  merged: TaskOptions,
  fn: unknown,
  args: unknown[],
): DTask<unknown> {
  let options = merged;
  if (hasDefaultOptions()) {
    options = applyDefaultOptions(options, fn, argTypesOf(args), scheduler);
  }
  const flags = scheduler.admit === undefined ? 0 : scheduler.admit(fn, options);
  const task = makeTask(scheduler, nextTaskId(), fn, args, options, inherited);
  task.flags = frame?.frameTask === undefined ? flags : flags | TaskFlags.Nested;
  const queue = frame === undefined ? undefined : frame.queue;
  if (queue !== undefined) {
    const early = queue.startEarly === true;
    const ahead = queue.awaitsOnWorkers === true;
    queue.enqueue(task, SUBMITTERS[(early ? 1 : 0) + (ahead ? 2 : 0)]);
  } else scheduler.submit(task);
  return task;
}

/**
 * What task queues are handed to submit a task: its owner's `submit` (the sink `submitNew`
 * made it with), one function per kind of queue (`startEarly`, `awaitsOnWorkers`), made once,
 * not a closure per task.
 */
const SUBMITTERS: readonly SubmitTask[] = [
  (t, extra, here) => (t.owner as TaskSink).submit(t, extra, false, here, false),
  (t, extra, here) => (t.owner as TaskSink).submit(t, extra, true, here, false),
  (t, extra, here) => (t.owner as TaskSink).submit(t, extra, false, here, true),
  (t, extra, here) => (t.owner as TaskSink).submit(t, extra, true, here, true),
];

/** Makes a task object (not yet submitted); used by `spawnTask` and by worker connections. */
export function makeTask(
  owner: TaskSink,
  id: number,
  fn: unknown,
  args: unknown[],
  options: TaskOptions,
  inherited: TaskOptions,
): DTask<unknown> {
  return new DTask(owner, id, fn, args, options, inherited);
}

/** Where `spawn` hands tasks: the scheduler, or a worker runtime's proxy of it. */
export interface TaskSink extends TaskOwner {
  /**
   * `early`: the task queue's `startEarly`; `here`: the queue asks to run the task on the
   * calling thread now if it is tiny (see `SubmitTask`); `ahead`: the queue's
   * `awaitsOnWorkers` (its extra dependencies may be awaited on a worker). A scheduler may
   * ignore all three.
   */
  submit(
    task: DTask<unknown>,
    extraDeps?: Iterable<unknown>,
    early?: boolean,
    here?: boolean,
    ahead?: boolean,
  ): void;
  /**
   * Checks that `fn` can run somewhere its options allow (throws `TaskFunctionError` if not)
   * and returns the task flags it implies (e.g. must run on this thread).
   */
  admit?(fn: unknown, options: TaskOptions): number;
}
