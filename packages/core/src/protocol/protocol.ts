import type { SerializedError } from '../errors/serialize-error.js';
import type { LogEvent } from '../log/log-event.js';
import type { ScopeSpec } from '../scope/index.js';
import type { FnRef } from '../travel/function-ref.js';

/**
 * References inside an argument list, flattened: for each entry `[index, key, holder]` the
 * argument at `index` is the result stored under `key` by runtime `holder` ('' = the
 * receiver itself; it may not exist yet, in which case the task waits for it there). An entry
 * whose index is `AWAITED` names a result of the receiver that no argument takes: the task
 * starts only once it exists (a task queue's ordering, awaited on the worker).
 */
export type ArgRefs = [index: number, key: number, holder: string][];

/** The index of an `ArgRefs` entry that the task waits for without taking its value. */
export const AWAITED = -1;

/** Task options as plain data (scopes as specs; options that cannot travel are dropped). */
export interface PlainOptions {
  name?: string;
  meta?: boolean;
  occupancy?: number;
  scope?: ScopeSpec;
  computeScope?: ScopeSpec;
  resultScope?: ScopeSpec;
  device?: string;
  /** `returnArgs` indices: arguments sent back with the completion (copy-in/copy-out). */
  returnArgs?: number[];
  /** `inPlaceArgs`: the runtime keeps the task's result where it ran (never inline). */
  inPlaceArgs?: number[];
  /** `inPlace`: the task writes shared memory in place; the runtime says when it begins. */
  inPlace?: boolean;
}

/**
 * A run message's options: a task whose only option that travels is `inPlace` (a datadeps
 * region's task over shared memory) sends this number instead of `{ inPlace: true }`, an object
 * with a key to write, look up and rebuild per task.
 */
export const IN_PLACE_RUN = 1;

/** The options a `RunRecord` carries (`toRunOptions`). */
export type RunOptions = PlainOptions | typeof IN_PLACE_RUN;

/** Tag of a `RunRecord`. */
export const RUN = 1;
/** Tag of a `DoneRecord`. */
export const DONE = 2;

/**
 * "Run task `id`": the hot message, a tuple rather than an object so that a batch of
 * thousands clones without repeating property names; trailing fields that are undefined are
 * left out. `fn` is a number once the receiver
 * knows the function. `inherited`: options that propagate to tasks it spawns.
 */
export type RunRecord = [
  tag: typeof RUN,
  id: number,
  fn: FnRef | number,
  args: unknown[],
  refs?: ArgRefs | undefined,
  options?: RunOptions | undefined,
  inherited?: PlainOptions | undefined,
];

/** Tag of a `RunPack`. */
export const RUNS = 3;
/** Tag of a `DonePack`. */
export const DONES = 4;

/**
 * Many plain "run task" records in one flat array, in groups of tasks of one function and
 * arity: `fn`, `argc`, the group's task count, then for each task its `id` and its `argc`
 * arguments (a burst of `spawn(f, i)` costs two values per task). Only tasks with no refs,
 * options or transfer whose arguments are all primitives (which always clone) travel so: a
 * batch of them clones as one array, where `RunRecord`s cost two objects per task to clone on
 * one side and to build on the other.
 */
export type RunPack = [tag: typeof RUNS, ...fields: unknown[]];

/**
 * Many `DoneRecord`s in one flat array, three values each: `id, ms, value` for a result that
 * came inline (its wire value a primitive), `-id - 1, ms, bytes` for one that stays on the
 * runtime; only for results with no returned arguments.
 */
export type DonePack = [tag: typeof DONES, ...fields: unknown[]];

/**
 * "Task `id` finished": its result is kept under key `id`; `inline` results (small ones)
 * ride along as `value`.
 */
export type DoneRecord = [
  tag: typeof DONE,
  id: number,
  bytes: number,
  ms: number,
  inline: 0 | 1,
  value: unknown,
  /** Final values of the arguments named by the task's `returnArgs` option, if any. */
  args?: unknown[],
];

/** Scheduler → runtime. */
export type ToWorker =
  | RunRecord
  | RunPack
  /** `take`: the scheduler keeps the value from now on; drop it and transfer its buffers. */
  | { op: 'fetch'; req: number; key: number; take?: boolean }
  | { op: 'release'; keys: number[] }
  | { op: 'cancel'; id: number }
  /** Forget a task sent ahead that has not started (it is placed again); no answer. */
  | { op: 'withdraw'; id: number }
  /**
   * Hand back those of these tasks that have not started (a processor that joined while they
   * waited here takes them): answered with `value`, the ids dropped here.
   */
  | { op: 'giveBack'; req: number; ids: number[] }
  | { op: 'reply'; req: number; value: unknown }
  | { op: 'reject'; req: number; error: SerializedError }
  /**
   * Logging was switched on or off on the scheduler's thread: record events here and send
   * them (`logs`), unless `realm` is this thread's own log (`logRealm`).
   */
  | { op: 'logging'; enabled: boolean; realm: number }
  /** A clock probe: answer with this runtime's `now()` (see `LogRelay`). */
  | { op: 'clock'; t0: number }
  /**
   * Which tasks sent here have started (the context is closing): answered with `value`, its
   * `value` the ids of the tasks this runtime holds that started (`key` 0). The runtime starts
   * no task after it answers.
   */
  | { op: 'started'; req: number }
  | { op: 'close' };

