import { type MemorySpace, OSProc, Processor, ThreadProc } from '@dtask/core';
import { placementOf } from './markers.js';

/** The memory of one TensorFlow.js device: tensors live here, used only by its `TfjsProc`. */
export class TfjsMemorySpace implements MemorySpace {
  readonly id: string;
  readonly kind = 'tfjs';
  constructor(
    readonly worker: number,
    readonly device: number,
  ) {
    this.id = `tfjs:${worker}:${device}`;
  }
}

/**
 * One TensorFlow.js device, run by a dedicated worker thread of process `worker` that owns the
 * runtime (API: id `tfjs:<worker>:<device>`). Not enabled by default: it runs a task only when
 * the task's scope names it (`scope({ gpu: 0 })`, `scope({ tfjs: 0 })`, an exact scope) or its
 * function is declared GPU-capable (`gpu(f)`, `gpuOrCpu(f)`).
 */
export class TfjsProc extends Processor {
  /** The kind of every `TfjsProc` (for `ProcessorTypeScope` and move rules). */
  static readonly kind = 'tfjs';
  readonly id: string;
  readonly kind = 'tfjs';

  constructor(
    readonly worker: number,
    readonly device: number,
  ) {
    super();
    this.id = `tfjs:${worker}:${device}`;
  }

  override getParent(): Processor {
    return new OSProc(this.worker);
  }

  override memorySpaces(): MemorySpace[] {
    return [new TfjsMemorySpace(this.worker, this.device)];
  }

  /**
   * True for a GPU-capable function (`gpu`, `gpuOrCpu`) and for a task whose scope names a
   * GPU processor; false for every other task, even one scoped `'any'` (a plain CPU task never
   * takes the GPU's slot).
   */
  override isCompatible(options: object, f: unknown): boolean {
    if (placementOf(f) !== undefined) return true;
    const o = options as { scope?: unknown; computeScope?: unknown };
    return namesGpu(o.computeScope ?? o.scope, this);
  }

  override get defaultEnabled(): boolean {
    return false;
  }
}

/** Whether a scope names this processor itself or GPU processors as such (not `any`/`default`). */
function namesGpu(scope: unknown, proc: TfjsProc): boolean {
  if (typeof scope !== 'object' || scope === null) return false;
  const s = scope as {
    processor?: { id?: string };
    id?: string;
    kind?: string;
    scopes?: unknown[];
    contains?(p: unknown): boolean;
  };
  if (Array.isArray(s.scopes)) return s.scopes.some((x) => namesGpu(x, proc));
  if (s.processor?.id === proc.id || s.id === proc.id) return true;
  return s.kind === TfjsProc.kind;
}

/** The CPU side of conversions: any thread of the process (move rules match by kind). */
export const CPU_SIDE = new ThreadProc(1, 1);
