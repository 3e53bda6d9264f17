import { ArgumentError } from '../errors/errors.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { defaultContext } from '../registry/default-context.js';
import { type AbstractScope, AnyScope, isScope } from '../scope/index.js';
import { Chunk } from './chunk.js';
import { sizeOf } from './size-of.js';
import type { StorageDevice } from './storage-device.js';

/** Options of `toChunk`. */
export interface ToChunkOptions {
  /** The storage device to keep the data in (or its name); default: RAM. */
  device?: StorageDevice | string;
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

function pickDevice(option: ToChunkOptions['device']): StorageDevice {
  const ctx = defaultContext();
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

/**
 * Dagger's `tochunk`: wraps data that lives on `proc` (default: the calling thread) into a
 * `Chunk` with scope `scope` (default: anywhere), kept in a storage device (default: RAM).
 * The stored data is freed once no handle to the chunk is left.
 */
export async function toChunk<T>(
  x: T,
  proc?: Processor,
  scope?: AbstractScope,
  options: ToChunkOptions = {},
): Promise<Chunk<T>> {
  if (proc !== undefined && !isProcessor(proc)) {
    throw new ArgumentError('toChunk(x, proc?, scope?, options?): proc must be a Processor');
  }
  if (scope !== undefined && !isScope(scope)) {
    throw new ArgumentError(
      'toChunk(x, proc?, scope?, options?): scope must be a scope, e.g. scope({ worker: 1 })',
    );
  }
  const device = pickDevice(options.device);
  const key = `chunk:${process.pid}:${nextKey++}`;
  const bytes = sizeOf(x);
  await device.put(key, x, { size: bytes });
  const processor = proc ?? defaultContext().localProc;
  const chunk = new Chunk<T>(
    { processor, bytes, fetch: async () => (await device.get(key)) as T },
    scope ?? new AnyScope(),
  );
  freed.register(chunk, { device, key });
  return chunk;
}
