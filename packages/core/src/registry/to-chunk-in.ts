import { Chunk } from '../chunk/chunk.js';
import { sizeOf } from '../chunk/size-of.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import { ArgumentError } from '../errors/errors.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { type AbstractScope, AnyScope, isScope } from '../scope/index.js';

/** The part of a context `toChunk` needs: its storage devices and its calling-thread processor. */
export interface ToChunkContext {
  /** The storage device of this name, if the context has one. */
  storageDevice(name: string): StorageDevice | undefined;
  /** The processor of the calling thread (where the data lives by default). */
  readonly localProc: Processor;
}

/** Options of `toChunk`. */
export interface ToChunkOptions {
  /** The storage device to keep the data in (or its name); default: RAM. */
  device?: StorageDevice | string;
  /** The context whose storage devices and local processor to use; default: the default context. */
  context?: ToChunkContext;
}

let nextKey = 1;

/** Frees a chunk's stored data once its handle is garbage-collected (the backstop of release). */
const freed = new FinalizationRegistry<{ device: StorageDevice; key: string }>(
  ({ device, key }) => {
    void Promise.resolve()
      .then(() => device.delete(key))
      .catch(() => {});
  },
);

function pickDevice(ctx: ToChunkContext, option: ToChunkOptions['device']): StorageDevice {
  if (option === undefined) return ctx.storageDevice('ram')!;
  if (typeof option === 'string') {
    const device = ctx.storageDevice(option);
    if (!device) {
      throw new ArgumentError(
        `toChunk: no storage device named '${option}'; add the plugin that provides it`,
      );
    }
    return device;
  }
  if (typeof option?.put !== 'function' || typeof option.get !== 'function') {
    throw new ArgumentError('toChunk: options.device must be a StorageDevice or the name of one');
  }
  return option;
}

/** Starts the device write; a synchronous throw becomes a rejected promise. */
function startWrite(device: StorageDevice, key: string, x: unknown, size: number): Promise<void> {
  try {
    return Promise.resolve(device.put(key, x, { size })).then(() => undefined);
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * Dagger's `tochunk`: wraps data that lives on `proc` (default: the calling thread) into a
 * `Chunk` with scope `scope` (default: anywhere), kept in a storage device (default: RAM, of
 * `options.context` or the default context). The chunk is returned at once; the device write
 * completes behind it, and tasks or `fetch` that take the chunk wait for it (a failed write
 * makes them fail with the device's error). The stored data is freed once no handle to the
 * chunk is left. `fallback` gives the context when `options` names none.
 */
export function toChunkIn<T>(
  fallback: () => ToChunkContext,
  x: T,
  proc?: Processor,
  scope?: AbstractScope,
  options: ToChunkOptions = {},
): Chunk<T> {
  if (proc !== undefined && !isProcessor(proc)) {
    throw new ArgumentError('toChunk(x, proc?, scope?, options?): proc must be a Processor');
  }
  if (scope !== undefined && !isScope(scope)) {
    throw new ArgumentError(
      'toChunk(x, proc?, scope?, options?): scope must be a scope, e.g. scope({ worker: 1 })',
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentError(
      'toChunk(x, proc?, scope?, options?): options must be { device?, context? }',
    );
  }
  const ctx = options.context ?? fallback();
  const device = pickDevice(ctx, options.device);
  const key = `chunk:${process.pid}:${nextKey++}`;
  const bytes = sizeOf(x);
  const written = startWrite(device, key, x, bytes);
  // A failed write is reported to whoever takes the chunk, not as an unhandled rejection.
  written.catch(() => {});
  const processor = proc ?? ctx.localProc;
  const chunk = new Chunk<T>(
    {
      processor,
      bytes,
      fetch: async () => {
        await written;
        return (await device.get(key)) as T;
      },
    },
    scope ?? new AnyScope(),
  );
  freed.register(chunk, { device, key });
  return chunk;
}
