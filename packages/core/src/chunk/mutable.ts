import { ArgumentError } from '../errors/errors.js';
import { currentWorker } from '../processor/current-worker.js';
import { OSProc } from '../processor/os-proc.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { currentScheduler } from '../registry/default-context.js';
import { type AbstractScope, AnyScope, ExactScope, isScope, ProcessScope } from '../scope/index.js';
import type { DTask } from '../task/dtask.js';
import { spawnTask } from '../task/spawn-task.js';
import { TaskState } from '../task/task-state.js';
import { Chunk } from './chunk.js';

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
 * Dagger's `mutable`: runs `f()` on the given place (default: wherever a task may run) and returns at once a `Chunk` of its
 * result, pinned to the processor that ran it: tasks that take the chunk run there and may
 * mutate the data in place. Tasks taking it wait for `f` to finish.
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
  const task = spawnTask(currentScheduler(), where ? { scope: where } : {}, [f]) as DTask<
    Awaited<T>
  >;
  return new Chunk<Awaited<T>>(
    {
      pending: task,
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
