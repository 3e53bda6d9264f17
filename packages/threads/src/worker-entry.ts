// Runs inside each worker thread: makes the thread's channel to the main thread (the runtime
// protocol on the port handed over, the admin protocol on `parentPort`, peer links as ports)
// and hands it to core's `serveWorker`, which does the rest of the start.
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadStartData } from '@dtask/core/plugin';
import {
  type AdminToWorker,
  portTransport,
  prepareGlobalApi,
  serveWorker,
} from '@dtask/core/worker';

const data = workerData as ThreadStartData;
const port = parentPort!;

// Not a top-level await: in Node 20, a thread ended (terminate() or process.exit() in a module it
// imports) while an async module is being evaluated aborts the whole process (V8 "Check failed:
// (location_) != nullptr" in SourceTextModule::ExecuteAsyncModule). A start that fails ends the
// thread with its error, as an uncaught exception. The `dtask` global that functions travelling
// as source text name loads core's main entry when first read.
prepareGlobalApi()
  .then(() =>
    serveWorker(
      {
        transport: portTransport(data.port),
        // The plugins' specs are asked of the main thread, so that plugins added later count.
        start: {
          worker: data.worker,
          thread: data.thread,
          processor: data.processor,
          modules: data.modules,
          specs: data.plugins,
        },
        send: (m) => port.postMessage(m),
        onAdmin: (listener) => port.on('message', (m: AdminToWorker) => listener(m)),
        linkPeers: async () => ({
          reached: data.peers.map((p) => p.holder),
          serve: (runtime) => {
            for (const p of data.peers) runtime.connectPeer(p.holder, portTransport(p.port));
          },
        }),
        peer: (m) => portTransport(m.port),
      },
      {
        runtime: {
          runningTask: data.runningTask,
          setProcessWorker: false,
          // Tasks that wait on nothing but promises must not keep node alive.
          watchStalls: true,
        },
      },
    ),
  )
  .catch((error: unknown) =>
    process.nextTick(() => {
      throw error;
    }),
  );
