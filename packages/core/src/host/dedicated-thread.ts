import type { Processor } from '../processor/processor.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import type { PluginHost } from '../registry/plugin.js';
import { ThreadHost } from './thread-host.js';

/** How to start one `DedicatedThread`. */
export interface DedicatedThreadOptions<D, P extends Processor = Processor> {
  /** The processor the thread runs tasks as (its id names the thread). */
  processor: P;
  /** The entry script the thread runs (plain JS, loaded by URL); it calls `runDedicatedThread`. */
  entry: URL;
  /** The plugin's own start-up data for the entry's setup hook (structured-cloneable). */
  data: D;
  /** The thread number of its task ids (see `ThreadHostOptions.thread`). */
  idThread: number;
  /** Worker-side plugins to re-create in the thread (default none; see `DedicatedThreadStart.hostStore`). */
  plugins?: PluginSpec[];
  /** `everywhere` modules to load in the thread before it starts, by URL. */
  modules: string[];
  /** Makes the scheduler's connection to the thread (the plugin host's `connectWorker`). */
  connect: PluginHost['connectWorker'];
  /** Tasks sent ahead beyond the one running (default 64). */
  queueAhead?: number;
  /** How long a cancelled running task may take to stop before the thread is ended (ms; 1000). */
  cancelGraceMs?: number;
  /** Called once when the thread is gone (`reason`: how), before its tasks are handed back. */
  onLost: (thread: DedicatedThread<unknown, P>, reason: string) => void;
}

/**
 * A worker thread of its own that runs one processor's worker runtime (a GPU plugin's, which
 * owns a heavy library there): a `ThreadHost` whose entry calls `runDedicatedThread`, so that
 * `started` resolves with the report the entry's setup hook made, once the runtime serves, or
 * rejects with the error that stopped it (the hook's, with its class and code, or a
 * `WorkerLostError` when the thread exited first). A setup that fails ends the thread.
 * A `WorkerPool` runs it (see `DedicatedThreadSlot`), which replaces it when it dies.
 */
export class DedicatedThread<R, P extends Processor = Processor> extends ThreadHost<R, P> {
  constructor(options: DedicatedThreadOptions<unknown, P>) {
    super({
      processor: options.processor,
      entry: options.entry,
      thread: options.idThread,
      data: options.data,
      plugins: options.plugins ?? [],
      modules: options.modules,
      connect: options.connect,
      queueAhead: options.queueAhead ?? 64,
      cancelGraceMs: options.cancelGraceMs ?? 1000,
      reportsStart: true,
      onLost: (host, reason) => options.onLost(host as DedicatedThread<unknown, P>, reason),
    });
  }
}
