import { ThreadProc } from '@dtask/core';
import { type Transport, WorkerConnection } from '@dtask/core/worker';
import type { AdminFromWorker, AdminToWorker } from '../wire/admin.js';
import { DeferredTransport } from '../wire/deferred-transport.js';
import type { Link } from '../wire/link.js';
import { takeAnswerTokens } from '../wire/sync-answers.js';

/** How to make the scheduler's side of one thread of a worker process. */
export interface MemberOptions {
  worker: number;
  thread: number;
  scheduler: ConstructorParameters<typeof WorkerConnection>[1]['scheduler'];
  /** The context's `everywhere` modules by URL (its live map). */
  modules: Map<string, Record<string, unknown>>;
  /** Whether this thread's runtime has a peer link to the one behind `other`. */
  linkedTo: (other: WorkerConnection) => boolean;
  /** Sends a synchronous answer written into `buffer` to the thread waiting for it. */
  answer: (id: number, buffer: SharedArrayBuffer) => void;
  /** The connection broke, or a cancelled task did not stop: the whole process is lost. */
  onLost: (reason: string) => void;
}

/**
 * The scheduler's side of one thread of a worker process (`ThreadProc(worker, thread)`): the
 * `WorkerConnection` its tasks go through, over the thread's own authenticated link, and where
 * its peers reach it. Tasks may be sent before it joins: they wait in its transport.
 */
export class MemberConnection {
  readonly proc: ThreadProc;
  readonly connection: WorkerConnection;
  private readonly transport = new DeferredTransport();
  link: Link | undefined;
  /** Where its peers reach it (`unix:` or `tcp:`). */
  peerAddress: string | undefined;
  /** Set when it said it is set up and serving. */
  wasReady = false;
  /** Resolves when it serves tasks, to the processor ids it linked to; rejects if lost first. */
  readonly ready: Promise<string[]>;
  private readyResolve!: (peers: string[]) => void;
  private readyReject!: (e: Error) => void;
  private nextReq = 1;
  private readonly loads = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  constructor(options: MemberOptions) {
    this.proc = new ThreadProc(options.worker, options.thread);
    // Batches asking for a synchronous answer (getDagIds) carry tokens in place of buffers:
    // answered into buffers here, sent back through the process's heartbeat thread.
    const transport = this.transport;
    const answering: Transport = {
      send: (m, t) => transport.send(m, t),
      onMessage: (handler) =>
        transport.onMessage((batch) => {
          const answers = takeAnswerTokens(batch);
          handler(batch);
          for (const [id, buffer] of answers) options.answer(id, buffer);
        }),
      onClose: (h) => transport.onClose(h),
      close: () => transport.close(),
      ref: () => transport.ref(),
      unref: () => transport.unref(),
    };
    this.connection = new WorkerConnection(answering, {
      processor: this.proc,
      scheduler: options.scheduler,
      modules: options.modules,
      linkedTo: options.linkedTo,
      terminate: () => options.onLost('ended by the scheduler (a cancelled task did not stop)'),
      onLost: () => options.onLost(`the link of thread ${options.thread} closed`),
    });
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => {});
  }

  /** Takes the link the thread joined on and sends it what to set up. */
  join(link: Link, peerAddress: string, init: Extract<AdminToWorker, { op: 'init' }>): void {
    this.link = link;
    this.peerAddress = peerAddress;
    link.onAdmin((m) => this.admin(m as AdminFromWorker));
    link.sendAdmin(init);
    this.transport.attach(link);
  }

  /** Loads an `everywhere` module there (at once if it has not joined: `init` will carry it). */
  loadModule(url: string): Promise<void> {
    if (this.link === undefined || this.link.isClosed) return Promise.resolve();
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      this.loads.set(req, { resolve, reject });
      this.link!.sendAdmin({ op: 'load', req, url } satisfies AdminToWorker);
    });
  }

  /** Fails what waits on it and closes its link (its process is lost). */
  fail(error: Error): void {
    this.readyReject(error);
    for (const l of this.loads.values()) l.reject(error);
    this.loads.clear();
    this.link?.close();
    this.transport.fail(error);
  }

  private admin(m: AdminFromWorker): void {
    if (m.op === 'ready') {
      this.wasReady = true;
      this.readyResolve(m.peers);
      return;
    }
    const waiting = this.loads.get(m.req);
    if (!waiting) return;
    this.loads.delete(m.req);
    if (m.op === 'loaded') waiting.resolve();
    else waiting.reject(new Error(`${this.proc.id} could not load the module: ${m.error}`));
  }
}
