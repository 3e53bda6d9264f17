import { createRequire } from 'node:module';
import { UnsupportedError } from '@dtask/core';
import { glxRenderer } from '@dtask/core/plugin';
import { EMULATED_DEVICE, type GpujsMode, type GpujsRunMode, type ModeReport } from './modes.js';

/** The parts of gpu.js this package uses (it ships no types that load without its `gl`). */
export interface GpujsModule {
  GPU: {
    new (settings: { mode: string }): GpuInstance;
    readonly isHeadlessGLSupported: boolean;
    readonly isWebAssemblySupported: boolean;
    isWebGPUAvailable(): Promise<boolean>;
  };
  HeadlessGLKernel: { readonly testContext: GlLike | null };
  Texture: new (...args: never[]) => GpujsTexture;
}

/** A gpu.js `GPU` instance. */
export interface GpuInstance {
  createKernel(source: string, settings: Record<string, unknown>): GpujsKernel;
  destroy(): void;
}

/** A compiled (on first call) gpu.js kernel. */
export type GpujsKernel = ((...args: unknown[]) => unknown) & { destroy?(): void };

/** A gpu.js texture: a kernel's output left on the device (pipeline mode). */
export interface GpujsTexture {
  readonly output: number[];
  toArray(): unknown;
  delete(): void;
}

interface GlLike {
  RENDERER: number;
  getParameter(p: number): unknown;
  getExtension(name: string): { UNMASKED_RENDERER_WEBGL: number } | null | undefined;
}

/** The mode chosen: its gpu.js instance and report. */
export interface ModeChoice {
  gpujs: GpujsModule;
  gpu: GpuInstance;
  report: ModeReport;
}

const ORDER: Record<GpujsMode, GpujsRunMode[]> = {
  gpu: ['headlessgl', 'webgpu'],
  headlessgl: ['headlessgl'],
  webgpu: ['webgpu'],
  webasm: ['webasm'],
  cpu: ['cpu'],
};

/** Loads gpu.js lazily: an optional peer dependency, needed only where a GpujsProc starts. */
export async function loadGpujs(): Promise<GpujsModule> {
  try {
    const ns = (await import('gpu.js')) as unknown as GpujsModule & { default?: GpujsModule };
    return ns.GPU ? ns : (ns.default as GpujsModule);
  } catch (error) {
    throw new UnsupportedError(
      `gpujs: gpu.js does not load (${String(error).split('\n')[0]}); install it beside @dtask/gpujs: npm install gpu.js@2.24.1`,
    );
  }
}

/**
 * Picks the mode kernels run in: the one asked for, or (none asked) the first that starts of
 * headlessgl, webgpu, cpu. Each candidate runs a one-element probe kernel before it is taken.
 * The report names the device and says why each better mode was not taken; an emulated
 * device (Mesa llvmpipe, a fallback adapter) is never reported as a GPU. Throws
 * `UnsupportedError` when the mode asked for cannot start, saying why.
 */
