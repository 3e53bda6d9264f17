// @dtask/gpu-tfjs: GPU processors on TensorFlow.js (tfjs-node-gpu when installed; wasm/cpu
// fallback), with tensors kept on the device and typed arrays converted at its edges.
export type { TfjsStats } from './device-stats.js';
export { gpu, gpuOrCpu, type Placement, placementOf } from './markers.js';
export {
  type BackendChoice,
  selectBackend,
  TFJS_BACKENDS,
  type Tf,
  type TfjsBackendName,
} from './select-backend.js';
export { SpilledTensor } from './spilled-tensor.js';
export { type TfjsOptions, type TfjsPlugin, tfjs } from './tfjs-plugin.js';
export { TfjsMemorySpace, TfjsProc } from './tfjs-proc.js';
