import { MessageChannel, type ResourceLimits, Worker } from 'node:worker_threads';
import { ThreadProc } from '@dtask/core';
import { type Transport, WorkerConnection } from '@dtask/core/worker';
import { portTransport } from './port-transport.js';
import type { AdminReply, AdminRequest, PeerPort, ThreadWorkerData } from './protocol.js';
import { workerEntryUrl } from './worker-entry-url.js';

/** How to start one worker thread. */
export interface ThreadWorkerOptions {
  worker: number;
  thread: number;
  peers: PeerPort[];
  modules: string[];
  scheduler: ConstructorParameters<typeof WorkerConnection>[1]['scheduler'];
  resourceLimits?: ResourceLimits;
  execArgv?: string[];
  cancelGraceMs: number;
  queueAhead: number;
  /** Called once when the thread is gone (crash, exit, terminate), after its tasks were handed back. */
  onExit: (worker: ThreadWorker, code: number) => void;
  /** Called before tasks are handed back, so its processor can be removed first. */
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
  private nextReq = 1;
  private readonly loads = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  /** Resolves when the thread is up. */
  readonly online: Promise<void>;
  exited = false;

  constructor(options: ThreadWorkerOptions) {
    this.proc = new ThreadProc(options.worker, options.thread);
    const channel = new MessageChannel();
    const data: ThreadWorkerData = {
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
      execArgv: options.execArgv,
      name: `dtask ${this.proc.id}`,
    });
    this.thread.unref();
    this.transport = portTransport(channel.port1);
    this.connection = new WorkerConnection(this.transport, {
      processor: this.proc,
      scheduler: options.scheduler,
      queueAhead: options.queueAhead,
      cancelGraceMs: options.cancelGraceMs,
      terminate: () => void this.thread.terminate(),
      onLost: () => options.onLost(this),
    });
    this.online = new Promise((resolve, reject) => {
      this.thread.once('online', resolve);
      this.thread.once('error', reject);
    });
    this.online.catch(() => {});
    this.thread.on('message', (m: AdminReply) => this.onAdmin(m));
    this.thread.on('error', () => {}); // reported through 'exit'
    this.thread.once('exit', (code) => {
      this.exited = true;
      for (const l of this.loads.values()) l.reject(new Error(`${this.proc.id} exited`));
      this.loads.clear();
      this.transport.close(); // the connection hands its tasks back
      options.onExit(this, code);
    });
  }

  /** Sends a peer link to this thread's runtime. */
  addPeer(peer: PeerPort): void {
    this.thread.postMessage(
      { op: 'peer', holder: peer.holder, port: peer.port } satisfies AdminRequest,
      [peer.port],
    );
  }

  /** Loads an `everywhere` module in this thread. */
  loadModule(url: string): Promise<void> {
    if (this.exited) return Promise.resolve();
    const req = this.nextReq++;
    return new Promise<void>((resolve, reject) => {
      this.loads.set(req, { resolve, reject });
      this.thread.postMessage({ op: 'load', req, url } satisfies AdminRequest);
    });
  }

  private onAdmin(m: AdminReply): void {
    const waiting = this.loads.get(m.req);
    if (!waiting) return;
    this.loads.delete(m.req);
    if (m.op === 'loaded') waiting.resolve();
    else waiting.reject(new Error(`${this.proc.id} could not load the module: ${m.error}`));
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
