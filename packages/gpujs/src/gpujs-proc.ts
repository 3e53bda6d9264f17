import { ThreadProc } from '@dtask/core';
import { DeviceMemorySpace, DeviceProc } from '@dtask/core/plugin';
import { isGpujsTask } from './markers.js';

/** The memory of one gpu.js processor: its textures live here, used only by its `GpujsProc`
 * (the `DeviceMemorySpace` its processor reports has the same id). */
export class GpujsMemorySpace extends DeviceMemorySpace {
  /** The memory of device `device` in process `worker`. */
  constructor(worker: number, device: number) {
    super('gpujs', worker, device);
  }
}

/**
 * One gpu.js processor (id `gpujs:<worker>:<device>`), run by a dedicated worker thread of
 * process `worker` that owns gpu.js and its GL/WebGPU context. Not enabled by default: it runs
 * a task only when the task's scope names it (`scope({ gpujs: 0 })`, an exact scope) or its
 * function is a gpu.js task (`kernel(...)`, `gpujsTask(f)`).
 */
export class GpujsProc extends DeviceProc {
  /** The kind of every `GpujsProc` (for `ProcessorTypeScope` and move rules). */
  static readonly kind = 'gpujs';
  readonly kind = 'gpujs';

  constructor(worker: number, device: number) {
    super('gpujs', worker, device);
  }

  /** gpu.js tasks (`kernel(...)`, `gpujsTask(f)`) run here whatever their scope. */
  protected override claims(f: unknown): boolean {
    return isGpujsTask(f);
  }
}

/** The CPU side of conversions: any thread of the process (move rules match by kind). */
export const CPU_SIDE = new ThreadProc(1, 1);
