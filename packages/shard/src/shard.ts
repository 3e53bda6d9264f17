import {
  ArgumentError,
  Chunk,
  type Context,
  type DTask,
  type Processor,
  type SpawnArgs,
  type TaskOptions,
} from '@dtask/core';
import {
  checkOptions,
  defaultContext,
  type OptionsShape,
  type PieceChunk,
} from '@dtask/core/plugin';
import { ShardPieces } from './shard-pieces.js';
import { checkPlaces, type ShardPlaces } from './shard-places.js';

/** Options of `shard`: where the pieces go, and the context (default: the default context). */
export interface ShardOptions extends ShardPlaces {
  /** The context whose processors hold the pieces; default: the default context. */
  context?: Context;
}

const SHAPE: OptionsShape<keyof ShardOptions> = {
  known: ['procs', 'workers', 'perThread', 'context'],
  notObject: () => 'shard(f, options): options must be { procs?, workers?, perThread?, context? }',
  unknownKey: (key) =>
    `shard(f, options): unknown option '${key}'; pass { procs?, workers?, perThread?, context? }`,
};

/**
 * Dagger's `Shard`: a `Chunk` of one piece of state per worker, thread or processor, each
 * made by the shard's `f()` where it lives and pinned there. Pass it to `spawn` like any
 * chunk: the task runs on a processor that holds a piece and receives that processor's own
 * piece, which it may mutate (`spawn(add, s, 5.2)` with `add = (piece, x) => ...`).
 */
export class Shard<T> extends Chunk<unknown> implements PieceChunk<T> {
  /** Type only (never set at run time): the type of each piece. */
  declare readonly pieceType: T;
  readonly #pieces: ShardPieces;

  /** @internal Made by `shard()`. */
  constructor(pieces: ShardPieces) {
    super(pieces, pieces.scope);
    this.#pieces = pieces;
  }

  /** The context whose processors hold the pieces (where tasks taking the shard run). */
  get context(): Context {
    return this.#pieces.context;
  }

  /**
   * The processors that hold a piece, or get one at their first use: those the shard's
   * options name that exist now (a worker added later with `addProcs` is included).
   */
  get processors(): Processor[] {
    return this.#pieces.holders();
  }

  /** Every piece by the processor holding it, fetched to the caller (copies of worker-held ones). */
  override fetch(): Promise<Map<Processor, T>> {
    return this.#pieces.fetch() as Promise<Map<Processor, T>>;
  }

  /**
   * The processors whose piece was lost with its worker thread or process, one entry per
   * loss, oldest first: the state accumulated there is gone, and `f()` makes the piece
   * again, empty, on the replacement at its next use. Pieces elsewhere keep their state.
   */
  rebuilt(): Processor[] {
    return this.#pieces.rebuilt();
  }

  /**
   * Convenience: `s.spawn(options, fn, ...args)` is `context.spawn(options, fn, s, ...args)`,
   * `fn` getting the local piece first.
   */
  spawn<A extends unknown[], R>(
    options: TaskOptions,
    fn: (piece: T, ...args: A) => R,
    ...args: SpawnArgs<A>
  ): DTask<Awaited<R>> {
    if (this.#pieces.released) this.#pieces.holders(); // throws the released error at the call
    return this.context.spawn(options, fn as (...xs: unknown[]) => R, this, ...args) as DTask<
      Awaited<R>
    >;
  }

  /**
   * Lets the pieces go: each worker frees its piece once no task still uses it. Using the
   * shard afterwards is an `ArgumentError`. Dropping every reference to the shard (and to the
   * tasks that took it) frees them as well, when it is collected.
   */
  release(): void {
    this.#pieces.release();
  }

  /** `release()`, for `using s = shard(...)`. */
  [Symbol.dispose](): void {
    this.release();
  }

  /** `Shard(thread:1:1, thread:1:2)`: the processors holding a piece made so far. */
  override toString(): string {
    return `Shard(${this.#pieces.madeOn().join(', ')})`;
  }
}

/**
 * Dagger's `shard`: runs `f()` once on each worker process (default; on its thread 1), once
 * on each thread (`perThread: true`), or once on each processor in `procs`, each piece pinned
 * where it was made, and returns at once the `Shard`, a `Chunk` that tasks take like any
 * other: each receives the piece of the processor it runs on, waiting for it to exist. Throws
 * `ArgumentError` at the call for empty `procs`/`workers`, `procs` with `workers` or
 * `perThread`, and processors or workers that do not exist.
 */
export function shard<T>(f: () => T, options: ShardOptions = {}): Shard<Awaited<T>> {
  if (typeof f !== 'function') {
    throw new ArgumentError(
      'shard(f, options): f must be a function that makes one piece, e.g. shard(() => ({ total: 0 }))',
    );
  }
  checkOptions(options, SHAPE);
  const { context, ...places } = options;
  if (context !== undefined && typeof (context as Partial<Context>)?.spawn !== 'function') {
    throw new ArgumentError('shard(f, { context }): context must be a Context (new Context(...))');
  }
  const ctx = context ?? defaultContext();
  checkPlaces(places, ctx.processors());
  return new Shard<Awaited<T>>(new ShardPieces(ctx, f, places));
}
