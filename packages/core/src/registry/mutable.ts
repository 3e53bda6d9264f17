import { Chunk } from '../chunk/chunk.js';
import { mutablePlace } from '../chunk/mutable-place.js';
import { ArgumentError } from '../errors/errors.js';
import { currentWorker } from '../processor/current-worker.js';
import { OSProc } from '../processor/os-proc.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { type AbstractScope, AnyScope, ExactScope, isScope, ProcessScope } from '../scope/index.js';
import type { DTask } from '../task/dtask.js';
import { spawnTask } from '../task/spawn-task.js';
import { TaskState } from '../task/task-state.js';
import { currentScheduler } from './default-context.js';

/** Where `mutable` makes its data. */
export interface MutableOptions {
  /** Run `f` on some thread of this worker. */
  worker?: number;
  /** Run `f` on exactly this processor. */
  processor?: Processor;
  /** Run `f` within this scope. */
  scope?: AbstractScope;
}

/**
 * Dagger's `mutable`: runs `f()` on one processor of the given place and returns at once a
 * `Chunk` of its result, pinned there: tasks that take the chunk run on that processor, get
 * that very object (not a copy, however small) and may mutate it, so each sees the writes of
 * those before. Tasks taking it wait for `f` to finish.
 *
 * The processor is chosen at the call, so the chunk's `processor` and `scope` (an
 * `ExactScope`) never change: `processor` if given, else one of the threads within `scope`
 * or `{ worker }` (anywhere by default) that default-scoped tasks may use, so that they can
 * take the chunk (the main thread only when nothing else fits or it is named). A mutable
 * pinned to a processor outside `DefaultScope` (the main thread, once worker threads exist)
 * is still taken there by default-scoped tasks. Called inside a task on a worker thread, or
 * for a worker that has not joined yet, the place is left to the scheduler and the chunk is
 * pinned to where `f` ran (its scope is the place given until then).
 */
export function mutable<T>(f: () => T, options: MutableOptions = {}): Chunk<Awaited<T>> {
  if (typeof f !== 'function') throw new ArgumentError('mutable(f, options): f must be a function');
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentError('mutable(f, options): options must be { worker?, processor?, scope? }');
  }
  const { worker, processor, scope } = options;
  if (worker !== undefined && !(Number.isInteger(worker) && worker > 0)) {
    throw new ArgumentError('mutable(f, { worker }): worker must be a positive integer');
  }
  if (processor !== undefined && !isProcessor(processor)) {
    throw new ArgumentError('mutable(f, { processor }): processor must be a Processor');
  }
  if (scope !== undefined && !isScope(scope)) {
    throw new ArgumentError('mutable(f, { scope }): scope must be a scope');
  }
  const where =
    scope ??
    (processor
      ? new ExactScope(processor)
      : worker !== undefined
        ? new ProcessScope(worker)
        : undefined);
  const owner = currentScheduler();
  const place = processor ?? mutablePlace(owner, where, f);
  if (place !== undefined) {
    // Pinned by its result scope: the runtime keeps even a small result where it was made.
    const exact = new ExactScope(place);
    const task = spawnTask(owner, { scope: exact, resultScope: exact }, [f]) as DTask<Awaited<T>>;
    return new Chunk<Awaited<T>>(
      {
        pending: task,
        task,
        pinned: true,
        processor: place,
        scope: exact,
        fetch: () => task.fetch(),
      },
      exact,
    );
  }
  const task = spawnTask(owner, where ? { scope: where } : {}, [f]) as DTask<Awaited<T>>;
  return new Chunk<Awaited<T>>(
    {
      pending: task,
      task,
      pinned: true,
      get processor(): Processor {
        return task.proc ?? processor ?? new OSProc(worker ?? currentWorker());
      },
      get scope(): AbstractScope | undefined {
        return task.state === TaskState.Done && task.proc ? new ExactScope(task.proc) : where;
      },
      fetch: () => task.fetch(),
    },
    where ?? new AnyScope(),
  );
}
