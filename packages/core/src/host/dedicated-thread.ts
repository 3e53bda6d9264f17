import { MessageChannel, Worker } from 'node:worker_threads';
import { WorkerLostError } from '../errors/errors.js';
import { deserializeError } from '../errors/serialize-error.js';
import { recordEvents } from '../log/event-log.js';
import type { Processor } from '../processor/processor.js';
import type { AdminFromWorker } from '../protocol/admin-protocol.js';
import type { DedicatedThreadData } from '../protocol/dedicated-thread-protocol.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import { portTransport } from '../protocol/port-transport.js';
import { runningTaskMemory } from '../protocol/running-task-memory.js';
import type { Transport } from '../protocol/transport.js';
import type { PluginHost } from '../registry/plugin.js';
import type { WorkerConnection } from '../sched/executors/worker-connection/worker-connection.js';
import { ModuleLoads } from './module-loads.js';
import { threadExecArgv } from './worker-exec-argv.js';
import type { PooledMember, PooledWorker } from './worker-pool.js';

/** How to start one `DedicatedThread`. */
export interface DedicatedThreadOptions<D, P extends Processor = Processor> {
  /** The processor the thread runs tasks as (its id names the thread). */
  processor: P;
  /** The entry script the thread runs (plain JS, loaded by URL); it calls `runDedicatedThread`. */
  entry: URL;
  /** The plugin's own start-up data for the entry's setup hook (structured-cloneable). */
  data: D;
  /**
   * The thread number whose task-id range tasks spawned in the thread draw from: ids start at
   * `(worker * 1024 + idThread) * 2 ** 32`; one no other thread of the process uses
   * (`@dtask/gpu-tfjs`: 512 + device, `@dtask/gpujs`: 768 + device,
   * `@dtask/example-accelerator`: 896 + device).
   */
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
 * owns a heavy library there), with the scheduler's `WorkerConnection` to it. `started`
 * resolves with the report the entry's setup hook made, once the runtime serves tasks, or
 * rejects with the error that stopped it (the hook's, with its class and code, or a
 * `WorkerLostError` when the thread exited first). Log events the thread relays are recorded
 * as the processor's. A setup that fails ends the thread. Idle, it does not keep node alive.
 * A `WorkerPool` runs it (see `DedicatedThreadSlot`), which replaces it when it dies.
 */
export class DedicatedThread<R, P extends Processor = Processor> implements PooledWorker {
  /** The processor the thread runs tasks as. */
  readonly proc: P;
  /** The scheduler's connection to the thread's runtime (its executor). */
  readonly connection: WorkerConnection;
  /** The setup hook's report, once the runtime has started. */
  readonly started: Promise<R>;
  /** Set once the thread is gone: its channel closed or it exited, whichever came first. */
  exited = false;
  /** Set once its runtime serves tasks (`started` resolved). */
  wasReady = false;
  private readonly thread: Worker;
  private readonly transport: Transport;
  private readonly loads: ModuleLoads;

  constructor(options: DedicatedThreadOptions<unknown, P>) {
    const proc = options.processor;
    this.proc = proc;
    this.loads = new ModuleLoads(proc.id);
    const channel = new MessageChannel();
    const runningTask = runningTaskMemory();
    const workerData: DedicatedThreadData<unknown> = {
      worker: proc.worker,
      processor: proc.id,
      idThread: options.idThread,
      plugins: options.plugins ?? [],
      port: channel.port2,
      runningTask,
      modules: options.modules,
      data: options.data,
    };
    this.thread = new Worker(options.entry, {
      workerData,
      transferList: [channel.port2],
      execArgv: threadExecArgv(),
      name: `dtask ${proc.id}`,
    });
    this.transport = portTransport(channel.port1);
    this.connection = options.connect(this.transport, {
      processor: proc,
      runningTask,
      queueAhead: options.queueAhead ?? 64,
      cancelGraceMs: options.cancelGraceMs ?? 1000,
      terminate: () => void this.thread.terminate(),
      onLost: () => this.gone(options),
    });
    let start: (r: R) => void = () => {};
    let fail: (e: unknown) => void = () => {};
    this.started = new Promise((resolve, reject) => {
      start = resolve;
      fail = reject;
    });
    this.started.catch(() => {});
    this.thread.on('message', (m: AdminFromWorker<R>) => {
      if (m.op === 'started') start(m.report);
      else if (m.op === 'startFailed') {
        fail(deserializeError(m.error));
        void this.thread.terminate();
      } else if (m.op === 'event') {
        const { kind, time, bytes, detail } = m;
        recordEvents([{ kind, time, bytes, detail, processor: proc.id, worker: proc.worker }]);
      } else if ((m.op === 'loaded' || m.op === 'loadFailed') && this.loads.answer(m)) {
        if (this.loads.size === 0) this.thread.unref();
      }
    });
    this.thread.on('error', (e) => fail(e));
    this.thread.once('exit', (code) => {
      fail(new WorkerLostError(`${proc.id} exited with code ${code} while starting`));
      this.transport.close();
      this.gone(options, `exit code ${code}`);
    });
    this.started.then(
      () => {
        this.wasReady = true;
        this.thread.unref();
      },
      () => {},
    );
  }

  private gone(options: DedicatedThreadOptions<unknown, P>, reason = 'its channel closed'): void {
    if (this.exited) return;
    this.exited = true;
    this.loads.failAll(() => new WorkerLostError(`${this.proc.id} ended`));
    void this.thread.terminate();
    options.onLost(this, reason);
  }

  /** Its processor with the scheduler's connection (the pool adds and removes it). */
  processors(): readonly PooledMember[] {
    return [{ proc: this.proc, connection: this.connection }];
  }

  /**
   * Ends the thread at once, as a crash would (its tasks count as lost with it): what a test
   * does to see the thread replaced.
   */
  kill(): void {
    void this.thread.terminate();
  }

  /** Loads an `everywhere` module in the thread (keeping node alive until it has). */
  loadModule(url: string): Promise<void> {
    if (this.exited) return Promise.resolve();
    this.thread.ref();
    return this.loads.request(url, (m) => this.thread.postMessage(m));
  }

  /** Ends the thread: closes the connection (its tasks go back to the scheduler), then exits. */
  async terminate(): Promise<void> {
    if (this.exited) return;
    await this.connection.close();
    await this.thread.terminate();
  }
}
