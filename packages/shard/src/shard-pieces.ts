import {
  type AbstractScope,
  AnyScope,
  ArgumentError,
  Chunk,
  type Context,
  type DTask,
  ExactScope,
  InvalidScope,
  isDataLost,
  type Processor,
  UnionScope,
} from '@dtask/core';
import type { ChunkHandle } from '@dtask/core/plugin';
import { placesNow, type ShardPlaces } from './shard-places.js';

/** One piece: the task that made it where it lives, as a chunk pinned there. */
interface Piece {
  readonly proc: Processor;
  readonly chunk: Chunk<unknown>;
}

/**
 * The handle behind a `Shard` chunk (core's `ChunkHandle` with `pieceFor`): which processors
 * should hold a piece, the pieces made so far, and the losses seen. A piece is made by `f()`
 * on its processor the first time it is needed (a task placed there, `fetch`), pinned there by
 * an exact result scope, so tasks placed there get that very object. A piece whose worker is
 * gone is noticed at its next use (or by `rebuilt()`), listed as rebuilt, and made again by
 * `f()` on the replacement: its state is not carried over.
 */
export class ShardPieces implements ChunkHandle {
  readonly #pieces = new Map<string, Piece>();
  readonly #rebuilt: Processor[] = [];
  #released = false;

  constructor(
    readonly context: Context,
    readonly f: () => unknown,
    readonly places: ShardPlaces,
  ) {
    for (const proc of this.holders()) this.#make(proc);
  }

  /** The processors that hold a piece now, or get one at their first use (added later). */
  holders(): Processor[] {
    this.#assertLive('use');
    return placesNow(this.places, this.context.processors());
  }

  /** Tasks taking the shard run on a processor that holds (or is to hold) a piece. */
  get scope(): AbstractScope {
    const holders = this.holders();
    if (holders.length === 0) {
      // Every processor it named was removed: tasks taking it fail with SchedulingError.
      return new InvalidScope(
        new AnyScope(),
        new AnyScope(),
        'no processor holds a piece of the shard',
      );
    }
    return new UnionScope(...holders.map((p) => new ExactScope(p)));
  }

  /**
   * Whether default-scoped tasks may take the shard outside `DefaultScope`: only when no
   * holder is in it (the pieces are on the main thread alone). Otherwise they use the holders
   * in it, as for any task: once worker threads or processes exist, the main thread's piece is
   * used by tasks whose scope names it.
   */
  get pinned(): boolean {
    return !this.holders().some((p) => p.defaultEnabled);
  }

  /** The first holder (a shard has no single processor; see `holders`). */
  get processor(): Processor {
    const first = this.holders()[0];
    if (first === undefined) {
      throw new ArgumentError('shard: no processor holds a piece; add the processors it names');
    }
    return first;
  }

  /** See `ChunkHandle.pieceFor`: the piece of `proc`, made (again) there when needed. */
  pieceFor(proc: Processor): Chunk<unknown> | undefined {
    this.#assertLive('use');
    const piece = this.#current(proc.id);
    if (piece !== undefined) return piece.chunk;
    if (!this.holders().some((p) => p.id === proc.id)) return undefined;
    return this.#make(proc).chunk;
  }

  /** Every piece, by holder, fetched to the caller (pieces on workers: copies). */
  async fetch(): Promise<Map<Processor, unknown>> {
    const holders = this.holders();
    const chunks = holders.map((p) => this.pieceFor(p) as Chunk<unknown>);
    const values = await Promise.all(chunks.map((c) => c.fetch()));
    return new Map(holders.map((p, i) => [p, values[i]]));
  }

  /** Processors whose piece was lost with its worker, one entry per loss, oldest first. */
  rebuilt(): Processor[] {
    for (const id of [...this.#pieces.keys()]) this.#current(id);
    return [...this.#rebuilt];
  }

  /** Lets the pieces go (the workers free them once no task uses them); further use throws. */
  release(): void {
    this.#released = true;
    this.#pieces.clear();
  }

  /** Whether `release` was called. */
  get released(): boolean {
    return this.#released;
  }

  /** The ids of the processors holding a piece made so far. */
  madeOn(): string[] {
    return [...this.#pieces.keys()];
  }

  /** The piece of processor `id` if it has one that was not lost (a lost one is dropped). */
  #current(id: string): Piece | undefined {
    const piece = this.#pieces.get(id);
    if (piece === undefined || !isDataLost(piece.chunk)) return piece;
    this.#pieces.delete(id);
    this.#rebuilt.push(piece.proc);
    return undefined;
  }

  #make(proc: Processor): Piece {
    const exact = new ExactScope(proc);
    // The exact resultScope pins the piece: the worker keeps this very object, however small.
    const task = this.context.spawn(
      { scope: exact, resultScope: exact, name: 'shard-piece' },
      this.f,
    ) as DTask<unknown>;
    const fetch = () => task.fetch();
    const chunk = new Chunk({ pending: task, task, pinned: true, processor: proc, fetch }, exact);
    const piece = { proc, chunk };
    this.#pieces.set(proc.id, piece);
    return piece;
  }

  #assertLive(what: string): void {
    if (this.#released) {
      throw new ArgumentError(
        `shard: cannot ${what} a shard after release(); make a new one with shard(f, options)`,
      );
    }
  }
}
