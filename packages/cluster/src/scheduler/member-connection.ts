import { ThreadProc } from '@dtask/core';
import { ModuleLoads, type PluginHost } from '@dtask/core/plugin';
import type {
  AdminFromWorker,
  AdminToWorkerOf,
  Transport,
  WorkerConnection,
} from '@dtask/core/worker';
import { DeferredTransport } from '../wire/deferred-transport.js';
import type { Link } from '../wire/link.js';
import type { UnreachableMessage } from '../wire/peer-messages.js';
import { takeAnswerTokens } from '../wire/sync-answers.js';

/** How to make the scheduler's side of one thread of a worker process. */
export interface MemberOptions {
  worker: number;
  thread: number;
  /** Makes the scheduler's connection to the thread (the plugin host's `connectWorker`). */
  connect: PluginHost['connectWorker'];
  /** What giving it work while it idles costs placement (`WorkerConnectionOptions.wakeMs`). */
  wakeMs?: number;
  /** Whether this thread's runtime can fetch directly from the one behind `other`. */
  linkedTo: (other: WorkerConnection) => boolean;
  /** The thread said it cannot link to peer `holder` (a processor id). */
  unreachable: (holder: string) => void;
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
  /** Resolves when it serves tasks; rejects if lost first. */
  readonly ready: Promise<string[]>;
  private readyResolve!: (peers: string[]) => void;
  private readyReject!: (e: Error) => void;
  private readonly loads: ModuleLoads;
  /** The task its runtime said ends it (`dying`), read once the connection is lost. */
  private readonly runningTask = new Float64Array(1);

  constructor(private readonly options: MemberOptions) {
    this.proc = new ThreadProc(options.worker, options.thread);
    this.loads = new ModuleLoads(this.proc.id);
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
    this.connection = options.connect(answering, {
      processor: this.proc,
      wakeMs: options.wakeMs,
      linkedTo: options.linkedTo,
      runningTask: this.runningTask,
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
  join(link: Link, peerAddress: string, init: AdminToWorkerOf<'init'>): void {
    this.link = link;
    this.peerAddress = peerAddress;
    link.onAdmin((m) => this.admin(m as AdminFromWorker));
    link.sendAdmin(init);
    this.transport.attach(link);
  }

  /** Loads an `everywhere` module there (at once if it has not joined: `init` will carry it). */
  loadModule(url: string): Promise<void> {
    if (this.link === undefined || this.link.isClosed) return Promise.resolve();
    const link = this.link;
    return this.loads.request(url, (m) => link.sendAdmin(m));
  }

  /** Fails what waits on it and closes its link (its process is lost). */
  fail(error: Error): void {
    this.readyReject(error);
    this.loads.failAll(() => error);
    this.link?.close();
    this.transport.fail(error);
  }

  private admin(m: AdminFromWorker | UnreachableMessage): void {
    if (m.op === 'unreachable') {
      if (typeof m.holder === 'string') this.options.unreachable(m.holder);
    } else if (m.op === 'ready') {
      this.wasReady = true;
      this.readyResolve(m.peers);
    } else if (m.op === 'loaded' || m.op === 'loadFailed') this.loads.answer(m);
    else if (m.op === 'dying') this.runningTask[0] = m.task;
  }
}
