import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin, PluginHost, PluginSpec, WorkerPluginHost } from '@dtask/core/plugin';
import { logEvent } from '@dtask/core/plugin';
import { Checkpoints } from './checkpoints.js';
import { ChunkDb } from './chunk-db.js';
import { LmdbDevice } from './lmdb-device.js';
import { type LmdbOptions, validateLmdbOptions } from './lmdb-options.js';
import { pluginModuleUrl } from './module-url.js';
import { type LmdbStats, SharedCounters } from './shared-counters.js';
import { SpillingStore } from './spilling-store.js';
import { makeStoreDirectory, storeOpenError } from './store-directory.js';
import { sweepStore } from './sweep.js';

const everyTask = () => true;

/** The object `lmdb(options)` returns: a dtask plugin with statistics. */
export interface LmdbPlugin extends Plugin {
  /** `lmdb`. */
  readonly name: 'lmdb';
  /** How worker threads re-create it: the same options, the resolved path, shared counters. */
  readonly spec: PluginSpec;
  /**
   * This process's chunks, all its threads together (worker threads of other processes
   * count their own): hits, misses, spills, unspills, bytes in memory and on disk, and more.
   */
  stats(): LmdbStats;
  /** Starts `stats().peakBytesInMemory` over from the bytes held now. */
  resetPeak(): void;
  /** The store's directory (a temporary one, made on first use, when no `path` was given). */
  readonly path: string;
  /** The `lmdb` storage device of this thread; set once the plugin is set up. */
  readonly device: LmdbDevice | undefined;
  /** Resolves once the spills and checkpoints started on this thread are written. */
  flush(): Promise<void>;
}

/**
 * `@dtask/lmdb`: adds disk to dtask (MemPool's disk device and `SimpleRecencyAllocator`).
 *
 * - Memory limit per process: results kept by the process's worker threads (each thread's
 *   runtime gets a `SpillingStore`), results of tasks run on the main thread and values put in
 *   the `lmdb` device (both held by the device: the plugin makes `device: 'lmdb'` the default
 *   task option) count against one budget shared by its threads; past `memoryLimit` the least
 *   (`policy: 'lru'`) or most (`'mru'`) recently used chunks move to LMDB and come back when
 *   read.
 * - `diskLimit`: a spill that would pass it (or that LMDB refuses: disk full) does not happen;
 *   the chunk stays in memory, `stats().spillFailures` counts it and a warning says so.
 * - Task options `checkpoint` / `restore`: `true` or `{ key }` keep a result in LMDB and
 *   skip the task when it is found on a later run (see `Checkpoints`).
 * - One LMDB store per `path`, shared by threads and processes; a spilled chunk's entry is
 *   removed when the chunk is freed; entries left by dead processes are swept when a plugin
 *   opens the store; a temporary store is deleted when the context closes.
 *
 * Throws `ArgumentError` at the call for bad options (see `validateLmdbOptions`). List it with
 * the threads plugin in one `plugins` array (in either order) so that threads get it too.
 */
export function lmdb(options: LmdbOptions): LmdbPlugin {
  const resolved = validateLmdbOptions(options);
  const { memoryLimit, diskLimit, policy, durable } = resolved;
  const counters = new SharedCounters(resolved.sharedCounters);
  const isWorkerSide = resolved.sharedCounters !== undefined;
  let path = resolved.path;
  let temporary = false;
  let db: Promise<ChunkDb> | undefined;
  let device: LmdbDevice | undefined;
  let checkpoints: Checkpoints | undefined;
  let workerStore: SpillingStore | undefined;
  let closed = false;
  /** Why the store could not be opened, if it could not: then there is nothing to close. */
  let openFailure: unknown;

  const storePath = (): string => {
    if (path === undefined) {
      path = mkdtempSync(join(tmpdir(), 'dtask-lmdb-'));
      temporary = true;
    }
    return path;
  };
  const openDb = (): Promise<ChunkDb> => {
    if (db === undefined) {
      const dir = storePath();
      let opening: Promise<ChunkDb>;
      try {
        makeStoreDirectory(dir);
        opening = ChunkDb.open(dir, { durable });
      } catch (error) {
        opening = Promise.reject(error);
      }
      db = opening.catch((error: unknown) => {
        openFailure = storeOpenError(dir, error);
        throw openFailure;
      });
    }
    return db;
  };

  return {
    name: 'lmdb',
    get spec(): PluginSpec {
      const options = {
        path: storePath(),
        memoryLimit,
        diskLimit,
        policy,
        durable,
      } satisfies LmdbOptions;
      return {
        module: pluginModuleUrl(),
        factory: 'lmdb',
        // Threads share this process's counters; a worker process keeps its own (its own
        // memory budget), in the same store.
        options: { ...options, sharedCounters: counters.buffer },
        processOptions: options,
      };
    },
    get path() {
      return storePath();
    },
    get device() {
      return device;
    },

    async setup(host: PluginHost) {
      const opening = openDb();
      const here = host.context.localProc;
      device = new LmdbDevice({
        db: opening,
        memoryLimit,
        diskLimit,
        policy,
        counters,
        processor: here.id,
        worker: here.worker,
      });
      host.addStorageDevice(device);
      // Results of tasks run on this thread itself live on the device too, so that they count
      // against the memory limit (worker threads keep theirs in their spilling stores).
      host.defaultOption('device', everyTask, 'lmdb');
      checkpoints = new Checkpoints(opening);
      host.registerOption('checkpoint', checkpoints.checkpointOption);
      host.registerOption('restore', checkpoints.restoreOption);
      const opened = await opening;
      checkpoints.ready(opened);
      // Entries of processes that died without freeing them (a killed run) go now.
      if (!isWorkerSide && !temporary) await sweepStore(opened);
    },

    async setupWorker(host: WorkerPluginHost) {
      const opening = openDb();
      await opening;
      workerStore = new SpillingStore<number>({
        // Recorded in this thread's log, which its runtime sends to the scheduler while it logs.
        onEvent: logEvent,
        db: opening,
        counters,
        memoryLimit,
        diskLimit,
        policy,
        prefix: `s:${process.pid}:${counters.instance}:${host.worker}.${host.thread}:`,
        processor: host.processor ?? `thread:${host.worker}:${host.thread}`,
        worker: host.worker,
      });
      host.setLocalStore(workerStore);
    },

    stats: () => counters.snapshot(),
    resetPeak: () => counters.resetPeak(),

    async flush() {
      if (openFailure !== undefined) return;
      await Promise.all([device?.flush(), workerStore?.flush(), checkpoints?.flush()]);
    },

    async close() {
      if (closed) return;
      closed = true;
      if (openFailure !== undefined) return;
      await checkpoints?.flush();
      await device?.close();
      await workerStore?.close();
    },

    // After the context's other plugins closed: this plugin's worker threads are gone, so the
    // entries they left (spills in flight when they ended) can go, and the store close. Other
    // plugins on the same store, even in this process, keep theirs (keys name the instance).
    async afterClose() {
      if (db === undefined || openFailure !== undefined) {
        db = undefined;
        if (temporary && path !== undefined) rmSync(path, { recursive: true, force: true });
        return;
      }
      const opened = await db;
      db = undefined;
      if (!isWorkerSide && !temporary) {
        await sweepStore(opened, { pid: process.pid, instance: counters.instance });
      }
      await opened.close();
      if (temporary) rmSync(storePath(), { recursive: true, force: true });
    },
  };
}
