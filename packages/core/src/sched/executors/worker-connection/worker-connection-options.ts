import type { Processor } from '../../../processor/processor.js';
import type { SchedulerState } from '../../scheduler-state.js';
import type { WorkerConnection } from './worker-connection.js';

/** Options of a `WorkerConnection`. */
export interface WorkerConnectionOptions {
  /** The processor the runtime on the other end runs tasks as. */
  processor: Processor;
  /** The scheduler that nested `spawn`s from the worker go to. */
  scheduler: SchedulerState;
  /** Tasks sent ahead per processor beyond the one running (keeps the worker busy). */
  queueAhead?: number;
  /**
   * Estimated milliseconds it costs to give work to this runtime's processor while it is idle:
   * waking a process whose caches have gone cold, one more batch each way. Placement packs a
   * task whose learned run time is shorter on a processor already at work rather than wake
   * another (see `chooseSlot`). Default 0: a thread of this process is cheap to wake.
   */
  wakeMs?: number;
  /** Modules to resolve functions that travel by name (`everywhere`), by specifier. */
  modules?: Map<string, Record<string, unknown>>;
  /** Called when the connection closes or breaks, before in-flight tasks are handed back. */
  onLost?: (connection: WorkerConnection, reason: unknown) => void;
  /**
   * Ends the worker by force (e.g. `Worker.terminate`). Used when a cancelled task has not
   * stopped within `cancelGraceMs`; that kill does not count against the task limit.
   */
  terminate?: () => void;
  /** How long a cancelled running task may take to stop before its worker is ended (ms). */
  cancelGraceMs?: number;
  /**
   * The runtime's `runningTask` memory (see `WorkerRuntimeOptions`): names a crash's culprit
   * and the in-place tasks that began.
   */
  runningTask?: Float64Array;
  /**
   * Whether the runtime on the other end has a peer link to the runtime behind `other`, so it
   * can take `other`'s results directly; when it has none they come through this thread.
   * Default: linked to none. Plugins that start workers say which of their own are linked
   * (`@dtask/threads`: all its threads; `@dtask/cluster`: the worker processes that have linked
   * to each other); a worker in a thread of its own (a GPU processor's) has no peers.
   */
  linkedTo?: (other: WorkerConnection) => boolean;
}
