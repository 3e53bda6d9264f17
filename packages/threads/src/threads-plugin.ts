import { availableParallelism } from 'node:os';
import { MessageChannel, type ResourceLimits } from 'node:worker_threads';
import {
  ArgumentError,
  currentWorker,
  describeValue,
  type Plugin,
  type PluginHost,
} from '@dtask/core';
import { workerPluginSpecs } from '@dtask/core/worker';
import { ThreadWorker } from './thread-worker.js';

/** Options of `threads()`. */
export interface ThreadsOptions {
  /** Worker threads to start (threads 2 … count+1); default: available parallelism. */
  count?: number;
  /** Per-thread V8 limits; a thread that runs out of memory is replaced like one that crashed. */
  resourceLimits?: ResourceLimits;
  /**
   * Node flags for the threads, used as given; default: the main thread's (so `--import tsx`
   * carries over) without those that change what runs (`-e`, `-p`, `--input-type`, `--test`, …;
   * see core's `threadExecArgv`).
   */
  execArgv?: string[];
  /** How long a cancelled running task may take to stop before its thread is replaced (ms). */
  cancelGraceMs?: number;
  /**
   * Most tasks queued ahead on each thread beyond the running one (default 1024); the scheduler
   * also keeps only about 8 ms of estimated work queued there.
   */
  queueAhead?: number;
}

const KNOWN = new Set(['count', 'resourceLimits', 'execArgv', 'cancelGraceMs', 'queueAhead']);

