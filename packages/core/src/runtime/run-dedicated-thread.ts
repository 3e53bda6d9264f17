import { parentPort, workerData } from 'node:worker_threads';
import type { LocalStore } from '../chunk/local-store.js';
import { serializeError } from '../errors/serialize-error.js';
import { now } from '../log/event-log.js';
import type { Processor } from '../processor/processor.js';
import type { AdminFromWorker, RelayedEvent } from '../protocol/admin-protocol.js';
import { portTransport } from '../protocol/port-transport.js';
import type { ThreadStartData } from '../protocol/thread-start-data.js';
import { serveWorker, type WorkerChannel } from './serve-worker.js';
import type { ValueAdapter } from './value-adapter.js';
import type { WorkerRuntime } from './worker-runtime.js';

/** What a dedicated thread's setup hook gets. */
export interface DedicatedThreadStart<D> {
  /** The worker (OS process) id of the processor the thread runs. */
  readonly worker: number;
  /** The plugin's start-up data (`DedicatedThreadOptions.data`). */
  readonly data: D;
  /**
   * The store a re-created worker-side plugin gave (`DedicatedThreadStartOptions.workerPlugins`),
   * e.g. `@dtask/lmdb`'s spilling store, which keeps host memory under its limit by moving
   * entries to disk; undefined when none did. A setup that returns no `store` runs with it.
   */
  readonly hostStore: LocalStore | undefined;
  /** Relays a log event to the scheduler, recorded there as the processor's (any time). */
  event(e: RelayedEvent): void;
}

/** What a dedicated thread's setup hook makes: the runtime's parts and the report to send. */
export interface DedicatedThreadSetup<R> {
  /** The processor the runtime runs tasks as (the same id as the scheduler side's). */
  processor: Processor;
  /** What `DedicatedThread.started` resolves with (structured-cloneable), e.g. the backend chosen. */
  report: R;
  /** Where results are kept (default: a `Map`), e.g. a store of device buffers. */
  store?: LocalStore;
  /** Converts values at the runtime's edges (see `ValueAdapter`). */
  adapter?: ValueAdapter;
}

/**
 * The entry side of a `DedicatedThread`, called once by the thread's entry script: core's
 * `serveWorker` over the thread's channel (re-creates the worker-side plugins, runs `setup`, the
 * plugin's part: load its library, pick a backend, register move rules; loads the `everywhere`
 * modules and starts the worker runtime as `setup`'s processor), then reports `setup`'s report;
 * an error thrown on the way is reported instead, with its class and code (the host then ends
 * the thread). `everywhere` modules asked for meanwhile load once the runtime is up. Returns the
 * runtime once it has started.
 */
export async function runDedicatedThread<D, R>(
  setup: (
    start: DedicatedThreadStart<D>,
  ) => DedicatedThreadSetup<R> | Promise<DedicatedThreadSetup<R>>,
): Promise<WorkerRuntime | undefined> {
  const port = parentPort;
  if (port === null) throw new Error('runDedicatedThread: call it in a worker thread');
  const given = workerData as ThreadStartData<D>;
  const reply = (m: AdminFromWorker<R>) => port.postMessage(m);
  const channel: WorkerChannel = {
    transport: portTransport(given.port),
    start: {
      worker: given.worker,
      thread: given.thread,
      processor: given.processor,
      modules: given.modules,
      specs: given.plugins,
    },
    send: reply,
    onAdmin: (listener) => port.on('message', listener),
  };
  let report: R | undefined;
  try {
    const runtime = await serveWorker(channel, {
      runtime: { runningTask: given.runningTask, setProcessWorker: false },
      device: async (hostStore) => {
        const made = await setup({
          worker: given.worker,
          data: given.data,
          hostStore,
          event: (e) => reply({ op: 'event', ...e, time: now() }),
        });
        report = made.report;
        return made;
      },
    });
    reply({ op: 'started', report: report as R });
    return runtime;
  } catch (error) {
    reply({ op: 'startFailed', error: serializeError(error) });
    return undefined;
  }
}
