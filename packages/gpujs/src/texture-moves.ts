import { move, type Processor } from '@dtask/core';
import { type MoveRule, registerMove } from '@dtask/core/plugin';
import type { ValueAdapter } from '@dtask/core/worker';
import { CPU_SIDE, GpujsProc } from './gpujs-proc.js';
import type { KernelRuntime } from './kernel-runtime.js';

/**
 * The move rules between a GpujsProc and CPU threads, registered in its worker thread:
 * textures become `Float32Array`s of their data on the way out (gpu.js `toArray`, flattened
 * row-major); typed arrays go in as they are (gpu.js reads them directly). Returns a remover.
 */
export function registerTextureMoves(runtime: KernelRuntime): () => void {
  const rules: MoveRule[] = [
    {
      name: 'texture → Float32Array',
      from: GpujsProc.kind,
      to: 'thread',
      match: (v) =>
        runtime.isTexture(v) || (Array.isArray(v) && v.some((x) => runtime.isTexture(x))),
      move: (_from, _to, v) =>
        Array.isArray(v)
          ? v.map((x) => (runtime.isTexture(x) ? runtime.toTypedArray(x) : x))
          : runtime.toTypedArray(v as never),
    },
  ];
  const removers = rules.map(registerMove);
  return () => {
    for (const r of removers) r();
  };
}

/**
 * Core's worker-runtime adapter for a GpujsProc: textures a task returns stay in the store
 * (never inline); values leaving the thread go through the move rules (textures become
 * typed arrays).
 */
export function gpujsAdapter(proc: Processor, runtime: KernelRuntime): ValueAdapter {
  return {
    toWire: (v) => move(proc, CPU_SIDE, v),
    keptBytes: (v) => runtime.bytesOf(v),
  };
}
