import type { LocalStore } from '../chunk/local-store.js';
import type { Processor } from '../processor/processor.js';
import type { ValueAdapter } from './value-adapter.js';

/** Options of `startWorkerRuntime`. */
export interface WorkerRuntimeOptions {
  /** The worker (OS process) id this runtime runs in. */
  worker: number;
  /** The thread number of this runtime within its worker. */
  thread: number;
  /** The processor it runs tasks as (default `ThreadProc(worker, thread)`). */
  processor?: Processor;
  /** Modules loaded here with `everywhere`, by specifier (for functions that travel by name). */
  modules?: Map<string, Record<string, unknown>>;
  /** Sets this process's worker id (only for the first runtime of a new process). */
  setProcessWorker?: boolean;
  /**
   * Whether this thread may block until another thread writes a synchronous answer
   * (`getDagIds`) into memory it waits on, even where the transport does not share memory with
   * the scheduler. Default: yes in a worker thread whose transport shares memory, no elsewhere
   * (there `getDagIds` throws `DynamicTaskError`). A worker process whose transport has another
   * thread write the answers (@dtask/cluster's heartbeat thread) says yes, main thread included.
   */
  blockingAnswers?: boolean;
  /**
   * First id for tasks spawned in this runtime's thread. A runtime in its own thread or process
   * must set it to a range of its own (e.g. `(worker * 1024 + thread) * 2 ** 32`); one sharing
   * the scheduler's thread (tests) leaves it unset.
   */
  idBase?: number;
  /**
   * Shared memory (`runningTaskMemory()`) where the runtime writes the id of the task running
   * synchronously now (0 when none) and the in-place tasks begun since its last batch, so that
   * if the thread dies the scheduler knows which task was running and which may have written.
   */
  runningTask?: Float64Array;
  /**
   * Where results are kept (default: a `Map`). A storage plugin's `setupWorker` supplies one,
   * e.g. `@dtask/lmdb`'s store that spills to disk past a memory limit.
   */
  store?: LocalStore;
  /**
   * Converts values at this runtime's edges (see `ValueAdapter`): a GPU plugin's worker entry
   * gives one so that tasks receive tensors and results stay here as tensors.
   */
  adapter?: ValueAdapter;
  /**
   * Tell the scheduler when every task held here is stalled (unsettled with nothing left that
   * can make progress: see `StallWatch`), so that such tasks do not keep node alive, as they
   * would not on the main thread. For worker threads, whose event loop holds only this
   * runtime's channels besides the tasks' own timers and I/O.
   */
  watchStalls?: boolean;
}
