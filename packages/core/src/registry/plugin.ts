import type { LocalStore } from '../chunk/local-store.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import type { MoveRule } from '../processor/move-registry.js';
import type { Processor } from '../processor/processor.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import type { Transport } from '../protocol/transport.js';
import type { Executor } from '../sched/dispatch/executor.js';
import type {
  WorkerConnection,
  WorkerConnectionOptions,
} from '../sched/executors/worker-connection/worker-connection.js';
import type { Stats } from '../sched/stats/collect-stats.js';
import type { ScopeKeyDefinition } from '../scope/index.js';
import type { OptionMatcher } from '../task/default-option.js';
import type { DTask } from '../task/dtask.js';
import type { OptionNormalizer } from '../task/options.js';
import type { LocalThreadProc } from './main-thread.js';

/**
 * How busy one compute processor is (`PluginHost.processorLoad`): what a plugin that sizes its
 * pool of workers reads (`@dtask/threads`' `min`/`max`).
 */
export interface ProcessorLoad {
  /**
   * Occupancy units handed to its executor and not finished: the task it runs plus those
   * queued ahead on it (a worker's queue; `occupancy` 1 per task by default).
   */
  readonly inFlight: number;
  /** Tasks placed on it that wait in the scheduler for room there. */
  readonly parked: number;
}

/**
 * What `PluginHost.connectWorker` takes: a `WorkerConnection`'s options less what the host
 * supplies (the scheduler nested spawns go to, the context's `everywhere` modules).
 */
export type HostedWorkerOptions = Omit<WorkerConnectionOptions, 'scheduler' | 'modules'>;

/**
 * What a plugin reads of the context it is added to (`PluginHost.context`): a `Context` is one,
 * and is what a plugin is given. The contract names these members alone, so that it and the
 * `Context` class, which holds plugins, do not name each other.
 */
export interface PluginContext {
  /** The calling thread's processor (the main thread in the main process). */
  readonly localProc: LocalThreadProc;
  /** Modules loaded with `everywhere`, by URL: workers a plugin starts load them too. */
  readonly modules: Map<string, Record<string, unknown>>;
  /** True once `close()` was called. */
  readonly isClosed: boolean;
  /** The plugins added to the context (those with a `spec` are re-created in workers). */
  pluginList(): readonly Plugin[];
  /** The compute processors tasks can be placed on now. */
  processors(): Processor[];
  /** A storage device by name (`'ram'` always exists). */
  storageDevice(name: string): StorageDevice | undefined;
  /** Resolves once every plugin's (possibly async) setup has finished; rejects if one failed. */
  ready(): Promise<void>;
  /** Utilisation since the context was made (see `Context.stats`). */
  stats(): Stats;
  /** Calls `onTask` for each unsettled task and each task spawned from now on (see `Context.followTasks`). */
  followTasks(onTask: (task: DTask<unknown>) => void): () => void;
}

/**
 * What a plugin may do to the context it is added to. Registrations made here are undone
 * when the context closes.
 */
export interface PluginHost {
  /** The context being set up (a `Context`). */
  readonly context: PluginContext;
  /** Adds a compute processor; without an executor it runs tasks through `proc.execute`. */
  addProcessor(proc: Processor, executor?: Executor): void;
  /**
   * Stops placing tasks on `proc` (it finishes what it holds). `reason`, for a processor gone
   * for good, is named in the error of tasks scoped to it that can run nowhere else.
   */
  removeProcessor(proc: Processor, reason?: string): void;
  /** Adds a move rule (see `registerMove`). */
  registerMove(rule: MoveRule): void;
  /** Adds a scope key (see `registerScopeKey`). */
  registerScopeKey(key: string, definition: ScopeKeyDefinition): void;
  /** Adds a task option key (see `registerOption`). */
  registerOption(key: string, normalize?: OptionNormalizer): void;
  /** Adds a default option rule (see `defaultOption`) for this context's tasks only. */
  defaultOption(name: string, match: OptionMatcher, value: unknown): void;
  /** Makes a storage device available to tasks (`device` option) and `toChunk`. */
  addStorageDevice(device: StorageDevice): void;
  /** How busy `proc` is now; undefined when it is not a processor of this context (or removed). */
  processorLoad(proc: Processor): ProcessorLoad | undefined;
  /**
   * Calls `listener` when the load of the processors may have changed: after the scheduler
   * placed a round of ready tasks, and each time a task on a worker (not the calling thread)
   * ends. It runs inside the scheduler, possibly once per task: it must be cheap and must not
   * add or remove processors itself (defer that, e.g. with `queueMicrotask`). Undone when the
   * context closes.
   */
  onLoadChange(listener: () => void): void;
  /**
   * The scheduler's side of a worker the plugin started: a `WorkerConnection` over `transport`
   * to a worker runtime that runs tasks as `options.processor`. Tasks the worker spawns go to
   * this context's scheduler; functions sent by module reference resolve in its `everywhere`
   * modules. Add it with `addProcessor(options.processor, connection)`.
   */
  connectWorker(transport: Transport, options: HostedWorkerOptions): WorkerConnection;
}

/**
 * A dtask plugin: a plain object made by a factory (`threads({ count: 2 })`). Everything but
 * `name` is optional; `setup` may be async (the context's `ready()` waits for it).
 */
export interface Plugin {
  /** Unique per context, e.g. `threads`. */
  readonly name: string;
  /** How a worker process re-creates this plugin. */
  readonly spec?: PluginSpec;
  /** Registers what the plugin brings. */
  setup?(host: PluginHost): void | Promise<void>;
  /** Starts `count` more workers (enables `addProcs(ctx, count)`); resolves to their worker ids. */
  startWorkers?(count: number): Promise<number[]>;
  /**
   * Loads module `url` in every worker the plugin runs, now and when it starts more
   * (`everywhere`). The main thread has loaded it already.
   */
  loadModule?(url: string): Promise<void>;
  /**
   * Sets the plugin up inside a worker thread or process, where it was re-created from its
   * `spec` (a plugin without a `spec` is never re-created). Called by the worker's entry (e.g.
   * `@dtask/threads`' worker thread) before the worker runtime serves any task; the worker
   * awaits it. `setup` is not called there: this hook is the whole of the worker side.
   */
  setupWorker?(host: WorkerPluginHost): void | Promise<void>;
  /** Ends what the plugin started; called by `Context.close()`. */
  close?(): Promise<void>;
  /**
   * Called by `Context.close()` once every plugin has closed (so every worker any plugin ran
   * is gone): for clean-up that must come after them, such as removing what workers left in
   * a shared store.
   */
  afterClose?(): Promise<void>;
}

/** What a plugin re-created in a worker thread or process may do there (`Plugin.setupWorker`). */
export interface WorkerPluginHost {
  /** The worker (OS process) id, 1 for the main process. */
  readonly worker: number;
  /** The thread number within that worker. */
  readonly thread: number;
  /**
   * The id of the processor the worker runs tasks as when it is not `thread:<worker>:<thread>`
   * (a device's dedicated thread, e.g. `tfjs:1:0`); for log events.
   */
  readonly processor?: string;
  /**
   * Gives the worker runtime the store it keeps its results in (default: a `Map`). The last
   * call wins; the runtime clears the store when it shuts down.
   */
  setLocalStore(store: LocalStore): void;
}
