import type { LocalStore } from '../chunk/local-store.js';
import type { Processor } from '../processor/processor.js';
import type {
  AdminFromWorker,
  AdminToWorker,
  AdminToWorkerOf,
  PeerAddress,
} from '../protocol/admin-protocol.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import type { Transport } from '../protocol/transport.js';
import { setupWorkerPlugins } from '../registry/worker-plugins.js';
import { runningTaskId } from '../task/frame.js';
import { answerLoad } from './answer-load.js';
import { loadWorkerModule } from './load-worker-module.js';
import type { ValueAdapter } from './value-adapter.js';
import { startWorkerRuntime, type WorkerRuntime } from './worker-runtime.js';
import type { WorkerRuntimeOptions } from './worker-runtime-options.js';

/** Who a worker is and what it sets up before it serves (start-up data, or the host's `init`). */
export interface WorkerStart {
  worker: number;
  thread: number;
  /**
   * The id of the processor it runs tasks as, where that is not `thread:<worker>:<thread>`
   * (a dedicated device thread's, e.g. `tfjs:1:0`): worker-side plugins name it.
   */
  processor?: string;
  /** The `everywhere` modules to load before serving, by URL. */
  modules: readonly string[];
  /**
   * The context's plugins that have a worker side, re-created here before serving. Left out,
   * the worker asks its host (`plugins?`, answered by `plugins`), so plugins added to the
   * context after the worker was started count.
   */
  specs?: readonly PluginSpec[];
  /** Peers to link to before serving, where the channel links by address (worker processes). */
  peers?: readonly PeerAddress[];
}

/** The links to peers a channel made before its worker serves. */
export interface PeerLinking {
  /** The processor ids of the peers reached (a worker process tells its host, see `ready`). */
  readonly reached: readonly string[];
  /** Hands the links to the runtime once it runs, and links that come later at once. */
  serve(runtime: WorkerRuntime): void;
}

/**
 * The worker's end of its channel to its host, which the plugin makes (a `MessagePort`, a
 * socket link): the runtime protocol's transport, the admin protocol both ways, how to link
 * to peers, and whether it wants heartbeats.
 */
export interface WorkerChannel {
  /** The runtime protocol to the scheduler. */
  readonly transport: Transport;
  /** Who this worker is and what it sets up. */
  readonly start: WorkerStart;
  /** Sends an admin message to the host. */
  send(message: AdminFromWorker): void;
  /** Calls `listener` with each admin message from the host, from now on. */
  onAdmin(listener: (message: AdminToWorker) => void): void;
  /**
   * Links to the peers already serving, before the runtime does (a task sent at once may
   * need them). Default: no peers.
   */
  linkPeers?(start: WorkerStart): Promise<PeerLinking>;
  /** The link a `peer` message hands over (threads of one process: a `MessagePort`). */
  peer?(message: AdminToWorkerOf<'peer'>): Transport;
  /**
   * Starts what answers the host's heartbeats (a worker process's heartbeat thread); resolves
   * once it listens. Runs after the runtime starts and before the worker says it is ready.
   */
  heartbeat?(worker: number): Promise<void>;
  /**
   * Whether the worker says `ready` over the admin protocol, naming the peers it reached, once
   * it serves (a worker process does: its host waits for it). Default false: the runtime's
   * own `ready` on the transport is enough for a thread's host.
   */
  announceReady?: boolean;
}

/** What a worker that hosts a device runs tasks as (see `ServeWorkerOptions.device`). */
export interface ServedDevice {
  /** The processor the runtime runs tasks as (the same id as the scheduler side's). */
  processor: Processor;
  /** Where results are kept (default: the worker-side plugins' store, else a `Map`). */
  store?: LocalStore;
  /** Converts values at the runtime's edges (see `ValueAdapter`). */
  adapter?: ValueAdapter;
}

