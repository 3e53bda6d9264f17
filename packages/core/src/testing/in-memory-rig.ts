import type { LocalStore } from '../chunk/local-store.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { inMemoryTransportPair } from '../protocol/in-memory-transport.js';
import type { Transport } from '../protocol/transport.js';
import { Context } from '../registry/context.js';
import type { Plugin } from '../registry/plugin.js';
import type { ValueAdapter } from '../runtime/value-adapter.js';
import { startWorkerRuntime, type WorkerRuntime } from '../runtime/worker-runtime.js';
import type { WorkerConnection } from '../sched/executors/worker-connection/worker-connection.js';

/** What `inMemoryRig` made: the context, its worker processors, their runtimes and links. */
export interface InMemoryRig {
  ctx: Context;
  procs: ThreadProc[];
  runtimes: WorkerRuntime[];
  /** The scheduler's end of each runtime's transport. */
  links: Transport[];
}

/**
 * For tests: a context with `n` worker runtimes on this thread, over in-memory transports, as
 * processors `thread:1:2` to `thread:1:n+1` (each with its own `store` and `adapter`, if given), connected
 * to each other as peers unless `peers` is false; `wakeMs(i)` is what waking the `i`-th costs
 * placement (`WorkerConnectionOptions.wakeMs`). The real scheduler-to-runtime protocol without
 * worker threads.
 */
export function inMemoryRig(
  n: number,
  {
    store,
    peers = true,
    adapter,
    wakeMs,
  }: {
    store?: () => LocalStore;
    peers?: boolean;
    adapter?: () => ValueAdapter;
    wakeMs?: (i: number) => number;
  } = {},
): InMemoryRig {
  const runtimes: WorkerRuntime[] = [];
  const procs: ThreadProc[] = [];
  const links: Transport[] = [];
  const connections = new Set<WorkerConnection>();
  const plugin: Plugin = {
    name: 'in-memory-workers',
    setup(host) {
      for (let i = 0; i < n; i++) {
        const proc = new ThreadProc(1, i + 2);
        const [mainEnd, workerEnd] = inMemoryTransportPair();
        runtimes.push(
          startWorkerRuntime(workerEnd, {
            worker: 1,
            thread: i + 2,
            store: store?.(),
            adapter: adapter?.(),
          }),
        );
        const conn: WorkerConnection = host.connectWorker(mainEnd, {
          processor: proc,
          wakeMs: wakeMs?.(i),
          onLost: () => host.removeProcessor(proc),
          // With `peers`, every runtime of the rig links to every other one (below).
          linkedTo: (other): boolean => peers && other !== conn && connections.has(other),
        });
        connections.add(conn);
        host.addProcessor(proc, conn);
        procs.push(proc);
        links.push(mainEnd);
      }
      for (let i = 0; peers && i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const [x, y] = inMemoryTransportPair();
          runtimes[i].connectPeer(procs[j].id, x);
          runtimes[j].connectPeer(procs[i].id, y);
        }
      }
    },
  };
  return { ctx: new Context({ plugins: [plugin] }), procs, runtimes, links };
}
