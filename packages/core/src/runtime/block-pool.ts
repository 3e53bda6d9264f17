/**
 * The global a kernel sent as source calls for a result block's memory:
 * `globalThis[Symbol.for('@dtask/core.blockMemory')]?.(bytes, kernel)`, with `kernel` the
 * calling function itself: a `SharedArrayBuffer` of exactly `bytes` bytes, or `undefined` where
 * no runtime runs a task now (the kernel then allocates its own). Memory from it may hold an
 * earlier block's bytes: the kernel must write every byte, and must not keep the buffer.
 */
export const BLOCK_MEMORY = Symbol.for('@dtask/core.blockMemory');

/** The most bytes a runtime keeps in its pool of released blocks' memory. */
const POOL_BYTES = 64 * 1024 * 1024;

/** A pool not taken from for this long (ms) is dropped, its memory left to the collector. */
const IDLE_MS = 1000;

/** The pool of the runtime whose task runs synchronously now (one thread may hold several runtimes). */
let active: BlockPool | undefined;

/** The function behind `BLOCK_MEMORY`: `kernel` is the calling kernel itself. */
function blockMemory(bytes: number, kernel?: Function): SharedArrayBuffer | undefined {
  return active?.take(bytes, kernel);
}

/** A typed array's shape, as far as `made` reads it. */
interface BlockLike {
  data?: { buffer?: unknown; byteOffset?: number; byteLength?: number };
}

/** The one of `handed` that `value`, a block, holds as its whole `data`; else `undefined`. */
function wholeBlockOf(
  value: unknown,
  handed: readonly SharedArrayBuffer[],
): SharedArrayBuffer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = (value as BlockLike).data;
  if (typeof data !== 'object' || data === null) return undefined;
  const buffer = data.buffer;
  if (!(buffer instanceof SharedArrayBuffer) || !handed.includes(buffer)) return undefined;
  if (data.byteOffset !== 0 || data.byteLength !== buffer.byteLength) return undefined;
  return buffer;
}

/**
 * A worker runtime's memory of released result blocks, handed to kernels that ask for a new
 * block's memory (`BLOCK_MEMORY`), so that a block made where others were released reuses their
 * pages instead of faulting in new ones (the thread's malloc arena grows a page at a time, each
 * page cleared by the kernel).
 *
 * Only memory no one else can reach goes back to the pool. A buffer qualifies when it was
 * handed to the kernel the runtime ran as the task itself (`kernel` is the task's own function:
 * not a function a task called, which could keep what it got), with no task nested in it, that
 * task returned a block whose `data` is exactly that buffer, the result was kept in the runtime's
 * own store (not sent back inline) with no task here waiting for it, and nothing read the
 * result before the scheduler released it: any read of it from the store (a fetch home, a
 * hand-over, a peer's fetch, a task here taking it as input, which may keep it or return a
 * view of it) rules it out for good (`read`). A group task's outputs (`groupParts`) qualify
 * one by one in the same way, each by its own key, with the buffers handed to the kernels its
 * function called (its runner's contract: each output it returns is the block a kernel made,
 * and it keeps none of them). A runtime that loses its thread loses its pool with it.
 */
