// Runs inside each worker thread: re-creates the context's plugins that have a worker side
// (`setupWorker`, e.g. a storage plugin's spilling store), starts the core worker runtime on
// the channel the main thread handed over, links to peer runtimes, and loads `everywhere`
// modules on request.
import { parentPort, workerData } from 'node:worker_threads';
import type { PluginSpec } from '@dtask/core';
import * as dtask from '@dtask/core';
import {
  loadWorkerModule,
  portTransport,
  setupWorkerPlugins,
  startWorkerRuntime,
  type WorkerRuntime,
} from '@dtask/core/worker';
import type { AdminReply, AdminRequest, ThreadWorkerData } from './protocol.js';

const data = workerData as ThreadWorkerData;

// Functions that travel as source text reach the API through the `dtask` global (the
// free-variable check counts it as one every runtime has).
(globalThis as { dtask?: typeof dtask }).dtask ??= dtask;

const where = `thread ${data.worker}:${data.thread}`;
const load = (url: string) => loadWorkerModule(url, where);

// Admin requests that come while the thread starts wait for the runtime.
const early: AdminRequest[] = [];
let started: WorkerRuntime | undefined;
let gotPlugins: (specs: PluginSpec[]) => void = () => {};
const pluginSpecs = new Promise<PluginSpec[]>((resolve) => {
  gotPlugins = resolve;
});
parentPort!.on('message', (m: AdminRequest) => {
  if (m.op === 'plugins') gotPlugins(m.specs);
  else if (started === undefined) early.push(m);
  else admin(started, m);
});
parentPort!.postMessage({ op: 'plugins?' } satisfies AdminReply);

/** Loads the `everywhere` modules and the plugins, then starts the runtime. */
async function start(): Promise<void> {
  const modules = new Map<string, Record<string, unknown>>();
  for (const url of data.modules) modules.set(url, await load(url));
  const store = await setupWorkerPlugins(
    await pluginSpecs,
    { worker: data.worker, thread: data.thread },
    load,
  );
  const runtime = startWorkerRuntime(portTransport(data.port), {
    worker: data.worker,
    thread: data.thread,
    idBase: (data.worker * 1024 + data.thread) * 2 ** 32,
    runningTask: data.runningTask,
    modules,
    setProcessWorker: false,
    store,
    // Tasks that wait on nothing but promises must not keep node alive.
    watchStalls: true,
  });
  started = runtime;
  for (const [url, ns] of modules) runtime.addModule(url, ns);
  for (const peer of data.peers) runtime.connectPeer(peer.holder, portTransport(peer.port));
  for (const m of early.splice(0)) admin(runtime, m);
}

// Not a top-level await: in Node 20, a thread ended (terminate() or process.exit() in a module it
// imports) while an async module is being evaluated aborts the whole process (V8 "Check failed:
// (location_) != nullptr" in SourceTextModule::ExecuteAsyncModule). A start that fails ends the
// thread with its error, as an uncaught exception.
start().catch((error: unknown) =>
  process.nextTick(() => {
    throw error;
  }),
);

function admin(runtime: WorkerRuntime, m: AdminRequest): void {
  if (m.op === 'plugins') return;
  if (m.op === 'peer') {
    runtime.connectPeer(m.holder, portTransport(m.port));
    return;
  }
  load(m.url).then(
    (ns) => {
      runtime.addModule(m.url, ns);
      parentPort!.postMessage({ op: 'loaded', req: m.req } satisfies AdminReply);
    },
    (error) => {
      // No TypeScript loader here: the main thread rejects with the same coded error.
      const unsupported = (error as { code?: unknown })?.code === 'DTASK_UNSUPPORTED';
      parentPort!.postMessage({
        op: 'loadFailed',
        req: m.req,
        error: unsupported ? (error as Error).message : String(error),
        ...(unsupported ? { code: 'DTASK_UNSUPPORTED' as const } : {}),
      } satisfies AdminReply);
    },
  );
}
