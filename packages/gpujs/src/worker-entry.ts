// Runs inside the GpujsProc's worker thread, which owns gpu.js and its GL/WebGPU context: picks
// the mode, installs the texture move rules, the texture store and core's value adapter, exposes
// the kernel runtime as the global `gpujs`; core's `runDedicatedThread` starts its worker
// runtime on the channel the main thread handed over.
// Core's main entry sets the `dtask` global that functions travelling as source text name.
import '@dtask/core';
import { runDedicatedThread } from '@dtask/core/plugin';
import { DeviceStats } from './device-stats.js';
import { GpujsProc } from './gpujs-proc.js';
import { KernelRuntime } from './kernel-runtime.js';
import type { ModeReport } from './modes.js';
import type { GpujsThreadData } from './protocol.js';
import { selectMode } from './select-mode.js';
import { gpujsAdapter, registerTextureMoves } from './texture-moves.js';
import { TextureStore } from './texture-store.js';

void runDedicatedThread<GpujsThreadData, ModeReport>(async ({ worker, data }) => {
  const choice = await selectMode(data.mode);
  const stats = new DeviceStats(data.stats);
  const kernels = new KernelRuntime(choice.gpujs, choice.gpu, choice.report.mode, stats);
  (globalThis as { gpujs?: unknown }).gpujs = kernels;
  registerTextureMoves(kernels);
  const proc = new GpujsProc(worker, data.device);
  return {
    processor: proc,
    report: choice.report,
    store: new TextureStore(kernels, stats),
    adapter: gpujsAdapter(proc, kernels),
  };
});
