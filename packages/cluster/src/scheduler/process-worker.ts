import type { ChildProcess } from 'node:child_process';
import { ThreadProc, WorkerLostError } from '@dtask/core';
import { WorkerConnection } from '@dtask/core/worker';
import type { AdminFromWorker, AdminToWorker } from '../wire/admin.js';
import { DeferredTransport } from '../wire/deferred-transport.js';
import type { Link } from '../wire/link.js';

/** How to make the scheduler's record of one worker process. */
export interface ProcessWorkerOptions {
  worker: number;
  scheduler: ConstructorParameters<typeof WorkerConnection>[1]['scheduler'];
  /** The context's `everywhere` modules by URL (its live map). */
  modules: Map<string, Record<string, unknown>>;
  /** Whether this worker's runtime has a peer link to the one behind `other`. */
  linkedTo: (other: WorkerConnection) => boolean;
  /** Called once when the worker is gone, before its tasks are handed back. */
  onLost: (worker: ProcessWorker, reason: string) => void;
}

/**
 * The scheduler's record of one worker process: its processor (`ThreadProc(worker, 1)`), the
 * `WorkerConnection` the scheduler sends its tasks through, its links (the protocol link and
 * the heartbeat thread's), and, for a local worker, its child process.
 */
export class ProcessWorker {
  readonly proc: ThreadProc;
  readonly connection: WorkerConnection;
  private readonly transport = new DeferredTransport();
  link: Link | undefined;
  heartbeat: Link | undefined;
  child: ChildProcess | undefined;
  /** Where its peers reach it (`unix:` or `tcp:`). */
  peerAddress: string | undefined;
  /** When it was started or began joining (`performance.now()`), and when it joined. */
  readonly startedAt = performance.now();
  joinedAt: number | undefined;
  /** Set when it said it is set up and serving. */
  wasReady = false;
  /** Set once it is gone. */
  exited = false;
  /** Why it was lost, once it was. */
  lostReason: string | undefined;
  /** Resolves when it serves tasks, to the workers it linked to; rejects if it is lost first. */
  readonly ready: Promise<number[]>;
  private readyResolve!: (peers: number[]) => void;
  private readyReject!: (e: Error) => void;
  private nextReq = 1;
  private readonly loads = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  constructor(private readonly options: ProcessWorkerOptions) {
    this.proc = new ThreadProc(options.worker, 1);
    this.connection = new WorkerConnection(this.transport, {
      processor: this.proc,
      scheduler: options.scheduler,
      modules: options.modules,
      linkedTo: options.linkedTo,
      terminate: () => this.lose('ended by the scheduler (a cancelled task did not stop)'),
      onLost: () => this.lose('its connection closed'),
    });
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => {});
  }

  /** The worker id. */
  get worker(): number {
    return this.options.worker;
  }

  /** Takes the link the process joined on and sends it what to set up. */
  join(
    link: Link,
    peerAddress: string,
    init: Omit<Extract<AdminToWorker, { op: 'init' }>, 'op' | 'worker'>,
  ): void {
    this.link = link;
    this.peerAddress = peerAddress;
    this.joinedAt = performance.now();
    link.onAdmin((m) => this.admin(m as AdminFromWorker));
    link.sendAdmin({ op: 'init', worker: this.worker, ...init } satisfies AdminToWorker);
    this.transport.attach(link);
  }

  /** Takes the link of the process's heartbeat thread. */
  attachHeartbeat(link: Link): void {
    this.heartbeat?.close();
    this.heartbeat = link;
    link.socket.unref();
    link.onClose(() => {
      if (this.heartbeat === link) this.lose('its heartbeat link closed');
    });
  }

  /**
   * Called every heartbeat period: probes the worker, and declares it lost when it has not
   * answered for `timeoutMs`, or has not joined (or started its heartbeat) in time.
   */
  probe(now: number, timeoutMs: number, startTimeoutMs: number): void {
    if (this.exited) return;
    if (this.joinedAt === undefined) {
      if (now - this.startedAt > startTimeoutMs)
        this.lose(`it did not join within ${startTimeoutMs} ms`);
      return;
    }
    if (this.heartbeat === undefined) {
      if (now - this.joinedAt > timeoutMs)
        this.lose(`its heartbeat did not start within ${timeoutMs} ms`);
      return;
    }
    if (now - this.heartbeat.lastHeard > timeoutMs) {
      this.lose(
        `it did not answer heartbeats for ${Math.round(now - this.heartbeat.lastHeard)} ms`,
      );
    } else this.heartbeat.ping();
  }

  /** Loads an `everywhere` module there. */
  loadModule(url: string): Promise<void> {
    if (this.exited || this.link === undefined) return Promise.resolve();
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      this.loads.set(req, { resolve, reject });
      this.link!.sendAdmin({ op: 'load', req, url } satisfies AdminToWorker);
    });
  }

  /** Declares it gone (once): ends the process, closes its links; its tasks go back. */
  lose(reason: string): void {
    if (this.exited) return;
    this.exited = true;
    this.lostReason = reason;
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
    }
    const error = new WorkerLostError(`Worker process ${this.worker} was lost: ${reason}`);
    this.readyReject(error);
    for (const l of this.loads.values()) l.reject(error);
    this.loads.clear();
    this.options.onLost(this, reason);
    this.heartbeat?.close();
    if (this.link) this.link.close();
    this.transport.fail(error);
  }

  /** Ends it on purpose (its tasks are not counted against them); resolves once it is gone. */
  async terminate(graceMs = 2000): Promise<void> {
    if (this.exited) return;
    this.link?.sendAdmin({ op: 'exit' } satisfies AdminToWorker);
    await this.connection.close();
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.exited = true;
    this.heartbeat?.close();
    this.link?.close();
  }

  private admin(m: AdminFromWorker): void {
    if (m.op === 'ready') {
      this.wasReady = true;
      // Kept alive while it starts (so awaiting `ready()` keeps node running); idle, it does not.
      this.child?.unref();
      this.readyResolve(m.peers);
      return;
    }
    const waiting = this.loads.get(m.req);
    if (!waiting) return;
    this.loads.delete(m.req);
    if (m.op === 'loaded') waiting.resolve();
    else waiting.reject(new Error(`worker ${this.worker} could not load the module: ${m.error}`));
  }
}
