import { UnsupportedError } from '../errors/errors.js';
import { logEvent, now } from '../log/event-log.js';
import type { Processor } from '../processor/processor.js';
import type { PluginHost } from '../registry/plugin.js';
import { workerPluginSpecs } from '../registry/worker-plugins.js';
import { DedicatedThread } from './dedicated-thread.js';

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

/**
 * The plugin side of one processor in a dedicated thread, through the plugin's life: `start`
 * (from `setup`) starts the thread, adds its processor to the context once it has started,
 * and logs its report as a `backend` event; `loadModule` and `close` serve the plugin's own.
 */
export class DedicatedThreadSlot<R, P extends Processor = Processor> {
  /** The thread's report once it has started; undefined before. */
  report: R | undefined;
  /** The thread, from `start` on. */
  thread: DedicatedThread<R, P> | undefined;
  private host: PluginHost | undefined;
  private readonly modules: string[] = [];

  constructor(private readonly options: DedicatedThreadSlotOptions<R>) {}

  /** The processors the plugin added (the thread's, once started). */
  get processors(): readonly P[] {
    return this.thread ? [this.thread.proc] : [];
  }

  /**
   * Starts the thread (a microtask later, once the plugins added with this one are in the context;
   * the plugin may register scope keys meanwhile) and, once it has started, adds its processor to
   * the context and logs the report.
   * @throws UnsupportedError when the thread cannot start (`startFailed` says why); it is ended.
   */
  async start<D>(host: PluginHost, options: DedicatedThreadStartOptions<D, P>): Promise<R> {
    this.host = host;
    for (const url of host.context.modules.keys()) this.modules.push(url);
    // The plugins listed after this one in the context's `plugins` are added by then, so the
    // thread re-creates them too (e.g. @dtask/lmdb listed after a GPU plugin).
    await Promise.resolve();
    const { workerPlugins, ...thread } = options;
    const t = new DedicatedThread<R, P>({
      ...thread,
      plugins: workerPlugins ? workerPluginSpecs(host.context.pluginList()) : [],
      modules: [...this.modules],
      connect: host.connectWorker,
      onLost: (lost) => this.host?.removeProcessor(lost.proc),
    });
    this.thread = t;
    let report: R;
    try {
      report = await t.started;
    } catch (error) {
      await t.terminate();
      throw new UnsupportedError(this.options.startFailed(error as Error));
    }
    this.report = report;
    host.addProcessor(t.proc, t.connection);
    logEvent({
      kind: 'backend',
      time: now(),
      processor: t.proc.id,
      detail: this.options.describe(report),
    });
    return report;
  }

  /** The report, one line per fact, or that the plugin is not set up yet. */
  describe(): string {
    if (this.report === undefined) {
      return `${this.options.name}: not set up yet (await context.ready())`;
    }
    return this.options.describe(this.report);
  }

  /** Loads an `everywhere` module in the thread. */
  async loadModule(url: string): Promise<void> {
    this.modules.push(url);
    await this.thread?.loadModule(url);
  }

  /** Removes the processor from the context and ends the thread. */
  async close(): Promise<void> {
    if (!this.thread) return;
    this.host?.removeProcessor(this.thread.proc);
    await this.thread.terminate();
  }
}
