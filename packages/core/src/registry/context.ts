import type { Chunk } from '../chunk/chunk.js';
import { RamDevice } from '../chunk/ram-device.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError, UnsupportedError } from '../errors/errors.js';
import { sampleProcess } from '../log/process-sampler.js';
import {
  checkOptions,
  isIntegerAtLeast,
  isOneOf,
  type OptionsShape,
  rule,
} from '../options/index.js';
import { currentWorker } from '../processor/current-worker.js';
import { registerMove } from '../processor/move-registry.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { topology } from '../processor/topology.js';
import { cancelUnstarted } from '../sched/completion/cancel-unstarted.js';
import type { Executor } from '../sched/dispatch/executor.js';
import { InlineExecutor } from '../sched/dispatch/inline-executor.js';
import { ProcessorExecutor } from '../sched/dispatch/processor-executor.js';
import { followTasks } from '../sched/dynamic/follow-tasks.js';
import { WorkerConnection } from '../sched/executors/worker-connection/worker-connection.js';
import { LOCAL_CLOSURES, type LocalClosures } from '../sched/placement/local-closure.js';
import { Scheduler } from '../sched/scheduler.js';
import { collectStats, type Stats } from '../sched/stats/collect-stats.js';
import { type AbstractScope, registerScopeKey } from '../scope/index.js';
import { addDefaultOption } from '../task/default-option.js';
import type { DTask } from '../task/dtask.js';
import type { TaskOptions, TaskOptionsInput } from '../task/options.js';
import { registerOption } from '../task/options.js';
import { type SpawnArgs, spawnEach, spawnTask } from '../task/spawn-task.js';
import { keepAliveUntil } from './keep-alive.js';
import { LocalThreadProc } from './main-thread.js';
import { forgetPendingAtExit, watchPendingAtExit } from './pending-at-exit.js';
import type { Plugin, PluginContext, PluginHost, ProcessorLoad } from './plugin.js';
import { programModules } from './program-modules.js';
import { type ToChunkOptions, toChunkIn } from './to-chunk-in.js';

/** Options of `new Context()` and `configure()`. */
export interface ContextOptions {
  /** Plugins to add, in order (`threads({ count: 2 })`, ...). */
  plugins?: Plugin[];
  /**
   * A task function that cannot travel (it closes over local variables) runs on the main
   * thread; while worker threads or processes exist that is usually a mistake: `'warn'`
   * (default) warns once per function, naming it, the variables, where it ran and the fixes (pass them as
   * arguments, or export the function and load its module with `everywhere`); `'error'` makes
   * `spawn` and `map` throw `TaskFunctionError`; `'allow'` says nothing.
   */
  localClosures?: LocalClosures;
  /**
   * The most unfinished tasks (waiting or running) the context holds: past it, a top-level
   * `spawn` throws `QueueFullError` (Piscina's `maxQueue`), so a producer cannot grow memory
   * without bound; `await whenQueueHasRoom()` waits for room instead. Tasks spawned inside
   * tasks are counted but never refused. Default: no limit.
   */
  maxQueue?: number;
}

/** The keys `ContextOptions` has (anything else is a misspelling, refused). */
const CONTEXT_OPTIONS: OptionsShape<keyof ContextOptions> = {
  known: ['plugins', 'localClosures', 'maxQueue'],
  notObject: () => 'new Context(options): options must be an object such as { plugins: [] }',
  unknownKey: (key, known) =>
    `Context options (new Context or configure): unknown option '${key}'; known: ${known.join(', ')}. ` +
    'Worker threads and other processors come from plugins: { plugins: [threads({ count: 2 })] }',
  fields: {
    // `null` is taken as no plugins, as it always was.
    plugins: rule(
      (v) => v === null || Array.isArray(v),
      () => 'Context option `plugins` must be an array of plugin objects',
    ),
    localClosures: rule(
      isOneOf(LOCAL_CLOSURES),
      (v) =>
        `Context option \`localClosures\` must be one of ${LOCAL_CLOSURES.map((x) => `'${x}'`).join(', ')}; got ${describeValue(v)}`,
    ),
    maxQueue: rule(
      isIntegerAtLeast(1),
      (v) =>
        `Context option \`maxQueue\` must be a positive integer (the most unfinished tasks); got ${describeValue(v)}`,
    ),
  },
};

