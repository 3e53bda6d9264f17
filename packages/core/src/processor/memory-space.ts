/**
 * A place data lives in (Dagger's `MemorySpace`): values in one memory space are usable
 * by every processor attached to it without a move. Plugins add their own (a GPU's memory).
 */
export interface MemorySpace {
  /** Stable identifier, e.g. `heap:1:2`; two spaces are the same when their ids are. */
  readonly id: string;
  /** The family of space, e.g. `heap`, `shared`, `gpu`. */
  readonly kind: string;
  /** The OS process (worker id) that owns the memory. */
  readonly worker: number;
}

/** The JS heap of one thread: ordinary values live here, and only that thread can use them. */
export class HeapMemorySpace implements MemorySpace {
  readonly id: string;
  readonly kind = 'heap';
  constructor(
    readonly worker: number,
    readonly thread: number,
  ) {
    this.id = `heap:${worker}:${thread}`;
  }
}

/**
 * Memory shared by every thread of one process: `SharedArrayBuffer`s live here and are
 * passed between its threads without a copy.
 */
export class SharedMemorySpace implements MemorySpace {
  readonly id: string;
  readonly kind = 'shared';
  constructor(readonly worker: number) {
    this.id = `shared:${worker}`;
  }
}