/** How `serveWorker` runs the worker runtime and loads modules. */
export interface ServeWorkerOptions {
  /** Imports a module by URL (default: `loadWorkerModule`, naming the worker in errors). */
  load?: (url: string) => Promise<Record<string, unknown>>;
  /** Runtime options the kind of worker sets (threads watch stalls; processes block on answers). */
  runtime?: Pick<
    WorkerRuntimeOptions,
    'runningTask' | 'setProcessWorker' | 'blockingAnswers' | 'watchStalls'
  >;
  /**
   * Sets up the device a dedicated thread hosts (loads its library, registers its move rules),
   * given the store a worker-side plugin made (e.g. `@dtask/lmdb`'s spilling store): runs once
   * the plugins are set up and before the `everywhere` modules load, which may use what it set
   * up. The runtime then runs tasks as its processor, with its store and adapter.
   */
  device?: (hostStore: LocalStore | undefined) => ServedDevice | Promise<ServedDevice>;
}

/**
 * The whole worker-side start, over the channel a plugin made: loads the `everywhere` modules,
 * re-creates the context's worker-side plugins, sets up the device a dedicated thread hosts (asking the host for their specs where the
 * start does not list them), links to peers, starts core's worker runtime on the channel's
 * transport, starts heartbeats where the channel has them, says `ready` where it should, and
 * from then on answers the admin protocol: `load` (`loaded`/`loadFailed`), `peer`, `exit`.
 * Admin messages that come while it starts wait for the runtime. Rejects when the start fails
 * (a module or plugin that does not load); the caller decides how the worker ends.
 */
export async function serveWorker(
  channel: WorkerChannel,
  options: ServeWorkerOptions = {},
): Promise<WorkerRuntime> {
  const { start } = channel;
  const { worker, thread } = start;
  const where = start.processor ?? `thread ${worker}:${thread}`;
  const load = options.load ?? ((url: string) => loadWorkerModule(url, where));

  let runtime: WorkerRuntime | undefined;
  const early: AdminToWorker[] = [];
  let gotSpecs: (specs: readonly PluginSpec[]) => void = () => {};
  const specs =
    start.specs !== undefined
      ? Promise.resolve(start.specs)
      : new Promise<readonly PluginSpec[]>((resolve) => {
          gotSpecs = resolve;
        });
  const admin = (r: WorkerRuntime, m: AdminToWorker): void => {
    if (m.op === 'load') answerLoad(r, m, load, (answer) => channel.send(answer));
    else if (m.op === 'peer' && channel.peer) r.connectPeer(m.holder, channel.peer(m));
    else if (m.op === 'exit') process.exit(0);
  };
  channel.onAdmin((m) => {
    if (m.op === 'plugins') gotSpecs(m.specs);
    else if (runtime === undefined) early.push(m);
    else admin(runtime, m);
  });
  if (start.specs === undefined) channel.send({ op: 'plugins?' });

  const modules = new Map<string, Record<string, unknown>>();
  const loadModules = async () => {
    for (const url of start.modules) modules.set(url, await load(url));
  };
  if (!options.device) await loadModules();
  const place = { worker, thread, processor: start.processor };
  const store = await setupWorkerPlugins([...(await specs)], place, load);
  const device = await options.device?.(store);
  if (options.device) await loadModules();
  const peers = await channel.linkPeers?.(start);
  runtime = startWorkerRuntime(channel.transport, {
    worker,
    thread,
    idBase: (worker * 1024 + thread) * 2 ** 32,
    modules,
    store: device?.store ?? store,
    processor: device?.processor,
    adapter: device?.adapter,
    ...options.runtime,
  });
  const memory = options.runtime?.runningTask;
  if (memory !== undefined) nameTaskOnExit(memory);
  for (const [url, ns] of modules) runtime.addModule(url, ns);
  peers?.serve(runtime);
  for (const m of early.splice(0)) admin(runtime, m);
  await channel.heartbeat?.(worker);
  if (channel.announceReady) channel.send({ op: 'ready', peers: [...(peers?.reached ?? [])] });
  return runtime;
}

/**
 * Notes in the runtime's shared memory the task whose code ends this thread with
 * `process.exit()`, also from an async task function after an await (the runtime notes only
 * synchronous calls): the host reads it once the thread is gone, and blames the loss on it.
 */
function nameTaskOnExit(memory: Float64Array): void {
  process.on('exit', () => {
    const id = runningTaskId();
    if (id !== 0) memory[0] = id;
  });
}