/**
 * A set of processors and the scheduler that places tasks on them (Dagger's `Context`).
 * `configure()` makes the default one; `new Context({ plugins })` makes another, used through
 * `ctx.spawn(...)`. Supports `await using` and `close()`.
 */
export class Context implements PluginContext {
  /** @internal */
  readonly scheduler = new Scheduler();
  /** The calling thread's processor (the main thread in the main process). */
  readonly localProc: LocalThreadProc;
  private readonly plugins: Plugin[] = [];
  private readonly devices = new Map<string, StorageDevice>();
  private readonly executors = new Map<string, Executor>();
  private readonly undo: (() => void)[] = [];
  private readonly setups: Promise<void>[] = [];
  private closed = false;

  constructor(options: ContextOptions = {}) {
    checkOptions(options, CONTEXT_OPTIONS);
    watchPendingAtExit(this.scheduler);
    const plugins = options.plugins ?? [];
    if (options.localClosures !== undefined) this.scheduler.localClosures = options.localClosures;
    if (options.maxQueue !== undefined) this.scheduler.queueLimit.max = options.maxQueue;
    this.scheduler.storageDevice = (name) => this.devices.get(name);
    sampleProcess();
    this.localProc = new LocalThreadProc(currentWorker(), 1);
    topology().add(this.localProc);
    this.addProcessor(this.localProc, new InlineExecutor());
    this.addStorageDevice(new RamDevice());
    for (const plugin of plugins) this.use(plugin);
  }

  /** `spawn` into this context (see the top-level `spawn`). */
  spawn<A extends unknown[], R>(f: (...args: A) => R, ...args: SpawnArgs<A>): DTask<Awaited<R>>;
  spawn<A extends unknown[], R>(
    f: Chunk<(...args: A) => R>,
    ...args: SpawnArgs<A>
  ): DTask<Awaited<R>>;
  // Last, so that a mistyped option is reported against this overload ("the last overload").
  spawn<A extends unknown[], R>(
    options: TaskOptionsInput,
    f: ((...args: A) => R) | Chunk<(...args: A) => R>,
    ...args: SpawnArgs<A>
  ): DTask<Awaited<R>>;
  spawn(first: unknown, ...rest: unknown[]): DTask<unknown> {
    this.assertOpen();
    return spawnTask(this.scheduler, first, rest);
  }

  /**
   * @internal Spawns a batch into this context (`map`): see `spawnEach`, for which the caller
   * has checked `fn` and normalized `explicit` once.
   */
  spawnEach(
    explicit: TaskOptions,
    fn: unknown,
    argLists: readonly unknown[][],
    out: DTask<unknown>[],
  ): void {
    this.assertOpen();
    spawnEach(this.scheduler, explicit, fn, argLists, out);
  }

  /**
   * `toChunk` with this context's storage devices (`options.device` names one of them) and
   * this context's calling-thread processor (see the top-level `toChunk`).
   */
  toChunk<T>(
    x: T,
    proc?: Processor,
    scope?: AbstractScope,
    options: Omit<ToChunkOptions, 'context'> = {},
  ): Chunk<T> {
    this.assertOpen();
    return toChunkIn(() => this, x, proc, scope, { ...options, context: this });
  }

  /** Tasks spawned into this context and not yet settled, waiting or running (Piscina's `queueSize`). */
  get queueSize(): number {
    return this.scheduler.queueLimit.unfinished;
  }

