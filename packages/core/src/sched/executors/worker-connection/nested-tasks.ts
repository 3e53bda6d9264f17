import type { Chunk } from '../../../chunk/chunk.js';
import { ArgumentError } from '../../../errors/errors.js';
import { serializeError } from '../../../errors/serialize-error.js';
import type { Batcher } from '../../../protocol/batcher.js';
import { describeLent, type LentChunk } from '../../../protocol/lent-chunk.js';
import { fromPlainOptions } from '../../../protocol/plain-options.js';
import type { FromWorker, ToWorker } from '../../../protocol/protocol.js';
import type { DTask } from '../../../task/dtask.js';
import { callInFrame, ScopedFrame } from '../../../task/frame.js';
import { mergeOptions } from '../../../task/options.js';
import { makeTask } from '../../../task/spawn-task.js';
import { TaskFlags } from '../../../task/task-state.js';
import type { FunctionDecoder } from '../../../travel/function-ref.js';
import { submitTask } from '../../ready/submit-task.js';
import type { SchedulerState } from '../../scheduler-state.js';

/**
 * The scheduler's side of the tasks a worker's tasks spawn (`spawn` inside a task, proxied by
 * the runtime's `ProxyOwner`) and of the chunks lent to its `meta` tasks: submits those tasks
 * to the scheduler, answers the worker's fetches of and waits on them, cancels them, and holds
 * each (by id; a lent chunk by negative key) until the worker drops its handle. One per
 * `WorkerConnection`, which hands it these messages.
 */
export class NestedTasks {
  /** Tasks spawned from inside the worker, by id (until the worker drops its handles). */
  private readonly proxied = new Map<number, DTask<unknown>>();
  /** Chunks lent to `meta` tasks there, by (negative) key, until the worker drops them. */
  private readonly lent = new Map<number, Chunk<unknown>>();
  private lastLent = 0;

  constructor(
    /** Where the spawned tasks go. */
    private readonly scheduler: SchedulerState,
    /** Resolves the functions that travelled (by value or by module name). */
    private readonly decoder: FunctionDecoder,
    /** Messages to the worker (replies to its queries). */
    private readonly out: Batcher<ToWorker>,
  ) {}

  /** Lends `chunk` to a `meta` task there, under a new negative key (see `ArgTarget.lend`). */
  lend(chunk: Chunk<unknown>): LentChunk {
    const key = --this.lastLent;
    this.lent.set(key, chunk);
    return describeLent(key, chunk);
  }

  /**
   * The worker spawned a task: it is made here, under the id the worker gave it, with the
   * options it inherited, and submitted (after the tasks it takes or waits for). A function
   * that cannot be resolved makes a task that fails with the reason.
   */
  spawn(m: Extract<FromWorker, { op: 'spawn' }>): void {
    const scheduler = this.scheduler;
    let fn: Function;
    try {
      fn = this.decoder.decode(m.fn);
    } catch (error) {
      fn = () => {
        throw error;
      };
    }
    const extra: DTask<unknown>[] = [];
    for (const [index, id] of m.taskArgs ?? []) {
      const dep = this.proxied.get(id);
      if (!dep) continue;
      if (index >= 0) m.args[index] = dep;
      else extra.push(dep);
    }
    const inherited = fromPlainOptions(m.inherited);
    const options = mergeOptions(inherited, fromPlainOptions(m.options));
    // Made in the frame of its options, held for the synchronous call: AsyncLocalStorage
    // (`runWithFrame`) would turn Node 20's promise hooks on for the whole process, slowing
    // every promise of the scheduler's thread once a worker's task spawned one (each batch of a
    // streaming task on a worker is such a task).
    const task = callInFrame(new ScopedFrame(undefined, inherited, undefined), makeTask, [
      scheduler,
      m.id,
      fn,
      m.args,
      options,
      inherited,
    ]) as DTask<unknown>;
    task.flags |= TaskFlags.Nested;
    this.proxied.set(m.id, task);
    submitTask(scheduler, task, extra.length > 0 ? extra : undefined);
  }

  /** A task this worker spawned and still holds a handle to, by id. */
  known(id: number): DTask<unknown> | undefined {
    return this.proxied.get(id);
  }

  /** The worker fetches a task's value (or a lent chunk's), or waits for it: replies when it can. */
  query(m: Extract<FromWorker, { op: 'fetchTask' | 'waitTask' }>): void {
    const task = m.id < 0 ? this.lent.get(m.id) : this.proxied.get(m.id);
    if (!task) {
      const error = new ArgumentError(`Task #${m.id} is not known to the scheduler`);
      this.out.push({ op: 'reject', req: m.req, error: serializeError(error) });
      return;
    }
    const answer =
      m.op === 'waitTask' ? ('wait' in task ? task.wait() : Promise.resolve()) : task.fetch();
    answer.then(
      (value) =>
        this.out.push({ op: 'reply', req: m.req, value: m.op === 'waitTask' ? undefined : value }),
      (error) => this.out.push({ op: 'reject', req: m.req, error: serializeError(error) }),
    );
  }

  /** The worker cancelled task `id` (one it spawned). */
  cancel(id: number): void {
    this.proxied.get(id)?.cancel();
  }

  /** The worker dropped its handles to these tasks (negative ids: lent chunks). */
  release(ids: readonly number[]): void {
    for (const id of ids) {
      if (id < 0) this.lent.delete(id);
      else this.proxied.delete(id);
    }
  }
}
