import { MessageChannel } from 'node:worker_threads';
import { currentWorker } from '@dtask/core';
import { type Plugin, type PluginHost, WorkerPool } from '@dtask/core/plugin';
import { workerPluginSpecs } from '@dtask/core/worker';
import { ElasticPool } from './elastic-pool.js';
import { ThreadWorker } from './thread-worker.js';
import { type ThreadsOptions, validateThreadsOptions } from './threads-options.js';

export type { ThreadsOptions } from './threads-options.js';

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
  /** Threads being retired: out of the pool, their numbers not free until they have ended. */
  const retiring = new Map<number, ThreadWorker>();
  let elastic: ElasticPool | undefined;
  let host: PluginHost | undefined;
  let pool: WorkerPool<ThreadWorker> | undefined;
  // Every two threads of this plugin have a channel of their own (see `start`).
  const linked = new WeakSet<object>();

  const start = (thread: number, modules: readonly string[]): ThreadWorker => {
    const peers = [...pool!.workers.values()].filter((w) => !w.exited);
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
      connect: host!.connectWorker,
      resourceLimits: options.resourceLimits,
      execArgv: options.execArgv,
      cancelGraceMs,
      queueAhead,
      pluginSpecs: () => workerPluginSpecs(host!.context.pluginList()),
      linkedTo: (other) => linked.has(other),
      // Replaced under the same number before its tasks are handed back, so that they (even
      // those scoped to this thread) are placed again, on the new thread or another.
      onLost: (w) => pool!.lost(thread, w, `exit code ${w.exitCode}`),
    });
    linked.add(worker.connection);
    return worker;
  };

  /** Starts a thread under the lowest free number and adds its processor. */
  const grow = (): ThreadWorker => {
    let thread = 2;
    while (pool!.workers.has(thread) || retiring.has(thread)) thread++;
    pool!.forgetFailures(thread); // a number freed by a retired thread starts afresh
    return pool!.start(thread);
  };

  /**
   * Ends an idle thread for good: no task is placed there any more, the results it holds
   * come to the main thread (so they are not recomputed), then it exits. Never rejects.
   */
  const retire = async (w: ThreadWorker): Promise<{ moved: number }> => {
    const thread = w.proc.thread;
    pool!.workers.delete(thread);
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
      pool = new WorkerPool<ThreadWorker>({
        host: h,
        start,
        // A thread that keeps dying before it is ready (e.g. an everywhere module that exits
        // on import) is not replaced forever: after a few tries its number is given up.
        givenUp: (w, _thread, failed) =>
          `thread ${w.proc.id} died ${failed} times while starting (exit code ${w.exitCode}); it is not replaced again. Check the modules loaded with everywhere() and the thread's resourceLimits.`,
      });
      const started: ThreadWorker[] = [];
      for (let i = 0; i < min; i++) started.push(grow());
      if (max > min) {
        const workers = pool.workers;
        elastic = new ElasticPool({
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
    // A thread that ends while loading a module is not given it again (see ThreadWorker).
    loadModule: (url) => pool!.loadModule(url),
    async close() {
      elastic?.close();
      await pool?.close();
      await Promise.all([...retiring.values()].map((w) => w.terminate()));
    },
    threadWorkers: () => [...(pool?.workers.values() ?? [])],
  };
}
