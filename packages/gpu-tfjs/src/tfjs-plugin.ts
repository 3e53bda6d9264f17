import { currentWorker } from '@dtask/core';
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
import { DeviceStats, type TfjsStats } from './device-stats.js';
import { placementOf } from './markers.js';
import type { BackendReport, TfjsThreadData } from './protocol.js';
import { TFJS_BACKENDS, type TfjsBackendName } from './select-backend.js';
import { TfjsProc } from './tfjs-proc.js';

declare module '@dtask/core' {
  interface ScopeSpecifierObject {
    /** The i-th TfjsProc (0-based), or `'any'` for any of them (registered by `tfjs()`). */
    gpu?: number | 'any';
    /** The same as `gpu`, naming TensorFlow.js. */
    tfjs?: number | 'any';
  }
}

/** Options of `tfjs()`. */
export interface TfjsOptions {
  /** The backend to use; default: the best that loads (tensorflow, webgl, wasm, cpu). */
  backend?: TfjsBackendName;
  /**
   * Bytes of result tensors the processor keeps on the device; past it, the least recently
   * used become typed arrays in host memory (spilling by conversion). Default: unlimited.
   */
  memoryLimit?: number;
}

/** The plugin object `tfjs()` returns. */
export interface TfjsPlugin extends Plugin {
  /** The backend chosen (after the context is ready); undefined before. */
  readonly backend: TfjsBackendName | undefined;
  /** The processors this plugin added. */
  readonly processors: readonly TfjsProc[];
  /**
   * The dedicated thread running the processor now: a new one once it died and was replaced;
   * undefined before setup and once it was given up (after repeated failed starts).
   */
  readonly thread: DedicatedThread<unknown, TfjsProc> | undefined;
  /** The chosen backend and why each better one was not taken, one line each. */
  describe(): string;
  /** Device memory in use and conversions, as the worker thread counts them now. */
  stats(): TfjsStats;
}

const SHAPE: OptionsShape<keyof TfjsOptions> = {
  known: ['backend', 'memoryLimit'],
  notObject: (options) =>
    `tfjs(options): options must be an object such as { backend: 'wasm' }; got ${describeValue(options)}`,
  unknownKey: unknownOption('tfjs(options)'),
  fields: {
    backend: rule(
      isOneOf(TFJS_BACKENDS),
      (backend) =>
        `tfjs({ backend }): unknown backend ${describeValue(backend)}; use one of ${TFJS_BACKENDS.join(', ')} or leave it out to pick the best`,
    ),
    memoryLimit: rule(
      (limit) => typeof limit === 'number' && limit > 0,
      (limit) =>
        `tfjs({ memoryLimit }): must be a positive number of bytes; got ${describeValue(limit)}`,
    ),
  },
};

function validate(options: TfjsOptions): { memoryLimit: number } {
  checkOptions(options, SHAPE);
  return { memoryLimit: options.memoryLimit ?? Number.POSITIVE_INFINITY };
}

function describeReport(r: BackendReport): string {
  const what = r.gpu ? 'a GPU' : 'emulated on the CPU, not a GPU';
  const lines = [`tfjs backend: ${r.backend} from ${r.module} (${what})`];
  for (const s of r.skipped) lines.push(`  not taken: ${s}`);
  return lines.join('\n');
}

/**
 * The TensorFlow.js plugin: adds one `TfjsProc` (`tfjs:<worker>:0`) run by a dedicated worker
 * thread that owns the TensorFlow.js runtime (so neither the main thread nor the CPU threads
 * block on it), registers the scope keys `gpu` and `tfjs`, and makes functions declared
 * `gpu(f)` run only there. Results stay on it as tensors; typed arrays sent to it become
 * tensors, and tensors fetched elsewhere become typed arrays of their data.
 */
export function tfjs(options: TfjsOptions = {}): TfjsPlugin {
  const { memoryLimit } = validate(options);
  const stats = new DeviceStats();
  const slot = new DedicatedThreadSlot<BackendReport, TfjsProc>({
    name: 'tfjs',
    describe: describeReport,
    startFailed: (error) => `tfjs: the TensorFlow.js worker thread could not start: ${error}`,
  });

  return {
    name: 'tfjs',
    get backend() {
      return slot.report?.backend;
    },
    get processors() {
      return slot.processors;
    },
    get thread() {
      return slot.current;
    },
    async setup(h) {
      await slot.setupDevice<TfjsThreadData>(h, {
        start: {
          processor: new TfjsProc(currentWorker(), 0),
          entry: findWorkerEntry(import.meta.url, '@dtask/gpu-tfjs'),
          idThread: 512, // + device
          // A worker-side storage plugin (@dtask/lmdb) takes the tensors spilled to host memory.
          workerPlugins: true,
          data: { device: 0, backend: options.backend, memoryLimit, stats: stats.slots },
        },
        scopeKeys: ['gpu', 'tfjs'].map((key) => ({
          key,
          kind: TfjsProc.kind,
          processor: (i, worker) => new TfjsProc(worker, i),
          replace: true,
        })),
        kind: TfjsProc.kind,
        claims: (f) => placementOf(f) === 'gpu',
      });
    },
    describe: () => slot.describe(),
    stats: () => stats.read(),
    loadModule: (url) => slot.loadModule(url),
    close: () => slot.close(),
  };
}
