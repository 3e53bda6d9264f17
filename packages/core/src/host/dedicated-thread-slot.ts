import { UnsupportedError } from '../errors/errors.js';
import { logEvent, now } from '../log/event-log.js';
import type { Processor } from '../processor/processor.js';
import type { PluginHost } from '../registry/plugin.js';
import { workerPluginSpecs } from '../registry/worker-plugins.js';
import { ProcessorTypeScope } from '../scope/processor-type-scope.js';
import { DedicatedThread } from './dedicated-thread.js';
import { type DeviceScopeRule, deviceScopeKey } from './device-scope.js';
import { WorkerPool } from './worker-pool.js';

/** What a `DedicatedThreadSlot` needs besides each start's options. */
export interface DedicatedThreadSlotOptions<R> {
  /** The plugin's name, for `describe()` before setup. */
  name: string;
  /** The report as `describe()` and the `backend` log event give it, one line per fact. */
  describe(report: R): string;
  /** The message of the `UnsupportedError` setup throws when the thread cannot start. */
  startFailed(error: Error): string;
}

/** What `DedicatedThreadSlot.start` starts: the thread's processor, entry and start-up data. */
export interface DedicatedThreadStartOptions<D, P extends Processor> {
  /** The processor the thread runs tasks as. */
  processor: P;
  /** The entry script (see `DedicatedThreadOptions.entry`). */
  entry: URL;
  /** The plugin's start-up data for the entry's setup hook. */
  data: D;
  /** The thread number of the thread's task ids (see `DedicatedThreadOptions.idThread`). */
  idThread: number;
  /**
   * Whether the thread re-creates the context's worker-side plugins (e.g. `@dtask/lmdb`, whose
   * spilling store becomes `DedicatedThreadStart.hostStore`); default false.
   */
  workerPlugins?: boolean;
}

/** What a device plugin's `setup` hands `DedicatedThreadSlot.setupDevice`. */
export interface DeviceSetupOptions<D, P extends Processor> {
  /** What starts the thread (see `DedicatedThreadSlot.start`). */
  start: DedicatedThreadStartOptions<D, P>;
  /** The scope keys that name the device's processors, each made with `deviceScopeKey`. */
  scopeKeys: readonly DeviceScopeRule[];
  /** The processors' kind: the default scope of the functions `claims` accepts. */
  kind: string;
  /** Functions that run on the device unless their scope says otherwise (marked ones). */
  claims(f: unknown): boolean;
}

/**
 * The plugin side of one processor in a dedicated thread, through the plugin's life, on core's
 * `WorkerPool`: `start` (from `setup`) starts the thread, adds its processor to the context once
 * it has started, and logs its report as a `backend` event. From then on the pool replaces a
 * thread that dies (the same processor id; the tasks it held are placed again), gives up after
 * repeated failed starts (tasks scoped to it then fail with a `SchedulingError` naming why),
 * loads `everywhere` modules in the thread and its replacements, and on `close` fails the tasks
 * still there.
 */
export class DedicatedThreadSlot<R, P extends Processor = Processor> {
  /** The first thread's report once it has started; undefined before. */
  report: R | undefined;
  /** The thread running the processor now (the last one, once given up); from `start` on. */
  thread: DedicatedThread<R, P> | undefined;
  private pool: WorkerPool<DedicatedThread<R, P>> | undefined;
  private readonly early: string[] = [];

  constructor(private readonly options: DedicatedThreadSlotOptions<R>) {}

  /**
   * The thread running the processor now: a new one once it was replaced; undefined before it
   * has started and once it was given up. A test kills it (`kill()`) to see it replaced.
   */
  get current(): DedicatedThread<R, P> | undefined {
    return this.pool?.workers.get(0);
  }

  /** The processors the plugin added (the thread's, once started, until given up). */
  get processors(): readonly P[] {
    const t = this.current;
    return t ? [t.proc] : [];
  }

  /**
   * Starts the thread (a microtask later, once the plugins added with this one are in the context;
   * the plugin may register scope keys meanwhile) and, once it has started, adds its processor to
   * the context and logs the report.
   * @throws UnsupportedError when the thread cannot start (`startFailed` says why); it is ended.
   */
  async start<D>(host: PluginHost, options: DedicatedThreadStartOptions<D, P>): Promise<R> {
    const pool = new WorkerPool<DedicatedThread<R, P>>({
      host,
      start: (_id, modules) => this.spawn(host, options, [...modules]),
      givenUp: (t, _id, failures, reason) =>
        `${this.options.name}: the thread of ${t.proc.id} died ${failures} times while starting (${reason}); it is not replaced again. Check the modules loaded with everywhere() and the plugin's options.`,
    });
    pool.modules.push(...this.early.filter((url) => !pool.modules.includes(url)));
    this.pool = pool;
    // The plugins listed after this one in the context's `plugins` are added by then, so the
    // thread re-creates them too (e.g. @dtask/lmdb listed after a GPU plugin).
    await Promise.resolve();
    const first = this.spawn(host, options, [...pool.modules]);
    let report: R;
    try {
      report = await first.started;
    } catch (error) {
      await first.terminate();
      throw new UnsupportedError(this.options.startFailed(error as Error));
    }
    this.report = report;
    if (first.exited) return report; // died at once: nothing to add
    pool.adopt(0, first);
    return report;
  }

  /**
   * A device plugin's whole `setup`: starts the thread (`start`), registers its scope keys (the
   * one device-scope rule, `deviceScopeKey`) and makes the functions it `claims` default to
   * processors of its `kind`; resolves with the thread's report once it serves.
   * @throws UnsupportedError when the thread cannot start.
   */
  setupDevice<D>(host: PluginHost, options: DeviceSetupOptions<D, P>): Promise<R> {
    const started = this.start(host, options.start);
    for (const rule of options.scopeKeys) host.registerScopeKey(rule.key, deviceScopeKey(rule));
    host.defaultOption('scope', (f) => options.claims(f), new ProcessorTypeScope(options.kind));
    return started;
  }

  /** Starts one thread for the processor; a replacement is adopted by the pool at once. */
  private spawn<D>(
    host: PluginHost,
    options: DedicatedThreadStartOptions<D, P>,
    modules: string[],
  ): DedicatedThread<R, P> {
    const { workerPlugins, ...rest } = options;
    const t = new DedicatedThread<R, P>({
      ...rest,
      plugins: workerPlugins ? workerPluginSpecs(host.context.pluginList()) : [],
      modules,
      connect: host.connectWorker,
      onLost: (lost, reason) => this.pool?.lost(0, lost as DedicatedThread<R, P>, reason),
    });
    this.thread = t;
    t.started.then(
      (report) =>
        logEvent({
          kind: 'backend',
          time: now(),
          processor: t.proc.id,
          detail: this.options.describe(report),
        }),
      () => {},
    );
    return t;
  }

  /** The report, one line per fact, or that the plugin is not set up yet. */
  describe(): string {
    if (this.report === undefined) {
      return `${this.options.name}: not set up yet (await context.ready())`;
    }
    return this.options.describe(this.report);
  }

  /** Loads an `everywhere` module in the thread, and in the threads that replace it. */
  async loadModule(url: string): Promise<void> {
    if (!this.pool) {
      this.early.push(url);
      return;
    }
    const starting = this.thread && !this.pool.workers.has(0) ? this.thread : undefined;
    await Promise.all([this.pool.loadModule(url), starting?.loadModule(url)]);
  }

  /** Fails the tasks still on the thread, removes its processor and ends it. */
  async close(): Promise<void> {
    await this.pool?.close();
    if (this.thread && !this.thread.exited) await this.thread.terminate();
  }
}