export async function selectMode(requested: GpujsMode | undefined): Promise<ModeChoice> {
  const gpujs = await loadGpujs();
  const candidates: GpujsRunMode[] = requested ? ORDER[requested] : ['headlessgl', 'webgpu', 'cpu'];
  const skipped: string[] = [];
  for (const mode of candidates) {
    try {
      const device = await probeDevice(gpujs, mode);
      const gpu = new gpujs.GPU({ mode });
      await probeKernel(gpu, mode);
      const real = (mode === 'headlessgl' || mode === 'webgpu') && device !== '';
      return {
        gpujs,
        gpu,
        report: { mode, device, gpu: real && !EMULATED_DEVICE.test(device), skipped },
      };
    } catch (error) {
      skipped.push(`${mode}: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
    }
  }
  throw new UnsupportedError(
    `gpujs({ mode: '${requested}' }) cannot start here: ${skipped.join('; ')}. Leave mode out to fall back to the best that starts (cpu at worst).`,
  );
}

/** Checks that a mode can start and returns its device name ('' for CPU modes). */
async function probeDevice(gpujs: GpujsModule, mode: GpujsRunMode): Promise<string> {
  if (mode === 'cpu') return '';
  if (mode === 'webasm') {
    if (!gpujs.GPU.isWebAssemblySupported) throw new Error('WebAssembly is not supported here');
    return '';
  }
  if (mode === 'headlessgl') return probeHeadlessGl(gpujs);
  return probeWebGpu();
}

function probeHeadlessGl(gpujs: GpujsModule): string {
  if (!gpujs.GPU.isHeadlessGLSupported) {
    const require = createRequire(import.meta.url);
    let loadError = '';
    try {
      require(require.resolve('gl', { paths: [require.resolve('gpu.js')] }));
    } catch (error) {
      loadError = String((error as Error)?.message ?? error);
    }
    if (/self-register/.test(loadError)) {
      throw new Error(
        'headless-gl was loaded by another thread of this process already: it is not a context-aware addon, so a process can run one headlessgl GpujsProc in its lifetime (keep one context open, or start it in another process)',
      );
    }
    if (loadError) {
      throw new Error(
        `gpu.js's optional 'gl' (headless-gl) does not load (${loadError.split('\n')[0]}); it builds from source: install a C++ toolchain and Debian's libxi-dev libglu1-mesa-dev libglew-dev pkg-config (and xvfb to run it), then run npm_config_nodedir=/usr npm rebuild gl in your project`,
      );
    }
    throw new Error(
      process.env.DISPLAY
        ? `headless-gl could not make a GL context on DISPLAY=${process.env.DISPLAY}`
        : 'no GL context: headless-gl needs an X server (run under xvfb-run -a)',
    );
  }
  const gl = gpujs.HeadlessGLKernel.testContext;
  const info = gl?.getExtension('WEBGL_debug_renderer_info');
  const name = String(
    (info ? gl?.getParameter(info.UNMASKED_RENDERER_WEBGL) : undefined) ||
      gl?.getParameter(gl.RENDERER) ||
      'unknown GL renderer',
  );
  if (name !== 'ANGLE') return name;
  // headless-gl 8 runs on ANGLE, which hides the renderer below it: ask the X server's GL.
  return `ANGLE over ${glxRenderer()}`;
}

interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  info?: { vendor?: string; device?: string; description?: string; architecture?: string };
}

async function probeWebGpu(): Promise<string> {
  const nav = (globalThis as { navigator?: { gpu?: unknown } }).navigator;
  if (!nav?.gpu) {
    // gpu.js depends on the `webgpu` package (Dawn); it gives Node a navigator.gpu.
    const require = createRequire(import.meta.url);
    let dawn: { create(flags: string[]): unknown; globals?: Record<string, unknown> };
    try {
      dawn = require(require.resolve('webgpu', { paths: [require.resolve('gpu.js')] }));
    } catch (error) {
      throw new Error(`the 'webgpu' (Dawn) package does not load: ${String(error).split('\n')[0]}`);
    }
    if (dawn.globals) Object.assign(globalThis, dawn.globals);
    const gpu = dawn.create([]);
    if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
    else Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
  }
  const g = (
    globalThis as unknown as { navigator: { gpu: { requestAdapter(): Promise<unknown> } } }
  ).navigator.gpu;
  const adapter = (await g.requestAdapter()) as GpuAdapterLike | null;
  if (!adapter) throw new Error('WebGPU loads but offers no adapter');
  const i = adapter.info ?? {};
  const name = [i.vendor, i.device || i.description, i.architecture].filter(Boolean).join(' ');
  if (adapter.isFallbackAdapter) return `${name || 'adapter'} (fallback adapter)`;
  return name || 'unknown WebGPU adapter';
}

/** Runs a one-element kernel and checks its answer, so a mode that cannot compute is skipped. */
async function probeKernel(gpu: GpuInstance, mode: GpujsRunMode): Promise<void> {
  const k = gpu.createKernel('function (a) { return a[this.thread.x] + 1; }', { output: [1] });
  let out = k(new Float32Array([41]));
  if (out instanceof Promise) out = await out;
  const v = (out as ArrayLike<number>)[0];
  if (v !== 42) throw new Error(`a probe kernel in ${mode} mode returned ${v}, not 42`);
}
