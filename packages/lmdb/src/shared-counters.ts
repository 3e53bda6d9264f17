/** What `LmdbPlugin.stats()` reports: one process's chunks, all its threads together. */
export interface LmdbStats {
  /** Reads of a chunk that was in memory. */
  hits: number;
  /** Reads of a chunk that had to be read back from LMDB. */
  misses: number;
  /** Chunks written to LMDB to make room in memory. */
  spills: number;
  /** Chunks read back from LMDB into memory. */
  unspills: number;
  /** Bytes of chunks held in memory now (as `sizeOf` counts them). */
  bytesInMemory: number;
  /** Bytes of spilled chunks held in LMDB now. */
  bytesOnDisk: number;
  /** The most `bytesInMemory` has been since the plugin started (or `resetPeak()`). */
  peakBytesInMemory: number;
  /** Bytes written by spills, in all. */
  bytesSpilled: number;
  /** Bytes read back by unspills, in all. */
  bytesUnspilled: number;
  /** Spills that could not happen (disk limit reached, disk full): the chunk stayed in memory. */
  spillFailures: number;
}

/** `Atomics.waitAsync` (Node 16+), which TypeScript's ES2022 library does not declare. */
interface AtomicsWaitAsync {
  waitAsync(
    array: BigInt64Array,
    index: number,
    value: bigint,
    timeoutMs: number,
  ): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** Slots of the shared counters, in a `BigInt64Array` over a `SharedArrayBuffer`. */
const Slot = {
  Memory: 0,
  Pending: 1,
  Disk: 2,
  Hits: 3,
  Misses: 4,
  Spills: 5,
  Unspills: 6,
  BytesSpilled: 7,
  BytesUnspilled: 8,
  Peak: 9,
  Failures: 10,
  Instance: 11,
  Count: 12,
} as const;
type Slot = (typeof Slot)[keyof typeof Slot];

/**
 * The byte budget and counters of one process, shared by all its threads: the plugin makes
 * the buffer on the main thread and passes it to worker threads in its spec, so every
 * thread's store adds to the same `memory` total and checks it against the same limit.
 * Updates are atomic; a store in another process has counters of its own.
 */
export class SharedCounters {
  readonly buffer: SharedArrayBuffer;
  private readonly slots: BigInt64Array;

  constructor(buffer?: SharedArrayBuffer) {
    this.buffer = buffer ?? new SharedArrayBuffer(Slot.Count * 8);
    this.slots = new BigInt64Array(this.buffer);
    if (buffer === undefined) {
      this.slots[Slot.Instance] = BigInt(Math.floor(Math.random() * 2 ** 48));
    }
  }

  /**
   * A random id shared by every store using these counters (one plugin's threads, or one
   * device): part of their LMDB keys, so that the plugin frees exactly its own entries.
   */
  get instance(): string {
    return this.slots[Slot.Instance].toString(36);
  }

  /** Bytes held in memory (including chunks being written out), all threads together. */
  get memory(): number {
    return Number(Atomics.load(this.slots, Slot.Memory));
  }

  /** Bytes of chunks being written out now: still in memory, about to leave it. */
  get pending(): number {
    return Number(Atomics.load(this.slots, Slot.Pending));
  }

  /** Bytes on disk, all threads together. */
  get disk(): number {
    return Number(Atomics.load(this.slots, Slot.Disk));
  }

  /** Adds `bytes` (negative to subtract) to memory, keeping the peak. */
  addMemory(bytes: number): void {
    const now = Atomics.add(this.slots, Slot.Memory, BigInt(bytes)) + BigInt(bytes);
    let peak = Atomics.load(this.slots, Slot.Peak);
    while (now > peak) {
      const seen = Atomics.compareExchange(this.slots, Slot.Peak, peak, now);
      if (seen === peak) break;
      peak = seen;
    }
  }

  /** Adds `bytes` to the bytes being written out. */
  addPending(bytes: number): void {
    Atomics.add(this.slots, Slot.Pending, BigInt(bytes));
    if (bytes < 0) Atomics.notify(this.slots, Slot.Pending);
  }

  /**
   * Resolves when a write of any thread of the process finishes (the pending bytes drop), or
   * after `timeoutMs` at the latest. Does not block the thread (`Atomics.waitAsync`).
   */
  pendingDropped(timeoutMs: number): Promise<void> {
    const seen = Atomics.load(this.slots, Slot.Pending);
    const wait = (Atomics as unknown as AtomicsWaitAsync).waitAsync(
      this.slots,
      Slot.Pending,
      seen,
      timeoutMs,
    );
    return wait.async ? wait.value.then(() => undefined) : Promise.resolve();
  }

  /** Adds `bytes` to the bytes on disk. */
  addDisk(bytes: number): void {
    Atomics.add(this.slots, Slot.Disk, BigInt(bytes));
  }

  /** Counts a read served from memory. */
  hit(): void {
    Atomics.add(this.slots, Slot.Hits, 1n);
  }

  /** Counts a read served from disk, of `bytes`. */
  unspilled(bytes: number): void {
    Atomics.add(this.slots, Slot.Misses, 1n);
    Atomics.add(this.slots, Slot.Unspills, 1n);
    Atomics.add(this.slots, Slot.BytesUnspilled, BigInt(bytes));
  }

  /** Counts a committed spill of `bytes`. */
  spilled(bytes: number): void {
    Atomics.add(this.slots, Slot.Spills, 1n);
    Atomics.add(this.slots, Slot.BytesSpilled, BigInt(bytes));
  }

  /** Counts a spill that could not happen. */
  failed(): void {
    Atomics.add(this.slots, Slot.Failures, 1n);
  }

  /** Starts the peak over from the bytes held now. */
  resetPeak(): void {
    Atomics.store(this.slots, Slot.Peak, Atomics.load(this.slots, Slot.Memory));
  }

  /** A snapshot of every counter. */
  snapshot(): LmdbStats {
    const n = (slot: Slot) => Number(Atomics.load(this.slots, slot));
    return {
      hits: n(Slot.Hits),
      misses: n(Slot.Misses),
      spills: n(Slot.Spills),
      unspills: n(Slot.Unspills),
      bytesInMemory: n(Slot.Memory),
      bytesOnDisk: n(Slot.Disk),
      peakBytesInMemory: n(Slot.Peak),
      bytesSpilled: n(Slot.BytesSpilled),
      bytesUnspilled: n(Slot.BytesUnspilled),
      spillFailures: n(Slot.Failures),
    };
  }
}
