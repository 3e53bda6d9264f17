// Core's LocalStore kit against the spilling store worker threads keep their results in: with
// room for everything, and with a 1-byte limit, where every value goes to LMDB and is read back.

import { localStoreConformance } from '@dtask/core/testing';
import type { LocalStore } from '@dtask/core/worker';
import { describe, it } from 'vitest';
import { tempDir } from './__fixtures__/temp-db.js';
import { ChunkDb } from './chunk-db.js';
import { SharedCounters } from './shared-counters.js';
import { SpillingStore } from './spilling-store.js';

const dbs = new WeakMap<LocalStore, ChunkDb>();

function storeWith(memoryLimit: number) {
  return async () => {
    const db = await ChunkDb.open(tempDir());
    const store = new SpillingStore<number>({
      db,
      counters: new SharedCounters(),
      memoryLimit,
      policy: 'lru',
      prefix: 't:',
    });
    dbs.set(store, db);
    return store;
  };
}

const settle = (store: LocalStore) => (store as SpillingStore<number>).flush();

const dispose = async (store: LocalStore) => {
  await (store as SpillingStore<number>).close();
  await dbs.get(store)?.close();
};

localStoreConformance(
  'lmdb spilling store, in memory',
  storeWith(2 ** 30),
  { describe, it },
  { dispose, settle },
);
localStoreConformance(
  'lmdb spilling store, everything spilled',
  storeWith(1),
  { describe, it },
  { dispose, settle },
);
