import type { DeviceStats } from './device-stats.js';
import { GpujsKernelError } from './gpujs-error.js';
import type { KernelSettings } from './kernel-settings.js';
import type { GpujsRunMode } from './modes.js';
import type { GpuInstance, GpujsKernel, GpujsModule, GpujsTexture } from './select-mode.js';

/**
 * The gpu.js runtime of one GpujsProc, in its worker thread, reachable from tasks as the
 * global `gpujs`: compiles each kernel once (cached by source and settings), runs it, and turns
 * outputs into one `Float32Array` unless they stay on the device as textures.
 */
export class KernelRuntime {
  private readonly cache = new Map<string, GpujsKernel>();

  constructor(
    private readonly gpujs: GpujsModule,
    /** The gpu.js `GPU` instance: every kernel of this processor shares its context. */
    readonly gpu: GpuInstance,
    /** The mode kernels run in. */
    readonly mode: GpujsRunMode,
    private readonly stats: DeviceStats,
  ) {}

  /** Kernels compiled so far. */
  get size(): number {
    return this.cache.size;
  }

  /** True for a gpu.js texture (a pipeline output on the device). */
  isTexture(v: unknown): v is GpujsTexture {
    return v instanceof this.gpujs.Texture;
  }

  /** Bytes a texture holds (float32 per output element), or undefined for other values. */
  bytesOf(v: unknown): number | undefined {
    if (!this.isTexture(v)) return undefined;
    return 4 * v.output.reduce((a, b) => a * b, 1);
  }

  /** The compiled kernel for `source` and `settings` (compiled the first time, then cached). */
  kernel(source: string | Function, settings: KernelSettings): GpujsKernel {
    const src = typeof source === 'function' ? source.toString() : source;
    const key = `${src}\u0000${JSON.stringify(settings)}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.stats.add('cacheHits');
      return hit;
    }
    let k: GpujsKernel;
    try {
      // A kept texture must not be overwritten by the kernel's next run: immutable.
      k = this.gpu.createKernel(src, {
        ...settings,
        ...(settings.pipeline ? { immutable: true } : {}),
      });
    } catch (error) {
      throw new GpujsKernelError(
        `the kernel does not compile in gpu.js ${this.mode} mode: ${messageOf(error)}`,
        { cause: error },
      );
    }
    const compiledOnce = this.firstRunChecked(k);
    this.cache.set(key, compiledOnce);
    this.stats.add('compiled');
    return compiledOnce;
  }

  /** gpu.js compiles on the first call: a failure there is a compile error; drop it from the cache. */
  private firstRunChecked(k: GpujsKernel): GpujsKernel {
    let first = true;
    const run = ((...args: unknown[]) => {
      try {
        const out = k(...args);
        first = false;
        return out;
      } catch (error) {
        if (first) {
          for (const [key, v] of this.cache) if (v === run) this.cache.delete(key);
          throw new GpujsKernelError(
            `the kernel does not compile in gpu.js ${this.mode} mode: ${messageOf(error)}`,
            { cause: error },
          );
        }
        throw new GpujsKernelError(`the kernel failed: ${messageOf(error)}`, { cause: error });
      }
    }) as GpujsKernel;
    return run;
  }

  /** Runs a kernel task: the cached kernel over `args`; a texture or one `Float32Array` out. */
  run(source: string, settings: KernelSettings, args: unknown[]): unknown {
    const k = this.kernel(source, settings);
    this.stats.add('runs');
    const out = k(...args);
    if (out instanceof Promise) return out.then((v) => this.output(v));
    return this.output(out);
  }

  /** A kernel's output as it leaves a task: textures stay, arrays become one Float32Array. */
  output(v: unknown): unknown {
    if (this.isTexture(v)) return v;
    return flatten(v);
  }

  /** A texture's data as one row-major `Float32Array` (counted). */
  toTypedArray(t: GpujsTexture): Float32Array {
    this.stats.add('toTypedArray');
    return flatten(t.toArray()) as Float32Array;
  }
}

/** Nested arrays of rows (2-D, 3-D outputs) become one row-major Float32Array. */
export function flatten(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  const parts: ArrayLike<number>[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) for (const y of x) walk(y);
    else parts.push(x as ArrayLike<number>);
  };
  walk(v);
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Float32Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function messageOf(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0];
}
