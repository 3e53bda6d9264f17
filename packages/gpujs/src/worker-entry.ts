// Runs inside the GpujsProc's worker thread, which owns gpu.js and its GL/WebGPU context: picks
// the mode, installs the texture move rules, the texture store and core's value adapter, exposes
// the kernel runtime as the global `gpujs`, and starts core's worker runtime on the channel the
// main thread handed over.
import { parentPort, workerData } from 'node:worker_threads';
import * as dtask from '@dtask/core';
import { startWorkerRuntime, type WorkerRuntime } from '@dtask/core/worker';
import { portTransport } from '@dtask/threads';
import { DeviceStats } from './device-stats.js';
import { GpujsProc } from './gpujs-proc.js';
import { KernelRuntime } from './kernel-runtime.js';
import type { GpujsAdminReply, GpujsAdminRequest, GpujsWorkerData } from './protocol.js';
import { selectMode } from './select-mode.js';
import { gpujsAdapter, registerTextureMoves } from './texture-moves.js';
import { TextureStore } from './texture-store.js';

const data = workerData as GpujsWorkerData;
const reply = (m: GpujsAdminReply) => parentPort!.postMessage(m);

// Functions that travel as source text reach the API and the kernel runtime through globals.
(globalThis as { dtask?: typeof dtask }).dtask ??= dtask;

async function load(url: string): Promise<Record<string, unknown>> {
  const ns = (await import(url)) as Record<string, unknown>;
  const d = ns.default;
  return d && typeof d === 'object' ? { ...(d as Record<string, unknown>), ...ns } : ns;
}

const early: GpujsAdminRequest[] = [];
let runtime: WorkerRuntime | undefined;
parentPort!.on('message', (m: GpujsAdminRequest) => (runtime ? admin(runtime, m) : early.push(m)));

async function start(): Promise<void> {
  const choice = await selectMode(data.mode);
  const stats = new DeviceStats(data.stats);
  const kernels = new KernelRuntime(choice.gpujs, choice.gpu, choice.report.mode, stats);
  (globalThis as { gpujs?: unknown }).gpujs = kernels;
  registerTextureMoves(kernels);
  const proc = new GpujsProc(data.worker, data.device);
  const modules = new Map<string, Record<string, unknown>>();
  for (const url of data.modules) modules.set(url, await load(url));
  runtime = startWorkerRuntime(portTransport(data.port), {
    worker: data.worker,
    thread: 0,
    processor: proc,
    idBase: (data.worker * 1024 + 768 + data.device) * 2 ** 32,
    runningTask: data.runningTask,
    modules,
    setProcessWorker: false,
    store: new TextureStore(kernels, stats),
    adapter: gpujsAdapter(proc, kernels),
  });
  for (const [url, ns] of modules) runtime.addModule(url, ns);
  reply({ op: 'chosen', report: choice.report });
  for (const m of early.splice(0)) admin(runtime, m);
}

start().catch((error: unknown) =>
  reply({
    op: 'startFailed',
    error: String((error as Error)?.message ?? error),
    code: (error as { code?: string })?.code,
  }),
);

function admin(rt: WorkerRuntime, m: GpujsAdminRequest): void {
  load(m.url).then(
    (ns) => {
      rt.addModule(m.url, ns);
      reply({ op: 'loaded', req: m.req });
    },
    (error) => reply({ op: 'loadFailed', req: m.req, error: String(error) }),
  );
}
