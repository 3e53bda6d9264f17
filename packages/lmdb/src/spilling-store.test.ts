import { disableLogging, enableLogging, fetchLogs, StorageError } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './__fixtures__/temp-db.js';
import { ChunkDb, STORE_CLOSED, storageErrorOf } from './chunk-db.js';
import { SharedCounters } from './shared-counters.js';
import { SpillingStore, type SpillingStoreOptions } from './spilling-store.js';

const open: ChunkDb[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function store(options: Partial<SpillingStoreOptions> = {}) {
  const db = options.db ?? (await ChunkDb.open(tempDir()));
  if (db instanceof ChunkDb) open.push(db);
  const counters = options.counters ?? new SharedCounters();
  const s = new SpillingStore<number>({
    db,
    counters,
    memoryLimit: 100,
    policy: 'lru',
    prefix: 't:',
    ...options,
  });
  return { store: s, counters, db: db as ChunkDb };
}

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

/** Collects process warnings while `body` runs. */
async function warnings(body: () => Promise<void>): Promise<Error[]> {
  const seen: Error[] = [];
  const listen = (w: Error) => seen.push(w);
  process.on('warning', listen);
  try {
    await body();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

describe('SpillingStore', () => {
  it('at the disk limit, a chunk that cannot spill stays in memory, intact, and is reported', async () => {
    const { store: s, counters } = await store({ memoryLimit: 100, diskLimit: 150 });
    const seen = await warnings(async () => {
      for (let i = 1; i <= 5; i++) {
        s.set(i, bytes(64, i));
        await s.flush();
      }
    });
    const stats = counters.snapshot();
    expect(stats.bytesOnDisk).toBeLessThanOrEqual(150);
    expect(stats.spills).toBe(2);
    expect(stats.spillFailures).toBeGreaterThan(0);
    expect(stats.bytesInMemory).toBeGreaterThan(100); // over the memory limit, nothing lost
    expect(seen.map((w) => (w as { code?: string }).code)).toContain('DTASK_STORAGE_FULL');
    expect(seen[0].message).toMatch(/Raise diskLimit/);
    for (let i = 1; i <= 5; i++) expect(s.get(i)).toEqual(bytes(64, i));
  });

  it('a write LMDB refuses (map or disk full) keeps the chunk in memory as DTASK_STORAGE_FULL', async () => {
    const failing = {
      path: '/nowhere',
      write: () => Promise.reject(new Error('MDB_MAP_FULL: Environment mapsize limit reached')),
      remove: () => Promise.resolve(),
      hasRoomFor: () => true, // the disk looks roomy: LMDB itself refuses
    } as unknown as ChunkDb;
    const { store: s, counters } = await store({ db: failing, memoryLimit: 10 });
    const seen = await warnings(async () => {
      s.set(1, bytes(64, 1));
      await s.flush();
    });
    expect(s.location(1)).toBe('memory');
    expect(s.get(1)).toEqual(bytes(64, 1));
    expect(counters.snapshot()).toMatchObject({ spills: 0, spillFailures: 1, bytesOnDisk: 0 });
    expect((seen[0] as { code?: string }).code).toBe('DTASK_STORAGE_FULL');
    const error = storageErrorOf(new Error('ENOSPC: no space left on device'), 'k');
    expect(StorageError.isInstance(error) && error.code).toBe('DTASK_STORAGE_FULL');
    expect(storageErrorOf(new Error('EIO'), 'k').code).toBe('DTASK_STORAGE_IO');
  });

  it('spills started while the store closes keep their chunks in memory, without a warning', async () => {
    const db = await ChunkDb.open(tempDir());
    const { store: s, counters } = await store({ db, memoryLimit: 100 });
    const seen = await warnings(async () => {
      s.set(1, bytes(64, 1));
      const closing = db.close();
      // Each set passes the limit, so each spills into a store whose close has begun: lmdb-js
      // would run such a write on the closed environment and abort the process.
      for (let i = 2; i <= 4; i++) s.set(i, bytes(64, i));
      await closing;
      for (let i = 5; i <= 6; i++) s.set(i, bytes(64, i));
      await s.flush();
      await new Promise((r) => setTimeout(r, 20));
    });
    expect(seen).toEqual([]);
    expect(counters.snapshot().spillFailures).toBeGreaterThanOrEqual(5);
    for (let i = 1; i <= 6; i++) expect(s.get(i)).toEqual(bytes(64, i));
    const refused = await db.write('k', { tag: 0, bytes: bytes(8, 0) }).catch((e) => e);
    expect(refused).toBeInstanceOf(StorageError);
    expect(refused.code).toBe(STORE_CLOSED);
    expect(() => db.writeSync('k', { tag: 0, bytes: bytes(8, 0) })).toThrow(/is closed/);
  });

  it('frees a spilled chunk from disk when it is deleted, and everything on clear', async () => {
    const { store: s, counters, db } = await store({ memoryLimit: 1 });
    for (let i = 1; i <= 4; i++) s.set(i, bytes(1000, i));
    await s.flush();
    expect(db.keys('t:')).toHaveLength(4);
    expect(counters.disk).toBe(4000);
    expect(s.delete(2)).toBe(true);
    await db.flushed();
    expect(db.keys('t:')).toEqual(['t:1', 't:3', 't:4']);
    s.clear();
    await db.flushed();
    expect(db.keys('t:')).toEqual([]);
    expect(counters.snapshot()).toMatchObject({ bytesOnDisk: 0, bytesInMemory: 0 });
  });

  it('a chunk deleted while it is written is removed from disk once the write is done', async () => {
    const { store: s, counters, db } = await store({ memoryLimit: 1 });
    s.set(1, bytes(1 << 20, 1));
    expect(s.location(1)).toBe('spilling');
    expect([...s.values()]).toHaveLength(1); // LMDB still reads its buffer
    s.delete(1);
    await s.flush();
    await db.flushed();
    expect(db.keys('t:')).toEqual([]);
    expect(counters.snapshot()).toMatchObject({ bytesOnDisk: 0, bytesInMemory: 0 });
  });

  it('a chunk read while it is written stays in memory; one read from disk comes back', async () => {
    const { store: s, counters, db } = await store({ memoryLimit: 1500 });
    s.set(1, bytes(1000, 1));
    s.set(2, bytes(1000, 2)); // 1 spills
    expect(s.location(1)).toBe('spilling');
    expect(s.get(1)).toEqual(bytes(1000, 1));
    await s.flush();
    expect(s.location(1)).toBe('memory'); // read meanwhile: in use
    expect(s.location(2)).toBe('disk'); // ...so the other one made room for it
    expect(counters.memory).toBeLessThanOrEqual(1500);
    s.set(3, bytes(1000, 3));
    await s.flush();
    const gone = [1, 2].find((k) => s.location(k) === 'disk')!;
    expect(s.get(gone)).toEqual(bytes(1000, gone));
    expect(s.location(gone)).toBe('memory');
    await s.flush();
    await db.flushed();
    expect(counters.snapshot()).toMatchObject({ unspills: 1, misses: 1 });
    expect(counters.memory).toBeLessThanOrEqual(1500);
  });

  it('never writes out a value a running task holds: its changes in place are kept', async () => {
    // Room for one 64-byte value: storing a second spills the least recently used.
    const { store: s } = await store({ memoryLimit: 100 });
    const piece = { n: 0, pad: 'x'.repeat(40) };
    s.set(1, piece, 64);
    const used = s.get(1) as typeof piece; // a task starts with it...
    s.hold(1);
    s.set(2, bytes(64, 2), 64); // ...another result comes in meanwhile (an await, a 2nd input)
    used.n = 5; // ...and the task changes it in place
    await s.flush();
    expect(s.location(1)).toBe('memory');
    expect(s.get(1)).toBe(used);
    s.unhold(1);
    // Released, it may leave memory again, and comes back with the change.
    s.set(3, bytes(64, 3), 64);
    s.set(4, bytes(64, 4), 64);
    await s.flush();
    expect(s.location(1)).toBe('disk');
    expect((s.get(1) as typeof piece).n).toBe(5);
    // Holds nest, and unhold of an absent key does nothing.
    s.hold(1);
    s.hold(1);
    s.unhold(1);
    s.set(5, bytes(64, 5), 64);
    await s.flush();
    expect(s.location(1)).toBe('memory');
    s.unhold(99);
  });

  it('when the last hold ends, values held over the limit make room at once', async () => {
    const { store: s, counters } = await store({ memoryLimit: 100 });
    s.set(1, bytes(64, 1), 64);
    s.hold(1);
    s.set(2, bytes(64, 2), 64); // 1 is held: 2 is written out
    await s.flush();
    expect(s.get(2)).toEqual(bytes(64, 2)); // a second task reads 2 back...
    s.hold(2); // ...and holds it
    await s.flush();
    expect(counters.memory).toBe(128); // both held: over the limit, nothing lost
    s.unhold(1);
    await s.flush();
    expect(s.location(1)).toBe('disk');
    expect(counters.memory).toBeLessThanOrEqual(100);
    expect(s.get(1)).toEqual(bytes(64, 1));
  });

  it('a value held while it is being written stays in memory once the write is done', async () => {
    const { store: s } = await store({ memoryLimit: 100 });
    const piece = { n: 0, pad: 'y'.repeat(40) };
    s.set(1, piece, 64);
    s.set(2, bytes(64, 2), 64); // 1 is being written now
    expect(s.location(1)).toBe('spilling');
    s.hold(1);
    piece.n = 7; // after the write took its bytes
    await s.flush();
    expect(s.location(1)).toBe('memory');
    expect(s.get(1)).toBe(piece);
    expect((s.get(1) as typeof piece).n).toBe(7);
  });

  it('keeps values it cannot write (functions, class instances) in memory', async () => {
    const { store: s } = await store({ memoryLimit: 1 });
    class Point {
      constructor(readonly x: number) {}
    }
    const f = () => 1;
    s.set(1, f, 100);
    s.set(2, new Point(3), 100);
    await s.flush();
    expect(s.location(1)).toBe('memory');
    expect(s.location(2)).toBe('memory');
    expect(s.get(1)).toBe(f);
    expect(s.get(2)).toBeInstanceOf(Point);
  });

  it('records spill and unspill events in the log', async () => {
    const { store: s } = await store({ memoryLimit: 1, processor: 'thread:1:1', worker: 1 });
    enableLogging();
    try {
      fetchLogs();
      s.set(7, bytes(4096, 7));
      await s.flush();
      s.get(7);
      const events = fetchLogs().filter((e) => e.kind === 'spill' || e.kind === 'unspill');
      expect(events.map((e) => [e.kind, e.bytes, e.processor])).toEqual([
        ['spill', 4096, 'thread:1:1'],
        ['unspill', 4096, 'thread:1:1'],
      ]);
      expect(events[0].to).toBe('lmdb');
      expect(events[1].from).toBe('lmdb');
    } finally {
      disableLogging();
      await s.flush();
    }
  });

  it('two stores share one byte budget through shared counters', async () => {
    const counters = new SharedCounters();
    const db = await ChunkDb.open(tempDir());
    open.push(db);
    const a = new SpillingStore<number>({
      db,
      counters,
      memoryLimit: 3000,
      policy: 'lru',
      prefix: 'a:',
    });
    const b = new SpillingStore<number>({
      db,
      counters,
      memoryLimit: 3000,
      policy: 'lru',
      prefix: 'b:',
    });
    a.set(1, bytes(1000, 1));
    a.set(2, bytes(1000, 2));
    b.set(1, bytes(1000, 3));
    b.set(2, bytes(1000, 4)); // 4000 > 3000: b spills its own oldest
    await a.flush();
    await b.flush();
    expect(counters.memory).toBeLessThanOrEqual(3000);
    expect(b.location(1)).toBe('disk');
    expect(a.get(1)).toEqual(bytes(1000, 1));
    expect(b.get(1)).toEqual(bytes(1000, 3));
    await a.close();
    await b.close();
  });
});
