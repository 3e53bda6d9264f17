import { ThreadProc } from '@dtask/core';
import { DeviceProc } from '@dtask/core/plugin';

/**
 * A simulated accelerator (`accel:<worker>:<index>`): a processor with a memory space of its
 * own (core's `DeviceMemorySpace`, the same id), run by a dedicated worker thread of process
 * `worker`, as a real accelerator's driver thread would be. Like a GPU in Dagger it is not
 * default-enabled: a task runs here only when its scope names it (`scope({ accel: 0 })`, an
 * exact or a processor-type scope). Its kernels are plain JavaScript over `DeviceArray`s, run
 * one at a time in its thread.
 */
export class AccelProc extends DeviceProc {
  /** The kind of every `AccelProc` (for `ProcessorTypeScope` and move rules). */
  static readonly kind = 'accel';
  /** Always `accel`. */
  readonly kind = 'accel';

  /**
   * @param worker the OS process it belongs to (its parent is `OSProc(worker)`)
   * @param index its number among that process's accelerators, from 0
   */
  constructor(worker: number, index: number) {
    super('accel', worker, index);
  }

  /** Its number among its process's accelerators (the `device` of core's `DeviceProc`). */
  get index(): number {
    return this.device;
  }

  /** None: only tasks whose scope names it run here (Dagger's rule for accelerators). */
  protected override claims(_f: unknown): boolean {
    return false;
  }
}

/** The host side of the move rules: any CPU thread of the process (rules match by kind). */
export const HOST_SIDE = new ThreadProc(1, 1);