  /**
   * Utilisation since the context was made (Piscina's `utilization` and run/wait histograms,
   * Dask's worker gauges): for every processor it has had, its task runs, busy time and
   * fraction, and run- and wait-time percentiles (ms); and its task counts. Plain data, read
   * on demand (also after `close()`); busy fraction over a stretch of the run is the
   * difference of two calls' `busyMs` over that of their `elapsedMs`.
   */
  stats(): Stats {
    return collectStats(this.scheduler);
  }

  /** Resolves once a top-level `spawn` here would be taken under `maxQueue` (at once without one). */
  whenQueueHasRoom(): Promise<void> {
    this.assertOpen();
    return this.scheduler.queueLimit.whenRoom();
  }

  /**
   * Calls `onTask` for each unsettled task of this context (those waiting on them included),
   * oldest first, then for each task spawned in it from now on, until the returned function is
   * called. For tools that show a run (`@dtask/viz`'s `progress` and `dashboard`).
   */
  followTasks(onTask: (task: DTask<unknown>) => void): () => void {
    return followTasks(this.scheduler, onTask);
  }

  /** Resolves once every plugin's (possibly async) setup has finished; rejects if one failed. */
  async ready(): Promise<void> {
    await keepAliveUntil(Promise.all(this.setups));
  }

  /** The compute processors tasks can be placed on now. */
  processors(): Processor[] {
    return this.scheduler.slots.map((s) => s.proc);
  }

  /** The plugins added to this context. */
  pluginList(): readonly Plugin[] {
    return this.plugins;
  }

  /** A storage device by name (`'ram'` always exists). */
  storageDevice(name: string): StorageDevice | undefined {
    return this.devices.get(name);
  }

