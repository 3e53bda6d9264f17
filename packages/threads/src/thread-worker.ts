import { MessageChannel, type ResourceLimits, Worker } from 'node:worker_threads';
import { type PluginHost, type PluginSpec, ThreadProc, WorkerLostError } from '@dtask/core';
import { ModuleLoads, runningTaskMemory, threadExecArgv } from '@dtask/core/plugin';
import {
  type AdminFromWorker,
  type AdminToWorker,
  portTransport,
  type Transport,
  type WorkerConnection,
} from '@dtask/core/worker';
import type { PeerPort, ThreadWorkerData } from './protocol.js';
import { workerEntryUrl } from './worker-entry-url.js';

/** How to start one worker thread. */
export interface ThreadWorkerOptions {
  worker: number;
  thread: number;
  peers: PeerPort[];
  modules: string[];
  /** Makes the scheduler's connection to the thread (the plugin host's `connectWorker`). */
  connect: PluginHost['connectWorker'];
  resourceLimits?: ResourceLimits;
  execArgv?: string[];
  cancelGraceMs: number;
  queueAhead: number;
  /** Whether this thread has a peer link to the runtime behind `other` (the plugin's threads). */
  linkedTo: (other: WorkerConnection) => boolean;
  /** Specs of the plugins the thread re-creates at start (those with a `setupWorker`). */
  pluginSpecs: () => PluginSpec[];
  /**
   * Called once when the thread is gone (crash, exit, terminate), whichever is noticed first:
   * its channel closing or its `exit` event (either may come first). Called before the tasks it
   * held are handed back, so that its processor can be replaced or removed first.
   */
  onLost: (worker: ThreadWorker) => void;
}

/**
 * One `node:worker_threads` worker running the core worker runtime, with the scheduler's
 * `WorkerConnection` to it. Idle, it does not keep node alive.
 */
export class ThreadWorker {
  readonly proc: ThreadProc;
  readonly connection: WorkerConnection;
  private readonly thread: Worker;
  private readonly transport: Transport;
  private readonly loads: ModuleLoads;
  /** Resolves when the thread is up. */
  readonly online: Promise<void>;
  /** Set once the thread is gone: its channel closed or it exited, whichever came first. */
  exited = false;

  constructor(options: ThreadWorkerOptions) {
    this.proc = new ThreadProc(options.worker, options.thread);
    this.loads = new ModuleLoads(this.proc.id);
    const channel = new MessageChannel();
    const runningTask = runningTaskMemory();
    const data: ThreadWorkerData = {
      runningTask,
      worker: options.worker,
      thread: options.thread,
      port: channel.port2,
      peers: options.peers,
      modules: options.modules,
    };
    this.thread = new Worker(workerEntryUrl(), {
      workerData: data,
      transferList: [channel.port2, ...options.peers.map((p) => p.port)],
      resourceLimits: options.resourceLimits,
      execArgv: options.execArgv ?? threadExecArgv(),
      name: `dtask ${this.proc.id}`,
    });
    this.transport = portTransport(channel.port1);
    this.connection = options.connect(this.transport, {
      processor: this.proc,
      runningTask,
      queueAhead: options.queueAhead,
      cancelGraceMs: options.cancelGraceMs,
      terminate: () => void this.thread.terminate(),
      linkedTo: options.linkedTo,
      onLost: () => this.gone(options),
    });
    this.online = new Promise((resolve, reject) => {
      this.thread.once('online', resolve);
      this.thread.once('error', reject);
    });
    this.online.catch(() => {});
    this.thread.on('message', (m: AdminFromWorker) => {
      if (m.op === 'plugins?') this.sendPlugins(options.pluginSpecs());
      else if ((m.op === 'loaded' || m.op === 'loadFailed') && this.loads.answer(m)) {
        this.updateRef();
      }
    });
    this.thread.on('error', () => {}); // reported through 'exit'
    this.thread.once('exit', (code) => {
      this.exitCode = code;
      this.transport.close(); // the connection hands its tasks back (after `gone`)
      this.gone(options);
    });
    // Referenced while it starts (and while it loads modules), so that awaiting `ready()` or
    // `everywhere()` keeps node alive; idle afterwards, it does not. (Done after adding the
    // 'message' listener, which references a Worker again.)
    this.thread.once('online', () => {
      this.started = true;
      this.updateRef();
    });
  }

  private started = false;

  private updateRef(): void {
    if (this.exited) return;
    if (!this.started || this.loads.size > 0) this.thread.ref();
    else this.thread.unref();
  }

  /** The thread's exit code, once it has exited. */
  exitCode: number | undefined;

  private gone(options: ThreadWorkerOptions): void {
    if (this.exited) return;
    this.exited = true;
    // A load cut short by the thread's end fails: the module may be what ended it (the plugin
    // then stops loading it on new threads, so they do not die the same way).
    this.loads.failAll(
      (url) =>
        new WorkerLostError(
          `Thread ${this.proc.id} ended (exit code ${this.exitCode ?? 'unknown'}) while loading ` +
            `${url} for everywhere(). Check that the module can be imported in a worker thread ` +
            '(no process.exit or main-thread-only code at import); it is not loaded on new threads.',
        ),
    );
    // Its channel may close before the thread has quite ended: make sure it does.
    if (this.exitCode === undefined) void this.thread.terminate();
    options.onLost(this);
  }

  /** Its processor and connection, as a `WorkerPool` sees it. */
  processors(): { proc: ThreadProc; connection: WorkerConnection }[] {
    return [{ proc: this.proc, connection: this.connection }];
  }

  /** Whether it served tasks before it ended (a death before that is a failed start). */
  get wasReady(): boolean {
    return this.connection.wasReady;
  }

  /** Whether an `everywhere` module is being loaded here (such a thread is not retired). */
  get loading(): boolean {
    return this.loads.size > 0;
  }

  /** Sends a peer link to this thread's runtime. */
  addPeer(peer: PeerPort): void {
    this.thread.postMessage(
      { op: 'peer', holder: peer.holder, port: peer.port } satisfies AdminToWorker,
      [peer.port],
    );
  }

  /** Loads an `everywhere` module in this thread. */
  loadModule(url: string): Promise<void> {
    if (this.exited) return Promise.resolve();
    const loaded = this.loads.request(url, (m) => this.thread.postMessage(m));
    this.updateRef();
    return loaded;
  }

  /** Answers the thread's start-up question: the plugins it re-creates before serving tasks. */
  private sendPlugins(specs: PluginSpec[]): void {
    try {
      this.thread.postMessage({ op: 'plugins', specs } satisfies AdminToWorker);
    } catch (error) {
      // A spec that cannot be cloned: start the thread without plugins rather than hang it.
      process.emitWarning(`dtask: plugin specs cannot reach ${this.proc.id}: ${error}`);
      this.thread.postMessage({ op: 'plugins', specs: [] } satisfies AdminToWorker);
    }
  }

  /** Ends the thread (its tasks go back to the scheduler, not counted as the task's fault). */
  async terminate(): Promise<void> {
    if (this.exited) return;
    await this.connection.close();
    await this.thread.terminate();
  }

  /** The underlying worker (tests use it to kill threads). */
  get worker(): Worker {
    return this.thread;
  }
}
