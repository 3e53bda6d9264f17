import { ThreadProc } from '@dtask/core';
import { DeviceMemorySpace, DeviceProc } from '@dtask/core/plugin';
import { placementOf } from './markers.js';

/** The memory of one TensorFlow.js device: tensors live here, used only by its `TfjsProc`
 * (the `DeviceMemorySpace` its processor reports has the same id). */
export class TfjsMemorySpace extends DeviceMemorySpace {
  /** The memory of device `device` in process `worker`. */
  constructor(worker: number, device: number) {
    super('tfjs', worker, device);
  }
}

/**
 * One TensorFlow.js device, run by a dedicated worker thread of process `worker` that owns the
 * runtime (API: id `tfjs:<worker>:<device>`). Not enabled by default: it runs a task only when
 * the task's scope names it (`scope({ gpu: 0 })`, `scope({ tfjs: 0 })`, an exact scope) or its
 * function is declared GPU-capable (`gpu(f)`, `gpuOrCpu(f)`).
 */
export class TfjsProc extends DeviceProc {
  /** The kind of every `TfjsProc` (for `ProcessorTypeScope` and move rules). */
  static readonly kind = 'tfjs';
  readonly kind = 'tfjs';

  constructor(worker: number, device: number) {
    super('tfjs', worker, device);
  }

  /** GPU-capable functions (`gpu`, `gpuOrCpu`) run here whatever their scope. */
  protected override claims(f: unknown): boolean {
    return placementOf(f) !== undefined;
  }
}

/** The CPU side of conversions: any thread of the process (move rules match by kind). */
export const CPU_SIDE = new ThreadProc(1, 1);
