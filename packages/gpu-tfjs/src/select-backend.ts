import { createRequire } from 'node:module';
import { ArgumentError, UnsupportedError } from '@dtask/core';
import { prepareHeadlessWebgl } from './headless-webgl.js';

/** The TensorFlow.js backends this package knows, best first. */
export const TFJS_BACKENDS = ['tensorflow', 'webgl', 'wasm', 'cpu'] as const;

/** A TensorFlow.js backend name (`tf.getBackend()`). */
export type TfjsBackendName = (typeof TFJS_BACKENDS)[number];

/** The `tf` namespace of `@tensorflow/tfjs` (or tfjs-node, which re-exports it). */
export type Tf = typeof import('@tensorflow/tfjs');

/** What `selectBackend` chose and why it passed over the better ones. */
export interface BackendChoice {
  /** The backend now active in `tf`. */
  readonly backend: TfjsBackendName;
  /** The package the backend came from, e.g. `@tensorflow/tfjs-backend-wasm`. */
  readonly module: string;
  /**
   * True only for a backend that runs on a real GPU (tfjs-node-gpu, or webgl on a GL renderer
   * that is not a software one). Emulated or CPU backends (cpu, wasm, tfjs-node, webgl on
   * Mesa's llvmpipe) are never reported as GPUs.
   */
  readonly gpu: boolean;
  /** One line per better backend not taken, saying why (e.g. the package is not installed). */
  readonly skipped: readonly string[];
  /** The loaded `tf` namespace, with `backend` active. */
  readonly tf: Tf;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

/**
 * Loads an optional TensorFlow.js package with `require`: its packages are CommonJS, and an
 * `import()` of one first scans its source (and that of every package it re-exports, several
 * megabytes for `@tensorflow/tfjs`) for the names of its exports, about 0.45 s of CPU in every
 * thread that starts a TfjsProc; `require` runs the same files without the scan.
 */
async function importOptional(name: string): Promise<unknown> {
  return createRequire(import.meta.url)(name);
}

async function activate(tf: Tf, backend: string): Promise<void> {
  const ok = await tf.setBackend(backend);
  if (!ok) throw new Error(`tf.setBackend('${backend}') returned false`);
  await tf.ready();
}

/**
 * Loads TensorFlow.js and activates the best backend that works here, trying in order
 * `tensorflow` (`@tensorflow/tfjs-node-gpu`, then `@tensorflow/tfjs-node`), `webgl` (on
 * headless-gl, where an X display and the `gl` package are), `wasm`
 * (`@tensorflow/tfjs-backend-wasm`) and `cpu` (`@tensorflow/tfjs`). With `requested`, only
 * that backend is tried and failing to load it throws `UnsupportedError`.
 */
export async function selectBackend(requested?: TfjsBackendName): Promise<BackendChoice> {
  if (requested !== undefined && !(TFJS_BACKENDS as readonly string[]).includes(requested)) {
    throw new ArgumentError(
      `tfjs: unknown backend '${String(requested)}'; use one of ${TFJS_BACKENDS.join(', ')} or leave it out to pick the best`,
    );
  }
  const skipped: string[] = [];
  const wanted = (b: TfjsBackendName) => requested === undefined || requested === b;

  if (wanted('tensorflow')) {
    for (const [module, gpu] of [
      ['@tensorflow/tfjs-node-gpu', true],
      ['@tensorflow/tfjs-node', false],
    ] as const) {
      try {
        const tf = (await importOptional(module)) as Tf;
        await activate(tf, 'tensorflow');
        return { backend: 'tensorflow', module, gpu, skipped, tf };
      } catch (error) {
        skipped.push(`tensorflow via ${module}: ${message(error)} (install it to use it)`);
      }
    }
  }
  const tf = (await importOptional('@tensorflow/tfjs')) as Tf;
  if (wanted('webgl')) {
    try {
      const { renderer, gpu } = await prepareHeadlessWebgl(tf);
      await activate(tf, 'webgl');
      return { backend: 'webgl', module: `headless-gl (${renderer})`, gpu, skipped, tf };
    } catch (error) {
      skipped.push(`webgl via headless-gl: ${message(error)}`);
    }
  }
  if (wanted('wasm')) {
    try {
      await importOptional('@tensorflow/tfjs-backend-wasm');
      await activate(tf, 'wasm');
      return { backend: 'wasm', module: '@tensorflow/tfjs-backend-wasm', gpu: false, skipped, tf };
    } catch (error) {
      skipped.push(`wasm via @tensorflow/tfjs-backend-wasm: ${message(error)}`);
    }
  }
  if (wanted('cpu')) {
    await activate(tf, 'cpu');
    return { backend: 'cpu', module: '@tensorflow/tfjs', gpu: false, skipped, tf };
  }
  throw new UnsupportedError(
    `tfjs: backend '${requested}' cannot be used here: ${skipped.join('; ')}`,
  );
}