  /** Adds a plugin: validates it and runs its setup. */
  use(plugin: Plugin): void {
    this.assertOpen();
    if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string') {
      throw new ArgumentError(
        'A plugin must be an object with a string `name`, as made by a plugin factory such as threads({ count: 2 })',
      );
    }
    if (this.plugins.some((p) => p.name === plugin.name)) {
      throw new ArgumentError(`Plugin '${plugin.name}' is already added to this context`);
    }
    this.plugins.push(plugin);
    if (!plugin.setup) return;
    const result = plugin.setup(this.host());
    if (result && typeof (result as Promise<void>).then === 'function') {
      const setup = Promise.resolve(result);
      setup.catch(() => {}); // reported through ready()
      this.setups.push(setup);
    }
  }

  /** @internal Adds a compute processor with its executor. */
  addProcessor(proc: Processor, executor?: Executor): void {
    this.assertOpen();
    if (!isProcessor(proc)) throw new ArgumentError('addProcessor(proc): proc must be a Processor');
    const exec = executor ?? this.executors.get(proc.id) ?? new ProcessorExecutor();
    this.executors.set(proc.id, exec);
    topology().add(proc);
    this.scheduler.addProcessor(proc, exec);
    this.updateLocalEnablement();
  }

  /** @internal Removes a compute processor from placement. */
  removeProcessor(proc: Processor, reason?: string): boolean {
    const removed = this.scheduler.removeProcessor(proc, reason);
    this.updateLocalEnablement();
    return removed;
  }

  private updateLocalEnablement(): void {
    const local = this.localProc;
    local.enabledByDefault = !this.scheduler.slots.some(
      (s) => s.proc !== local && s.proc.kind === 'thread' && s.proc.defaultEnabled,
    );
    this.scheduler.invalidatePlacement();
  }

  /** @internal Processors this context has seen (including removed ones), by id. */
  knownExecutor(id: string): Executor | undefined {
    return this.executors.get(id);
  }

  /** @internal */
  addStorageDevice(device: StorageDevice): void {
    if (typeof device?.name !== 'string' || typeof device.put !== 'function') {
      throw new ArgumentError('addStorageDevice(device): device must implement StorageDevice');
    }
    this.devices.set(device.name, device);
  }

  /**
   * Modules loaded with `everywhere`, by URL: workers started later load them too. A new
   * context starts with those `everywhere` loaded before it was made (in any context).
   */
  readonly modules = new Map<string, Record<string, unknown>>(programModules());

  /** @internal Records a module loaded here and loads it in every plugin's workers. */
  async loadModule(url: string, namespace: Record<string, unknown>): Promise<void> {
    this.modules.set(url, namespace);
    await keepAliveUntil(Promise.all(this.plugins.map((p) => p.loadModule?.(url))));
  }

  /** Starts `count` workers with the first plugin able to; resolves to their worker ids. */
  async startWorkers(count: number): Promise<number[]> {
    const plugin = this.plugins.find((p) => typeof p.startWorkers === 'function');
    if (!plugin) {
      throw new UnsupportedError(
        `addProcs(ctx, ${count}): no plugin here can start workers; add one such as cluster({ workers })`,
      );
    }
    return keepAliveUntil(Promise.resolve(plugin.startWorkers!(count)));
  }

  /** Listeners of `PluginHost.onLoadChange`. */
  private readonly loadListeners = new Set<() => void>();

  private onLoadChange(listener: () => void): () => void {
    const listeners = this.loadListeners;
    listeners.add(listener);
    this.scheduler.onLoadChange = () => {
      for (const l of listeners) l();
    };
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.scheduler.onLoadChange = undefined;
    };
  }

  private processorLoad(proc: Processor): ProcessorLoad | undefined {
    const slot = this.scheduler.slotOf(proc?.id);
    return slot && { inFlight: slot.inFlight, parked: slot.backlog.length };
  }

  private host(): PluginHost {
    const undo = this.undo;
    return {
      context: this,
      addProcessor: (proc, executor) => this.addProcessor(proc, executor),
      removeProcessor: (proc, reason) => {
        this.removeProcessor(proc, reason);
      },
      registerMove: (rule) => undo.push(registerMove(rule)),
      registerScopeKey: (key, def) => undo.push(registerScopeKey(key, def)),
      registerOption: (key, normalize) => undo.push(registerOption(key, normalize)),
      defaultOption: (name, match, value) =>
        undo.push(addDefaultOption(name, match, value, this.scheduler)),
      addStorageDevice: (device) => this.addStorageDevice(device),
      processorLoad: (proc) => this.processorLoad(proc),
      onLoadChange: (listener) => undo.push(this.onLoadChange(listener)),
      connectWorker: (transport, options) =>
        new WorkerConnection(transport, {
          ...options,
          scheduler: this.scheduler,
          modules: this.modules,
        }),
    };
  }

  private assertOpen(): void {
    if (this.closed)
      throw new ArgumentError('This context is closed; make a new one or call configure()');
  }

  /** True once `close()` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Ends the context: every task not yet started fails with `CancelledError` at once (queued
   * here or on a worker, or waiting for inputs), and none starts afterwards; plugins stop their
   * workers, storage devices close, registrations made by plugins are undone. Tasks running on
   * workers fail with `WorkerLostError`; tasks running on this thread finish.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    forgetPendingAtExit(this.scheduler);
    cancelUnstarted(this.scheduler);
    await keepAliveUntil(this.closeAll());
  }

  private async closeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const plugin of [...this.plugins].reverse()) {
      try {
        await plugin.close?.();
      } catch (e) {
        errors.push(e);
      }
    }
    for (const slot of this.scheduler.slots) await slot.executor.close?.();
    for (const device of this.devices.values()) await device.close?.();
    for (const plugin of this.plugins) {
      try {
        await plugin.afterClose?.();
      } catch (e) {
        errors.push(e);
      }
    }
    for (const u of this.undo.splice(0).reverse()) u();
    if (errors.length > 0) throw new AggregateError(errors, 'Some plugins failed to close');
  }

  /** `await using ctx = new Context(...)`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
