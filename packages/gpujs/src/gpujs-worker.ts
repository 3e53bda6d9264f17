import { MessageChannel, Worker } from 'node:worker_threads';
import { WorkerLostError } from '@dtask/core';
import { type Transport, WorkerConnection } from '@dtask/core/worker';
import { portTransport } from '@dtask/threads';
import { DeviceStats } from './device-stats.js';
import { GpujsProc } from './gpujs-proc.js';
import type { GpujsMode, ModeReport } from './modes.js';
import type { GpujsAdminReply, GpujsAdminRequest, GpujsWorkerData } from './protocol.js';
import { workerEntryUrl } from './worker-entry-url.js';

/** How to start the worker thread of one GpujsProc. */
export interface GpujsWorkerOptions {
  worker: number;
  device: number;
  mode: GpujsMode | undefined;
  modules: string[];
  loadedModules: Map<string, Record<string, unknown>>;
  scheduler: ConstructorParameters<typeof WorkerConnection>[1]['scheduler'];
  /** Called once when the thread is gone, before its tasks are handed back. */
  onLost: (w: GpujsWorker) => void;
}

/**
 * The worker thread that owns one GpujsProc's gpu.js runtime, with the scheduler's
 * `WorkerConnection` to it. `chosen` resolves with the mode it picked (or rejects when it
 * could not start). Idle, it does not keep node alive.
 */
export class GpujsWorker {
  readonly proc: GpujsProc;
  readonly connection: WorkerConnection;
  readonly stats = new DeviceStats();
  readonly chosen: Promise<ModeReport>;
  private readonly thread: Worker;
  private readonly transport: Transport;
  private readonly loads = new Map<number, { resolve(): void; reject(e: Error): void }>();
  private nextReq = 1;
  exited = false;

  constructor(options: GpujsWorkerOptions) {
    this.proc = new GpujsProc(options.worker, options.device);
    const channel = new MessageChannel();
    const runningTask = new Float64Array(new SharedArrayBuffer(8));
    const data: GpujsWorkerData = {
      worker: options.worker,
      device: options.device,
      port: channel.port2,
      mode: options.mode,
      stats: this.stats.slots,
      runningTask,
      modules: options.modules,
    };
    this.thread = new Worker(workerEntryUrl(), {
      workerData: data,
      transferList: [channel.port2],
      name: `dtask ${this.proc.id}`,
    });
    this.transport = portTransport(channel.port1);
    this.connection = new WorkerConnection(this.transport, {
      processor: this.proc,
      scheduler: options.scheduler,
      modules: options.loadedModules,
      runningTask,
      queueAhead: 64,
      cancelGraceMs: 1000,
      terminate: () => void this.thread.terminate(),
      onLost: () => this.gone(options),
    });
    let choose: (r: ModeReport) => void = () => {};
    let fail: (e: Error) => void = () => {};
    this.chosen = new Promise((resolve, reject) => {
      choose = resolve;
      fail = reject;
    });
    this.chosen.catch(() => {});
    this.thread.on('message', (m: GpujsAdminReply) => {
      if (m.op === 'chosen') choose(m.report);
      else if (m.op === 'startFailed') fail(Object.assign(new Error(m.error), { code: m.code }));
      else this.onLoad(m);
    });
    this.thread.on('error', (e) => fail(e));
    this.thread.once('exit', (code) => {
      fail(new Error(`${this.proc.id} exited with code ${code} while starting`));
      this.transport.close();
      this.gone(options);
    });
    this.chosen.then(
      () => this.thread.unref(),
      () => {},
    );
  }

  private gone(options: GpujsWorkerOptions): void {
    if (this.exited) return;
    this.exited = true;
    for (const [, l] of this.loads) l.reject(new WorkerLostError(`${this.proc.id} ended`));
    this.loads.clear();
    void this.thread.terminate();
    options.onLost(this);
  }

  /** Loads an `everywhere` module in the thread. */
  loadModule(url: string): Promise<void> {
    if (this.exited) return Promise.resolve();
    const req = this.nextReq++;
    this.thread.ref();
    return new Promise<void>((resolve, reject) => {
      this.loads.set(req, { resolve, reject });
      this.thread.postMessage({ op: 'load', req, url } satisfies GpujsAdminRequest);
    });
  }

  private onLoad(m: Extract<GpujsAdminReply, { req: number }>): void {
    const waiting = this.loads.get(m.req);
    if (!waiting) return;
    this.loads.delete(m.req);
    if (this.loads.size === 0) this.thread.unref();
    if (m.op === 'loaded') waiting.resolve();
    else waiting.reject(new Error(`${this.proc.id} could not load the module: ${m.error}`));
  }

  /** Ends the thread. */
  async terminate(): Promise<void> {
    if (this.exited) return;
    await this.connection.close();
    await this.thread.terminate();
  }
}