export class BlockPool {
  /** Free buffers by byte length, each list used last in, first out. */
  private readonly free = new Map<number, SharedArrayBuffer[]>();
  /** Bytes in `free`. */
  private bytes = 0;
  /** Results whose memory returns here when released (never read): key → buffer. */
  private readonly candidates = new Map<number, SharedArrayBuffer>();
  /** Tasks of this runtime running synchronously now, one inside another. */
  private depth = 0;
  /** The function of the outermost of them. */
  private fn: Function | undefined;
  /** Buffers handed to `fn` itself while it ran alone. */
  private handed: SharedArrayBuffer[] = [];
  /** Buffers handed to kernels `fn` called while it ran alone (a group's runner calls them). */
  private called: SharedArrayBuffer[] = [];
  /** `called` of the outermost task that ended last, until a task begins (`takeCalled`). */
  private lastCalled: SharedArrayBuffer[] | undefined = undefined;
  /** Whether `take` gave out pooled memory since the idle check last ran. */
  private used = false;
  private idle: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    (globalThis as Record<symbol, unknown>)[BLOCK_MEMORY] = blockMemory;
  }

  /**
   * A task whose function is `fn` starts running synchronously in this runtime. Returns the
   * pool active before, for `end`.
   */
  begin(fn: Function): BlockPool | undefined {
    const before = active;
    active = this;
    if (++this.depth === 1) {
      this.fn = fn;
      this.lastCalled = undefined;
    }
    return before;
  }

  /**
   * The task begun last returned (or threw); `before` is what `begin` returned. Returns the
   * buffers handed to the outermost task's own function, once that one ends (they qualify only
   * through `made`).
   */
  end(before: BlockPool | undefined): SharedArrayBuffer[] | undefined {
    active = before;
    if (--this.depth > 0) return undefined;
    this.fn = undefined;
    if (this.called.length > 0) {
      this.lastCalled = this.called;
      this.called = [];
    }
    if (this.handed.length === 0) return undefined;
    const handed = this.handed;
    this.handed = [];
    return handed;
  }

  /**
   * A buffer of `bytes` bytes for the running task: a released block's, or a new one. Tracked
   * (see `made`) when `kernel`, the caller, is the function the runtime runs as the task.
   */
  take(bytes: number, kernel?: Function): SharedArrayBuffer {
    const list = this.free.get(bytes);
    let buffer = list?.pop();
    if (buffer === undefined) buffer = new SharedArrayBuffer(bytes);
    else {
      this.bytes -= bytes;
      this.used = true;
    }
    if (this.depth === 1 && kernel !== undefined) {
      (kernel === this.fn ? this.handed : this.called).push(buffer);
    }
    return buffer;
  }

  /**
   * The buffers handed to the kernels that the task ended last called (not its own function),
   * once: a group task's runner calls a block kernel per output, and returns each block as a
   * whole output of its own (`storeParts`). Undefined once another task has begun.
   */
  takeCalled(): SharedArrayBuffer[] | undefined {
    const called = this.lastCalled;
    this.lastCalled = undefined;
    return called;
  }

  /**
   * Task `key` returned `value`, kept in the store (not inline, no task here waiting for it):
   * its block's memory returns here when released, if it is one of `handed` as a whole (that
   * buffer is returned).
   */
  made(
    key: number,
    value: unknown,
    handed: readonly SharedArrayBuffer[] | undefined,
  ): SharedArrayBuffer | undefined {
    const buffer = handed === undefined ? undefined : wholeBlockOf(value, handed);
    // A task run again here: its earlier result is forgotten (`set` replaces it).
    if (buffer !== undefined) this.candidates.set(key, buffer);
    else if (this.candidates.size > 0) this.candidates.delete(key);
    return buffer;
  }

  /** Result `key` was read from the store: someone else may hold its memory now. */
  read(key: number): void {
    if (this.candidates.size > 0) this.candidates.delete(key);
  }

  /** Result `key` left the store (released): its memory returns to the pool if it qualifies. */
  released(key: number): void {
    if (this.candidates.size === 0) return;
    const buffer = this.candidates.get(key);
    if (buffer === undefined) return;
    this.candidates.delete(key);
    const n = buffer.byteLength;
    if (this.bytes + n > POOL_BYTES) return;
    let list = this.free.get(n);
    if (list === undefined) {
      list = [];
      this.free.set(n, list);
    }
    list.push(buffer);
    this.bytes += n;
    if (this.idle === undefined) this.watchIdle();
  }

  /** Drops the pool and forgets every result (the store was cleared). */
  clear(): void {
    this.candidates.clear();
    this.drop();
  }

  private drop(): void {
    this.free.clear();
    this.bytes = 0;
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
  }

  /** Drops the pool once a period passes with nothing taken from it. */
  private watchIdle(): void {
    this.used = false;
    this.idle = setTimeout(() => {
      if (!this.used) this.drop();
      else this.watchIdle();
    }, IDLE_MS);
    this.idle.unref?.();
  }
}

/**
 * The runtime's default store, a `Map` that tells `pool` of each read and each removal: what
 * `BlockPool` needs to know which released results no one else reached.
 */
export class PooledStore extends Map<number, unknown> {
  constructor(private readonly pool: BlockPool) {
    super();
  }

  override get(key: number): unknown {
    this.pool.read(key);
    return super.get(key);
  }

  override delete(key: number): boolean {
    if (!super.delete(key)) return false;
    this.pool.released(key);
    return true;
  }

  override clear(): void {
    super.clear();
    this.pool.clear();
  }
}