function validate(
  options: ThreadsOptions,
): Required<Pick<ThreadsOptions, 'count' | 'cancelGraceMs' | 'queueAhead'>> {
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentError(
      `threads(options): options must be an object such as { count: 2 }; got ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) {
      throw new ArgumentError(
        `threads(options): unknown option '${key}'; known: ${[...KNOWN].join(', ')}`,
      );
    }
  }
  const count = options.count ?? availableParallelism();
  if (!Number.isInteger(count) || count < 1) {
    throw new ArgumentError(
      `threads({ count }): count must be a positive integer; got ${describeValue(options.count)}`,
    );
  }
  const cancelGraceMs = options.cancelGraceMs ?? 1000;
  if (!(typeof cancelGraceMs === 'number' && cancelGraceMs >= 0)) {
    throw new ArgumentError(
      `threads({ cancelGraceMs }): must be a number of milliseconds ≥ 0; got ${describeValue(options.cancelGraceMs)}`,
    );
  }
  const queueAhead = options.queueAhead ?? 1024;
  if (!Number.isInteger(queueAhead) || queueAhead < 0) {
    throw new ArgumentError(
      `threads({ queueAhead }): must be an integer ≥ 0; got ${describeValue(queueAhead)}`,
    );
  }
  checkResourceLimits(options.resourceLimits);
  const { execArgv } = options;
  if (execArgv !== undefined && !(Array.isArray(execArgv) && execArgv.every(isString))) {
    throw new ArgumentError(
      `threads({ execArgv }): must be an array of strings, such as ['--max-semi-space-size=64']; got ${describeValue(execArgv)}`,
    );
  }
  return { count, cancelGraceMs, queueAhead };
}

const LIMITS = [
  'maxOldGenerationSizeMb',
  'maxYoungGenerationSizeMb',
  'codeRangeSizeMb',
  'stackSizeMb',
];

/** `resourceLimits` as `new Worker` takes it: an object of positive sizes in MB. */
function checkResourceLimits(limits: unknown): void {
  if (limits === undefined) return;
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    throw new ArgumentError(
      `threads({ resourceLimits }): must be an object such as { maxOldGenerationSizeMb: 512 }; got ${describeValue(limits)}`,
    );
  }
  for (const [key, value] of Object.entries(limits)) {
    if (!LIMITS.includes(key)) {
      throw new ArgumentError(
        `threads({ resourceLimits }): unknown limit '${key}'; known: ${LIMITS.join(', ')}`,
      );
    }
    if (!(typeof value === 'number' && value > 0)) {
      throw new ArgumentError(
        `threads({ resourceLimits }): ${key} must be a positive number of MB; got ${describeValue(value)}`,
      );
    }
  }
}

function isString(x: unknown): x is string {
  return typeof x === 'string';
}

/** Consecutive deaths before a thread is ready after which its number is not replaced again. */
const MAX_START_FAILURES = 3;

/**
 * The threads plugin: adds a `ThreadProc` per `node:worker_threads` worker (threads 2 …
 * count+1 of this process) running the core worker runtime over MessagePorts, with a direct
 * channel between every two threads for moving results. A thread that dies is replaced under
 * the same number; the tasks it held run again.
 */
export function threads(
  options: ThreadsOptions = {},
): Plugin & { threadWorkers(): ThreadWorker[] } {
  const { count, cancelGraceMs, queueAhead } = validate(options);
  const workers = new Map<number, ThreadWorker>();
  const modules: string[] = [];
  let host: PluginHost | undefined;
  let closing = false;
  const startFailures = new Map<number, number>();
  // Every two threads of this plugin have a channel of their own (see `start`).
  const linked = new WeakSet<object>();

  const start = (thread: number): ThreadWorker => {
    const peers = [...workers.values()].filter((w) => !w.exited);
    const links = peers.map((peer) => {
      const channel = new MessageChannel();
      peer.addPeer({ holder: `thread:${currentWorker()}:${thread}`, port: channel.port1 });
      return { holder: peer.proc.id, port: channel.port2 };
    });
    const worker = new ThreadWorker({
      worker: currentWorker(),
      thread,
      peers: links,
      modules: [...modules],
      loadedModules: host!.context.modules,
      scheduler: host!.context.scheduler,
      resourceLimits: options.resourceLimits,
      execArgv: options.execArgv,
      cancelGraceMs,
      queueAhead,
      pluginSpecs: () => workerPluginSpecs(host!.context.pluginList()),
      linkedTo: (other) => linked.has(other),
      onLost: (w) => {
        if (workers.get(thread) !== w) return;
        host!.removeProcessor(w.proc);
        if (closing || host!.context.isClosed) return;
        // A thread that keeps dying before it is ready (e.g. an everywhere module that exits
        // on import) is not replaced forever: after a few tries its number is given up.
        const failed = w.connection.wasReady ? 0 : (startFailures.get(thread) ?? 0) + 1;
        startFailures.set(thread, failed);
        if (failed >= MAX_START_FAILURES) {
          process.emitWarning(
            `dtask: thread ${w.proc.id} died ${failed} times while starting (exit code ${w.exitCode}); it is not replaced again. Check the modules loaded with everywhere() and the thread's resourceLimits.`,
          );
          return;
        }
        // Replace it under the same number before its tasks are handed back, so that they
        // (even those scoped to this thread) are placed again, on the new thread or another.
        const next = start(thread);
        host!.addProcessor(next.proc, next.connection);
      },
    });
    workers.set(thread, worker);
    linked.add(worker.connection);
    return worker;
  };

  return {
    name: 'threads',
    spec: { module: '@dtask/threads', factory: 'threads', options },
    async setup(h) {
      host = h;
      // `everywhere` modules loaded before this context was made: its threads load them too.
      for (const url of h.context.modules.keys()) if (!modules.includes(url)) modules.push(url);
      const started: ThreadWorker[] = [];
      for (let i = 0; i < count; i++) {
        const w = start(i + 2);
        h.addProcessor(w.proc, w.connection);
        started.push(w);
      }
      await Promise.all(started.map((w) => w.online));
    },
    async loadModule(url) {
      modules.push(url);
      try {
        await Promise.all([...workers.values()].map((w) => w.loadModule(url)));
      } catch (error) {
        // A thread ended while loading it: new threads do not load it (see ThreadWorker).
        const at = modules.indexOf(url);
        if (at >= 0) modules.splice(at, 1);
        throw error;
      }
    },
    async close() {
      closing = true;
      // Tasks still on the threads fail (as `Context.close` promises) instead of being handed
      // back, which would run them on the main thread after the context closed: those that
      // never started are cancelled, the others lost.
      const live = [...workers.values()].filter((w) => !w.exited);
      for (const w of live) host?.removeProcessor(w.proc);
      await Promise.all(live.map((w) => w.connection.failInFlightOnClose()));
      await Promise.all(live.map((w) => w.terminate()));
    },
    threadWorkers: () => [...workers.values()],
  };
}
