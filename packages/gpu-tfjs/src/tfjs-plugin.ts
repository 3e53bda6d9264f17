import {
  ArgumentError,
  currentWorker,
  describeValue,
  ExactScope,
  type Plugin,
  type PluginHost,
  ProcessorTypeScope,
  UnsupportedError,
} from '@dtask/core';
import { logEvent, now } from '@dtask/core/worker';
import type { TfjsStats } from './device-stats.js';
import { placementOf } from './markers.js';
import type { BackendReport } from './protocol.js';
import { TFJS_BACKENDS, type TfjsBackendName } from './select-backend.js';
import { TfjsProc } from './tfjs-proc.js';
import { TfjsWorker } from './tfjs-worker.js';

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
  /** The chosen backend and why each better one was not taken, one line each. */
  describe(): string;
  /** Device memory in use and conversions, as the worker thread counts them now. */
  stats(): TfjsStats;
}

const KNOWN = new Set(['backend', 'memoryLimit']);

function validate(options: TfjsOptions): { memoryLimit: number } {
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentError(
      `tfjs(options): options must be an object such as { backend: 'wasm' }; got ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) {
      throw new ArgumentError(
        `tfjs(options): unknown option '${key}'; known: ${[...KNOWN].join(', ')}`,
      );
    }
  }
  const { backend, memoryLimit = Number.POSITIVE_INFINITY } = options;
  if (backend !== undefined && !(TFJS_BACKENDS as readonly string[]).includes(backend)) {
    throw new ArgumentError(
      `tfjs({ backend }): unknown backend ${describeValue(backend)}; use one of ${TFJS_BACKENDS.join(', ')} or leave it out to pick the best`,
    );
  }
  if (!(typeof memoryLimit === 'number' && memoryLimit > 0)) {
    throw new ArgumentError(
      `tfjs({ memoryLimit }): must be a positive number of bytes; got ${describeValue(memoryLimit)}`,
    );
  }
  return { memoryLimit };
}

/** The scope a `gpu`/`tfjs` key names: device `i` of the process, or every TfjsProc for 'any'. */
function deviceScope(key: string, spec: Record<string, unknown>) {
  const i = spec[key];
  const worker = typeof spec.worker === 'number' ? spec.worker : 1;
  if (i === 'any') return new ProcessorTypeScope(TfjsProc.kind);
  if (!Number.isInteger(i) || (i as number) < 0) {
    throw new ArgumentError(
      `scope({ ${key} }): must be a device index ≥ 0 or 'any'; got ${describeValue(i)}`,
    );
  }
  return new ExactScope(new TfjsProc(worker, i as number));
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
  let report: BackendReport | undefined;
  let worker: TfjsWorker | undefined;
  const modules: string[] = [];
  let host: PluginHost | undefined;

  return {
    name: 'tfjs',
    get backend() {
      return report?.backend;
    },
    get processors() {
      return worker ? [worker.proc] : [];
    },
    async setup(h) {
      host = h;
      for (const url of h.context.modules.keys()) modules.push(url);
      const w = new TfjsWorker({
        worker: currentWorker(),
        device: 0,
        backend: options.backend,
        memoryLimit,
        modules: [...modules],
        loadedModules: h.context.modules,
        scheduler: h.context.scheduler,
        onLost: (lost) => host?.removeProcessor(lost.proc),
      });
      worker = w;
      for (const key of ['gpu', 'tfjs']) {
        h.registerScopeKey(key, {
          precedence: 1,
          toScope: (spec) => deviceScope(key, spec as Record<string, unknown>),
          replace: true,
        });
      }
      h.defaultOption(
        'scope',
        (f) => placementOf(f) === 'gpu',
        new ProcessorTypeScope(TfjsProc.kind),
      );
      try {
        report = await w.chosen;
      } catch (error) {
        await w.terminate();
        throw new UnsupportedError(
          `tfjs: the TensorFlow.js worker thread could not start: ${error}`,
        );
      }
      h.addProcessor(w.proc, w.connection);
      logEvent({
        kind: 'backend',
        time: now(),
        processor: w.proc.id,
        detail: describeReport(report),
      });
    },
    describe() {
      if (report === undefined) return 'tfjs: not set up yet (await context.ready())';
      return describeReport(report);
    },
    stats() {
      const empty: TfjsStats = {
        bytesOnDevice: 0,
        tensors: 0,
        bytesInStore: 0,
        toTensor: 0,
        toTypedArray: 0,
        spills: 0,
        bytesSpilled: 0,
      };
      return worker ? worker.stats.read() : empty;
    },
    async loadModule(url) {
      modules.push(url);
      await worker?.loadModule(url);
    },
    async close() {
      if (!worker) return;
      host?.removeProcessor(worker.proc);
      await worker.terminate();
    },
  };
}
