import type { Processor } from '../processor/processor.js';
import type { AbstractScope } from '../scope/index.js';

const BRAND = Symbol.for('dtask.chunk');

/**
 * Where a chunk's data is and how to get it. Implemented by the local store (data in this
 * process), by task results, and by worker runtimes (data held in another thread/process).
 */
export interface ChunkHandle {
  /** The processor that holds the data (it may become known only once the data exists). */
  readonly processor: Processor;
  /** The value, moved to the caller. */
  fetch(): Promise<unknown>;
  /** A producing task that has not finished yet; tasks taking the chunk wait for it. */
  readonly pending?: { readonly id: number } | undefined;
  /** Size in bytes when known. */
  readonly bytes?: number | undefined;
  /** A scope decided by the data's producer (e.g. the processor a `mutable` ran on). */
  readonly scope?: AbstractScope | undefined;
  /**
   * The task whose result is the chunk's data (a `mutable`'s, a raw fetch's). A task taking
   * the chunk takes that result as it would take the task: on the thread that holds it, that
   * very object, not a copy.
   */
  readonly task?: { readonly id: number } | undefined;
  /**
   * The data is pinned to its processor (a `mutable`): tasks taking the chunk run there, even
   * when it is outside their default scope (the main thread, once worker threads exist).
   */
  readonly pinned?: boolean | undefined;
  /**
   * Set for a chunk that is one piece per processor (a shard, `@dtask/shard`): the chunk a
   * task placed on `proc` takes instead of this one (that processor's own piece, usually a
   * pinned one), or undefined when `proc` holds none. The scheduler calls it each time it has
   * chosen the task's processor, within this chunk's `scope`, which should cover the processors
   * holding pieces. A task that takes a piece is `inPlace`: after its worker dies while it
   * runs it fails with `WorkerLostError` instead of running again on a rebuilt piece.
   */
  readonly pieceFor?: ((proc: Processor) => Chunk<unknown> | undefined) | undefined;
}

/**
 * A reference to data that lives on one processor (Dagger's `Chunk`). Made by `toChunk`,
 * `mutable`, and `fetch({ raw: true })`. Passing a chunk to `spawn` makes the task run where
 * the chunk's `scope` allows and receive the value (or the chunk itself with `meta: true`).
 */
export class Chunk<T = unknown> {
  /** @internal */
  readonly handle: ChunkHandle;
  private readonly givenScope: AbstractScope;

  constructor(handle: ChunkHandle, scope: AbstractScope) {
    this.handle = handle;
    this.givenScope = scope;
  }

  /** Where the data may be read: tasks taking this chunk run inside it. */
  get scope(): AbstractScope {
    return this.handle.scope ?? this.givenScope;
  }

  /** The processor holding the data. */
  get processor(): Processor {
    return this.handle.processor;
  }

  /** Size of the data in bytes, when known. */
  get bytes(): number | undefined {
    return this.handle.bytes;
  }

  /** The value, moved to the caller. */
  fetch(): Promise<T> {
    return this.handle.fetch() as Promise<T>;
  }

  /** `Chunk(processor)`. */
  toString(): string {
    return `Chunk(${this.processor.id})`;
  }

  /** Brand used by `isChunk` (works across copies of the package). */
  get [BRAND](): true {
    return true;
  }
}

/**
 * A chunk of one piece of type `T` per processor (`ChunkHandle.pieceFor`; `@dtask/shard`'s
 * `Shard`): a task that takes it receives the `T` of the processor where it runs, so `spawn`
 * accepts it for a parameter of type `T`.
 */
export interface PieceChunk<T> extends Chunk<unknown> {
  /** Type only (never set at run time): the type of each piece. */
  readonly pieceType: T;
}

/** True for a `Chunk` from any copy of the package. */
export function isChunk(x: unknown): x is Chunk<unknown> {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
}
