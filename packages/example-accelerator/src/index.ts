/** @dtask/example-accelerator: the example processor package of docs/processor-guide.md. */
export { AccelProc } from './accel-proc.js';
export {
  type AcceleratorOptions,
  type AcceleratorPlugin,
  accelerator,
} from './accelerator-plugin.js';
export { DeviceArray } from './device-array.js';
export { DeviceMemory } from './device-memory.js';
export type { DeviceCounts } from './device-stats.js';
