/** @dtask/lmdb: an LMDB-backed storage device, memory limits that spill to disk, checkpoints. */
export { type CheckpointOption, Checkpoints } from './checkpoints.js';
export { ChunkDb, type ChunkDbOptions } from './chunk-db.js';
export { LmdbDevice, type LmdbDeviceOptions } from './lmdb-device.js';
export type { LmdbOptions, SpillPolicy } from './lmdb-options.js';
export { type LmdbPlugin, lmdb } from './lmdb-plugin.js';
export type { LmdbStats } from './shared-counters.js';
export { type ChunkLocation, SpillingStore, type SpillingStoreOptions } from './spilling-store.js';
