// Runs inside each worker thread: re-creates the context's plugins that have a worker side
// (`setupWorker`, e.g. a storage plugin's spilling store), starts the core worker runtime on
// the channel the main thread handed over, links to peer runtimes, and loads `everywhere`
// modules on request.
import { parentPort, workerData } from 'node:worker_threads';
import type { PluginSpec } from '@dtask/core';
import * as dtask from '@dtask/core';
import {
  type AdminFromWorker,
  type AdminToWorker,
  answerLoad,
  loadWorkerModule,
  portTransport,
  setupWorkerPlugins,
  startWorkerRuntime,
  type WorkerRuntime,
} from '@dtask/core/worker';
import type { ThreadWorkerData } from './protocol.js';

const data = workerData as ThreadWorkerData;

// Functions that travel as source text reach the API through the `dtask` global (the
// free-variable check counts it as one every runtime has).
(globalThis as { dtask?: typeof dtask }).dtask ??= dtask;

const where = `thread ${data.worker}:${data.thread}`;
const load = (url: string) => loadWorkerModule(url, where);

// Admin requests that come while the thread starts wait for the runtime.
const early: AdminToWorker[] = [];
let started: WorkerRuntime | undefined;
let gotPlugins: (specs: PluginSpec[]) => void = () => {};
const pluginSpecs = new Promise<PluginSpec[]>((resolve) => {
  gotPlugins = resolve;
});
parentPort!.on('message', (m: AdminToWorker) => {
  if (m.op === 'plugins') gotPlugins(m.specs);
  else if (started === undefined) early.push(m);
  else admin(started, m);
});
parentPort!.postMessage({ op: 'plugins?' } satisfies AdminFromWorker);

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

function admin(runtime: WorkerRuntime, m: AdminToWorker): void {
  if (m.op === 'peer') runtime.connectPeer(m.holder, portTransport(m.port));
  else if (m.op === 'load') {
    // No TypeScript loader here: the main thread rejects with the same coded error.
    answerLoad(runtime, m, load, (answer) => parentPort!.postMessage(answer));
  }
}
