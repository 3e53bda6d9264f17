/**
 * The modes `gpujs({ mode })` accepts: `gpu` (the best GPU-style mode that starts: headlessgl,
 * then webgpu), `headlessgl` (gpu.js through headless-gl; needs a GL context, e.g. under
 * `xvfb-run`), `webgpu` (gpu.js through the `webgpu` package, when it loads and finds an
 * adapter), `webasm` (gpu.js compiled to WebAssembly, CPU) and `cpu` (plain JavaScript).
 */
export const GPUJS_MODES = ['gpu', 'headlessgl', 'webgpu', 'webasm', 'cpu'] as const;

/** One of `GPUJS_MODES`. */
export type GpujsMode = (typeof GPUJS_MODES)[number];

/** The mode a processor runs in after selection (never the umbrella `gpu`). */
export type GpujsRunMode = Exclude<GpujsMode, 'gpu'>;

/** What the worker thread picked, as `describe()` and the logs report it. */
export interface ModeReport {
  /** The mode kernels run in. */
  mode: GpujsRunMode;
  /** The device's name where one is known (GL renderer, WebGPU adapter), else ''. */
  device: string;
  /** True only for a real GPU; false for llvmpipe and other emulated devices and for CPU modes. */
  gpu: boolean;
  /** Why each better mode was not taken, one line each. */
  skipped: string[];
}

/** Names of emulated (software) GL or WebGPU devices: such a device is never reported as a GPU. */
export const EMULATED_DEVICE = /llvmpipe|softpipe|lavapipe|swiftshader|software|swrast|fallback/i;
