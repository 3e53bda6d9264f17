import type { DTask } from '../task/dtask.js';
import { fetchAll } from '../task/fetch-all.js';
import type { SpawnBatch } from './spawn-batch.js';

/** The items' iterator, and whether its `next` returns promises. */
export interface ItemSource {
  iterator: Iterator<unknown> | AsyncIterator<unknown>;
  isAsync: boolean;
}

/** Tasks spawned together, and their values as one promise (undefined if one failed). */
interface Batch {
  tasks: DTask<unknown>[];
  values: Promise<unknown[] | undefined>;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

function noop(): void {}

/**
 * What `map` returns: the results of the tasks spawned from the source's items, in input
 * order, read lazily. It refills a batch at a time, once a whole batch fits under
 * `concurrency`; a batch's tasks are read with one listener for the batch (`fetchAll`), and
 * its values are then handed out one `next()` each, a resolved promise and a result object
 * apiece: no generator to resume, no await, no promise or listener per task. A failed item
 * throws its `DTaskFailedError` at its place. Leaving early (`return`, or a throw from the
 * source, a spawn or a task) cancels the tasks in flight and closes the source's iterator.
 *
 * Calls behave as an async generator's: each `next`, `return` and `throw` runs after the ones
 * before it have settled, and once finished every `next` gives `{ done: true }`.
 */
export class MapResults<R> implements AsyncIterableIterator<R> {
  private readonly batches: (Batch | undefined)[] = [];
  private head = 0;
  /** Items spawned whose values have not been taken from their batch yet. */
  private inFlight = 0;
  /** The source has ended. */
  private ended = false;
  /** Finished (returned, thrown, or every item read): nothing more to give. */
  private finished = false;
  /** A `next` has read from the source (an async generator's body has started). */
  private started = false;
  /** The values of the batch being handed out, and the index of the next one to give. */
  private values: unknown[] | undefined = undefined;
  private at = 0;
  /** The tasks of a batch that failed, given one `await` each until the failed one throws. */
  private failing: DTask<unknown>[] | undefined = undefined;
  /** Calls not yet settled, and the last of them: a call waits for the one before it. */
  private pending = 0;
  private last: Promise<unknown> | undefined = undefined;

  constructor(
    private readonly source: ItemSource,
    private readonly spawnBatch: SpawnBatch,
    /** Each item as a task's argument array. */
    private readonly argsOf: (item: unknown) => unknown[],
    private readonly batchSize: number,
    private readonly concurrency: number,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<R>> {
    // The common case: the batch being handed out has a value left, and no call is pending.
    const values = this.values;
    if (values !== undefined && this.pending === 0 && this.at < values.length) {
      // (The array is dropped once handed out: writing holes into it would convert a batch of
      // doubles to boxed numbers.)
      return Promise.resolve({ value: values[this.at++] as R, done: false });
    }
    return this.after(this.pull);
  }

  return(value?: unknown): Promise<IteratorResult<R>> {
    return this.after(async () => {
      await this.close();
      return { value: value as R, done: true };
    });
  }

  throw(error?: unknown): Promise<IteratorResult<R>> {
    return this.after(async () => {
      await this.close();
      throw error;
    });
  }

  /** Runs `step` once the calls before it have settled. */
  private after(step: () => Promise<IteratorResult<R>>): Promise<IteratorResult<R>> {
    this.pending++;
    const previous = this.last;
    const result = (previous === undefined ? step() : previous.then(step)).finally(() => {
      if (--this.pending === 0) this.last = undefined;
    });
    this.last = result.then(noop, noop);
    return result;
  }

  /** The next result, reading and spawning more items as room allows. */
  private readonly pull = async (): Promise<IteratorResult<R>> => {
    if (this.finished) return DONE;
    this.started = true;
    try {
      while (true) {
        const values = this.values;
        if (values !== undefined) {
          if (this.at < values.length) {
            return { value: values[this.at++] as R, done: false };
          }
          this.values = undefined;
        }
        const failing = this.failing;
        if (failing !== undefined) {
          if (this.at < failing.length) {
            const task = failing[this.at] as DTask<unknown>;
            const value = (await task) as R; // throws at the failed one
            this.at++;
            return { value, done: false };
          }
          this.failing = undefined;
        }
        await this.refill();
        if (this.head === this.batches.length) {
          this.finished = true;
          return DONE;
        }
        const batch = this.batches[this.head] as Batch;
        this.batches[this.head++] = undefined;
        if (this.head > 1024 && this.head * 2 > this.batches.length) {
          this.batches.splice(0, this.head);
          this.head = 0;
        }
        const got = await batch.values;
        this.inFlight -= batch.tasks.length;
        this.at = 0;
        if (got !== undefined) this.values = got;
        else this.failing = batch.tasks;
      }
    } catch (error) {
      await this.close();
      throw error;
    }
  };

  /** Reads and spawns whole batches while one more fits under `concurrency`. */
  private async refill(): Promise<void> {
    const { iterator, isAsync } = this.source;
    while (!this.ended && this.inFlight + this.batchSize <= this.concurrency) {
      // Read the whole batch, then spawn it without an await between: the scheduler then
      // places it in one pass (spawns across awaits would each go alone).
      const argLists: unknown[][] = [];
      while (argLists.length < this.batchSize) {
        // A sync source is read without an await per item.
        const next = isAsync
          ? await (iterator as AsyncIterator<unknown>).next()
          : (iterator as Iterator<unknown>).next();
        if (next.done) {
          this.ended = true;
          break;
        }
        argLists.push(this.argsOf(next.value));
      }
      if (argLists.length === 0) return;
      const tasks: DTask<unknown>[] = [];
      try {
        this.spawnBatch(argLists, tasks);
      } catch (error) {
        for (const task of tasks) task.cancel();
        throw error;
      }
      // One listener for the batch; a rejection is read in order, task by task (`failing`).
      const values = fetchAll(tasks).catch(() => undefined);
      this.batches.push({ tasks, values });
      this.inFlight += tasks.length;
    }
  }

  /** Finishes: cancels the tasks still in flight and, if it was read from, closes the source. */
  private async close(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.values = undefined;
    for (const task of this.failing ?? []) task.cancel();
    this.failing = undefined;
    for (let i = this.head; i < this.batches.length; i++)
      for (const task of this.batches[i]?.tasks ?? []) task.cancel();
    this.batches.length = 0;
    if (this.started && !this.ended) await this.source.iterator.return?.();
  }
}
