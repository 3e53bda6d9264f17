// @dtask/gpujs: a processor that runs gpu.js kernels (headless-gl or WebGPU where a context
// exists, cpu otherwise), compiled once and cached, with textures kept on the device.
export type { GpujsStats } from './device-stats.js';
export { GpujsKernelError } from './gpujs-error.js';
export { type GpujsOptions, type GpujsPlugin, gpujs } from './gpujs-plugin.js';
export { GpujsMemorySpace, GpujsProc } from './gpujs-proc.js';
export type { KernelSettings } from './kernel-settings.js';
export { type KernelTask, kernel } from './kernel-task.js';
export { gpujsTask, isGpujsTask } from './markers.js';
export { GPUJS_MODES, type GpujsMode, type GpujsRunMode, type ModeReport } from './modes.js';
