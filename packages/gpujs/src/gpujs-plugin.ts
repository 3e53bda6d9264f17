import { currentWorker, UnsupportedError } from '@dtask/core';
import {
  checkOptions,
  type DedicatedThread,
  DedicatedThreadSlot,
  describeValue,
  findWorkerEntry,
  isOneOf,
  type OptionsShape,
  type Plugin,
  rule,
  unknownOption,
} from '@dtask/core/plugin';
import { DeviceStats, type GpujsStats } from './device-stats.js';
import { GpujsProc } from './gpujs-proc.js';
import { isGpujsTask } from './markers.js';
import { GPUJS_MODES, type GpujsMode, type GpujsRunMode, type ModeReport } from './modes.js';
import type { GpujsThreadData } from './protocol.js';

declare module '@dtask/core' {
  interface ScopeSpecifierObject {
    /** The i-th GpujsProc (0-based), or `'any'` for any of them (registered by `gpujs()`). */
    gpujs?: number | 'any';
  }
}

/** Options of `gpujs()`. */
export interface GpujsOptions {
  /**
   * The mode kernels run in; default: the best that starts (headlessgl, webgpu, cpu). A mode
   * asked for that cannot start makes `ctx.ready()` reject with `UnsupportedError`.
   */
  mode?: GpujsMode;
}

/** The plugin object `gpujs()` returns. */
export interface GpujsPlugin extends Plugin {
  /** The mode chosen (after the context is ready); undefined before. */
  readonly mode: GpujsRunMode | undefined;
  /** The chosen mode's report (device, whether it is a real GPU, what was skipped and why). */
  readonly report: ModeReport | undefined;
  /** The processors this plugin added. */
  readonly processors: readonly GpujsProc[];
  /**
   * The dedicated thread running the processor now: a new one once it died and was replaced;
   * undefined before setup and once it was given up (after repeated failed starts).
   */
  readonly thread: DedicatedThread<unknown, GpujsProc> | undefined;
  /** The chosen mode and why each better one was not taken, one line each. */
  describe(): string;
  /** Kernels compiled, cache hits, textures on the device, as the worker thread counts them now. */
  stats(): GpujsStats;
}

const SHAPE: OptionsShape<keyof GpujsOptions> = {
  known: ['mode'],
  notObject: (options) =>
    `gpujs(options): options must be an object such as { mode: 'cpu' }; got ${describeValue(options)}`,
  unknownKey: unknownOption('gpujs(options)'),
  fields: {
    mode: rule(
      isOneOf(GPUJS_MODES),
      (mode) =>
        `gpujs({ mode }): unknown mode ${describeValue(mode)}; use one of ${GPUJS_MODES.join(', ')} or leave it out to pick the best that starts`,
    ),
  },
};

function validate(options: GpujsOptions): void {
  checkOptions(options, SHAPE);
}

/** One line per fact: the mode, its device and whether that is a GPU, then what was skipped. */
export function describeReport(r: ModeReport): string {
  const device = r.device ? ` on ${r.device}` : '';
  const what = r.gpu
    ? 'a GPU'
    : r.mode === 'cpu' || r.mode === 'webasm'
      ? 'on the CPU, not a GPU'
      : 'emulated on the CPU, not a GPU';
  const lines = [`gpujs mode: ${r.mode}${device} (${what})`];
  for (const s of r.skipped) lines.push(`  not taken: ${s}`);
  return lines.join('\n');
}

/**
 * The gpu.js plugin: adds one `GpujsProc` (`gpujs:<worker>:0`) run by a dedicated worker thread
 * that owns gpu.js and its context (so neither the main thread nor the CPU threads block on
 * it), registers the scope key `gpujs`, and makes gpu.js tasks (`kernel(...)`, `gpujsTask(f)`)
 * run only there. It does not register `gpu`, which `@dtask/gpu-tfjs` owns: both plugins can
 * be used in one context. Pipeline outputs stay on it as textures; textures fetched elsewhere
 * become `Float32Array`s.
 */
export function gpujs(options: GpujsOptions = {}): GpujsPlugin {
  validate(options);
  const stats = new DeviceStats();
  const slot = new DedicatedThreadSlot<ModeReport, GpujsProc>({
    name: 'gpujs',
    describe: describeReport,
    startFailed: (e) =>
      UnsupportedError.isInstance(e)
        ? e.message
        : `gpujs: the gpu.js worker thread could not start: ${e.message}`,
  });

  return {
    name: 'gpujs',
    get mode() {
      return slot.report?.mode;
    },
    get report() {
      return slot.report;
    },
    get processors() {
      return slot.processors;
    },
    get thread() {
      return slot.current;
    },
    async setup(h) {
      await slot.setupDevice<GpujsThreadData>(h, {
        start: {
          processor: new GpujsProc(currentWorker(), 0),
          entry: findWorkerEntry(import.meta.url, '@dtask/gpujs'),
          idThread: 768, // + device
          data: { device: 0, mode: options.mode, stats: stats.slots },
        },
        scopeKeys: [
          {
            key: 'gpujs',
            kind: GpujsProc.kind,
            noun: 'processor',
            processor: (i, worker) => new GpujsProc(worker, i),
            replace: true,
          },
        ],
        kind: GpujsProc.kind,
        claims: isGpujsTask,
      });
    },
    describe: () => slot.describe(),
    stats: () => stats.read(),
    loadModule: (url) => slot.loadModule(url),
    close: () => slot.close(),
  };
}