/** Runtime → scheduler. */
export type FromWorker =
  | DoneRecord
  | DonePack
  | { op: 'ready'; holder: string }
  /**
   * Every task held here is stalled (true), or one can make progress again (false); `seen`:
   * how many batches the runtime had received from the scheduler when it decided.
   */
  | { op: 'stalled'; stalled: boolean; seen: number }
  | { op: 'fail'; id: number; error: SerializedError; ms: number }
  /**
   * Task `id` (an `inPlace` one) is about to begin: sent at once, before its function runs,
   * so that if the worker dies the scheduler knows its writes may have happened.
   */
  | { op: 'began'; id: number }
  /** A fetched result; `key` (its task's id) names it in an error if it cannot be sent. */
  | { op: 'value'; req: number; value: unknown; key: number }
  | { op: 'error'; req: number; error: SerializedError }
  | {
      op: 'spawn';
      id: number;
      fn: FnRef | number;
      args: unknown[];
      /** `[index, taskId]`: arguments that are tasks this runtime spawned earlier. */
      taskArgs?: [number, number][];
      options?: PlainOptions;
      inherited?: PlainOptions;
    }
  | { op: 'fetchTask'; req: number; id: number }
  | { op: 'waitTask'; req: number; id: number }
  | { op: 'cancelTask'; id: number }
  | { op: 'releaseTask'; ids: number[] }
  /** Events recorded here, times on this runtime's clock. */
  | { op: 'logs'; events: LogEvent[] }
  /**
   * The answer to a clock probe: `t0` as sent, `t1` this runtime's `now()` on receipt, and at
   * the same instant `mono`, its machine's monotonic clock, with `machine` its boot id (if any).
   */
  | { op: 'clock'; t0: number; t1: number; mono?: number; machine?: string }
  /** Results held here moved from device to host memory (`LocalStore.onMovedToHost`). */
  | { op: 'movedToHost'; keys: number[] }
  /**
   * Nested tasks this runtime placed and ran itself (`OwnedTasks`) that settled since its last
   * such report: how many finished with a value, how many failed.
   */
  | { op: 'owned'; finished: number; failed: number }
  | DynamicRequest;

/**
 * Dynamic scheduler control from a task running in the runtime (`schHandle()` there): asks
 * the scheduler to act for the running task `task`. `fetch`/`wait` of task `id` and `exec` of
 * `fn` are answered with `reply`/`reject` under `req`; `halt` is not answered; `dagIds` is
 * answered in shared memory (see `sync-answer.ts`), since `getDagIds` is synchronous.
 */
export type DynamicRequest =
  | { op: 'dynamic'; verb: 'fetch' | 'wait'; req: number; task: number; id: number }
  | { op: 'dynamic'; verb: 'exec'; req: number; task: number; fn: FnRef | number }
  | { op: 'dynamic'; verb: 'halt'; task: number }
  | { op: 'dynamic'; verb: 'dagIds'; task: number; answer: SharedArrayBuffer };

/** Runtime → runtime (peer to peer). */
export type PeerMessage =
  | { op: 'peerFetch'; req: number; key: number }
  | { op: 'value'; req: number; value: unknown; key: number }
  | { op: 'error'; req: number; error: SerializedError }
  | PeerStreamMessage;

/**
 * A streaming edge between tasks on two peer runtimes (`from` the producer's task id, `to` the
 * consumer's): the consumer asks for the values to come to it directly (`streamAttach`, at most
 * `capacity` unread at a time); the producer sends them in order (`streamValues`; `end` when
 * no more will come, with `error` when a value could not be copied); the consumer says how many
 * it read (`streamRead`, which lets the producer send as many more; `drop` when it reads no
 * more).
 */
export type PeerStreamMessage =
  | { op: 'streamAttach'; from: number; to: number; capacity: number }
  | {
      op: 'streamValues';
      from: number;
      to: number;
      /** The values in order (a `Float64Array` when they are all numbers). */
      values: ArrayLike<unknown>;
      end: boolean;
      error?: SerializedError;
    }
  | { op: 'streamRead'; from: number; to: number; n: number; drop: boolean };

/** Results up to this many bytes ride along in the completion message. */
export const INLINE_RESULT_BYTES = 1024;

/** Whether `v` clones as itself, whatever it is (no object, function or symbol). */
export function isPlainPrimitive(v: unknown): boolean {
  const t = typeof v;
  return v === null || (t !== 'object' && t !== 'function' && t !== 'symbol');
}
