import type { MemorySpace } from './memory-space.js';

/**
 * The memory of one device (`<kind>:<worker>:<device>`): what a `DeviceProc` keeps its results
 * in (tensors, textures), used only by that processor; moving a value out of it goes through
 * the plugin's move rules.
 */
export class DeviceMemorySpace implements MemorySpace {
  /** `<kind>:<worker>:<device>`. */
  readonly id: string;

  /** The memory of device `device` of kind `kind` in process `worker`. */
  constructor(
    readonly kind: string,
    readonly worker: number,
    readonly device: number,
  ) {
    this.id = `${kind}:${worker}:${device}`;
  }
}
