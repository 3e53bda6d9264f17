import { type MemorySpace, OSProc, Processor, ThreadProc } from '@dtask/core';
import { isGpujsTask } from './markers.js';

/** The memory of one gpu.js processor: its textures live here, used only by its `GpujsProc`. */
export class GpujsMemorySpace implements MemorySpace {
  readonly id: string;
  readonly kind = 'gpujs';
  constructor(
    readonly worker: number,
    readonly device: number,
  ) {
    this.id = `gpujs:${worker}:${device}`;
  }
}

/**
 * One gpu.js processor (id `gpujs:<worker>:<device>`), run by a dedicated worker thread of
 * process `worker` that owns gpu.js and its GL/WebGPU context. Not enabled by default: it runs
 * a task only when the task's scope names it (`scope({ gpujs: 0 })`, an exact scope) or its
 * function is a gpu.js task (`kernel(...)`, `gpujsTask(f)`).
 */
export class GpujsProc extends Processor {
  /** The kind of every `GpujsProc` (for `ProcessorTypeScope` and move rules). */
  static readonly kind = 'gpujs';
  readonly id: string;
  readonly kind = 'gpujs';

  constructor(
    readonly worker: number,
    readonly device: number,
  ) {
    super();
    this.id = `gpujs:${worker}:${device}`;
  }

  override getParent(): Processor {
    return new OSProc(this.worker);
  }

  override memorySpaces(): MemorySpace[] {
    return [new GpujsMemorySpace(this.worker, this.device)];
  }

  /**
   * True for a gpu.js task and for a task whose scope names this processor or gpu.js
   * processors as such; false for every other task, even one scoped `'any'`.
   */
  override isCompatible(options: object, f: unknown): boolean {
    if (isGpujsTask(f)) return true;
    const o = options as { scope?: unknown; computeScope?: unknown };
    return namesGpujs(o.computeScope ?? o.scope, this);
  }

  override get defaultEnabled(): boolean {
    return false;
  }
}

function namesGpujs(scope: unknown, proc: GpujsProc): boolean {
  if (typeof scope !== 'object' || scope === null) return false;
  const s = scope as {
    processor?: { id?: string };
    id?: string;
    kind?: string;
    scopes?: unknown[];
  };
  if (Array.isArray(s.scopes)) return s.scopes.some((x) => namesGpujs(x, proc));
  if (s.processor?.id === proc.id || s.id === proc.id) return true;
  return s.kind === GpujsProc.kind;
}

/** The CPU side of conversions: any thread of the process (move rules match by kind). */
export const CPU_SIDE = new ThreadProc(1, 1);
