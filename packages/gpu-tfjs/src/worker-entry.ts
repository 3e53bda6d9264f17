// Runs inside the TfjsProc's worker thread, which owns the TensorFlow.js runtime: picks the
// backend, installs the tensor move rules, the tensor store and core's value adapter, and starts
// core's worker runtime on the channel the main thread handed over.
import { parentPort, workerData } from 'node:worker_threads';
import * as dtask from '@dtask/core';
import { logEvent, now, startWorkerRuntime, type WorkerRuntime } from '@dtask/core/worker';
import { portTransport } from '@dtask/threads';
import type { Tensor } from '@tensorflow/tfjs';
import { DeviceStats } from './device-stats.js';
import type { TfjsAdminReply, TfjsAdminRequest, TfjsWorkerData } from './protocol.js';
import { selectBackend } from './select-backend.js';
import { TensorConversions } from './tensor-conversions.js';
import { TensorStore } from './tensor-store.js';
import { registerTensorMoves, tfjsAdapter } from './tfjs-adapter.js';
import { TfjsProc } from './tfjs-proc.js';

const data = workerData as TfjsWorkerData;
const reply = (m: TfjsAdminReply) => parentPort!.postMessage(m);

// Functions that travel as source text reach the API and TensorFlow.js through globals.
(globalThis as { dtask?: typeof dtask }).dtask ??= dtask;

async function load(url: string): Promise<Record<string, unknown>> {
  const ns = (await import(url)) as Record<string, unknown>;
  const d = ns.default;
  return d && typeof d === 'object' ? { ...(d as Record<string, unknown>), ...ns } : ns;
}

const early: TfjsAdminRequest[] = [];
let runtime: WorkerRuntime | undefined;
parentPort!.on('message', (m: TfjsAdminRequest) => (runtime ? admin(runtime, m) : early.push(m)));

async function start(): Promise<void> {
  const choice = await selectBackend(data.backend);
  (globalThis as { tf?: unknown }).tf = choice.tf;
  reply({
    op: 'chosen',
    report: {
      backend: choice.backend,
      module: choice.module,
      gpu: choice.gpu,
      skipped: [...choice.skipped],
    },
  });
  const proc = new TfjsProc(data.worker, data.device);
  const stats = new DeviceStats(data.stats);
  const conversions = new TensorConversions(choice.tf, stats, (e) =>
    reply({ op: 'event', ...e, time: now() }),
  );
  registerTensorMoves(conversions);
  const inUse = new Set<Tensor>();
  const store = new TensorStore(conversions, stats, data.memoryLimit, inUse);
  const afterTask = () => {
    const m = choice.tf.memory();
    stats.set('bytesOnDevice', m.numBytes);
    stats.set('tensors', m.numTensors);
    // While logging is on, the device's memory after each task goes to the logs as well.
    if (dtask.isLoggingEnabled()) {
      logEvent({
        kind: 'device-memory',
        time: now(),
        processor: proc.id,
        bytes: m.numBytes,
        detail: `${m.numTensors} tensors on the device`,
      });
    }
  };
  const modules = new Map<string, Record<string, unknown>>();
  for (const url of data.modules) modules.set(url, await load(url));
  runtime = startWorkerRuntime(portTransport(data.port), {
    worker: data.worker,
    thread: 0,
    processor: proc,
    idBase: (data.worker * 1024 + 512 + data.device) * 2 ** 32,
    runningTask: data.runningTask,
    modules,
    setProcessWorker: false,
    store,
    adapter: tfjsAdapter(proc, conversions, inUse, afterTask),
  });
  for (const [url, ns] of modules) runtime.addModule(url, ns);
  for (const m of early.splice(0)) admin(runtime, m);
}

start().catch((error: unknown) => reply({ op: 'startFailed', error: String(error) }));

function admin(rt: WorkerRuntime, m: TfjsAdminRequest): void {
  load(m.url).then(
    (ns) => {
      rt.addModule(m.url, ns);
      reply({ op: 'loaded', req: m.req });
    },
    (error) => reply({ op: 'loadFailed', req: m.req, error: String(error) }),
  );
}
