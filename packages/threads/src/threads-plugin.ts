import { MessageChannel } from 'node:worker_threads';
import { currentWorker, type Plugin, type PluginHost } from '@dtask/core';
import { workerPluginSpecs } from '@dtask/core/worker';
import { ElasticPool } from './elastic-pool.js';
import { ThreadWorker } from './thread-worker.js';
import { type ThreadsOptions, validateThreadsOptions } from './threads-options.js';

export type { ThreadsOptions } from './threads-options.js';

/** Consecutive deaths before a thread is ready after which its number is not replaced again. */
const MAX_START_FAILURES = 3;

/**
 * The threads plugin: adds a `ThreadProc` per `node:worker_threads` worker (threads 2 …
 * count+1 of this process) running the core worker runtime over MessagePorts, with a direct
 * channel between every two threads for moving results. A thread that dies is replaced under
 * the same number; the tasks it held run again. With `min`/`max` the pool grows under load
 * and retires idle threads (`ElasticPool`); a thread started then takes the lowest free
 * number, so thread numbers stay within 2 … max+1.
 */
export function threads(
  options: ThreadsOptions = {},
): Plugin & { threadWorkers(): ThreadWorker[] } {
  const { min, max, idleTimeoutMs, cancelGraceMs, queueAhead } = validateThreadsOptions(options);
  const workers = new Map<number, ThreadWorker>();
  /** Threads being retired: out of `workers`, their numbers not free until they have ended. */
  const retiring = new Map<number, ThreadWorker>();
  let pool: ElasticPool | undefined;
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

  /** Starts a thread under the lowest free number and adds its processor. */
  const grow = (): ThreadWorker => {
    let thread = 2;
    while (workers.has(thread) || retiring.has(thread)) thread++;
    startFailures.delete(thread); // a number freed by a retired thread starts afresh
    const w = start(thread);
    host!.addProcessor(w.proc, w.connection);
    return w;
  };

  /**
   * Ends an idle thread for good: no task is placed there any more, the results it holds
   * come to the main thread (so they are not recomputed), then it exits. Never rejects.
   */
  const retire = async (w: ThreadWorker): Promise<{ moved: number }> => {
    const thread = w.proc.thread;
    workers.delete(thread);
    retiring.set(thread, w);
    host!.removeProcessor(w.proc, `its thread was retired after ${idleTimeoutMs} ms idle`);
    try {
      const moved = await w.connection.bringResultsHome();
      await w.terminate();
      return { moved };
    } finally {
      retiring.delete(thread);
    }
  };

  return {
    name: 'threads',
    spec: { module: '@dtask/threads', factory: 'threads', options },
    async setup(h) {
      host = h;
      // `everywhere` modules loaded before this context was made: its threads load them too.
      for (const url of h.context.modules.keys()) if (!modules.includes(url)) modules.push(url);
      const started: ThreadWorker[] = [];
      for (let i = 0; i < min; i++) started.push(grow());
      if (max > min) {
        pool = new ElasticPool({
          host: h,
          min,
          max,
          idleTimeoutMs,
          threads: () => workers.values(),
          size: () => workers.size + retiring.size,
          grow,
          retire,
        });
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
      pool?.close();
      // Tasks still on the threads fail (as `Context.close` promises) instead of being handed
      // back, which would run them on the main thread after the context closed: those that
      // never started are cancelled, the others lost.
      const live = [...workers.values()].filter((w) => !w.exited);
      for (const w of live) host?.removeProcessor(w.proc);
      await Promise.all(live.map((w) => w.connection.failInFlightOnClose()));
      await Promise.all([...live, ...retiring.values()].map((w) => w.terminate()));
    },
    threadWorkers: () => [...workers.values()],
  };
}
