import {
  type AbstractScope,
  ArgumentError,
  type Context,
  configure,
  type DTask,
  ExactScope,
  isScope,
  isSubset,
  type Processor,
  SchedulingError,
  WorkerLostError,
} from '@dtask/core';
import { checkPlaces, placesNow, type ShardPlaces } from './shard-places.js';

/** Options of `shard`: where the pieces go, and the context (default: the default context). */
export interface ShardOptions extends ShardPlaces {
  /** The context whose processors hold the pieces; default: the default context. */
  context?: Context;
}

/** Options of a task run on a piece (`Shard.spawn`). */
export interface PieceTaskOptions {
  /** Where the task may run: only processors inside it that hold a piece are used. */
  scope?: AbstractScope;
  /** A name for logs and error messages. */
  name?: string;
}

interface Piece<T> {
  readonly proc: Processor;
  readonly task: DTask<T>;
  /** Tasks on this piece not finished yet (placement takes the least busy piece). */
  busy: number;
}

const DEFAULT_CONTEXT = Symbol.for('dtask.defaultContext');

function defaultContext(): Context {
  const existing = (globalThis as { [DEFAULT_CONTEXT]?: Context })[DEFAULT_CONTEXT];
  return existing && !existing.isClosed ? existing : configure();
}

/**
 * Dagger's `Shard`: one piece of state per worker, thread or processor, each made by the
 * shard's `f()` where it lives and pinned there. Tasks run with `spawn` receive the piece
 * local to the processor they run on and may mutate it.
 */
export class Shard<T> {
  readonly #f: () => T | Promise<T>;
  readonly #ctx: Context;
  readonly #places: ShardPlaces;
  readonly #pieces = new Map<string, Piece<T>>();
  readonly #rebuilt: Processor[] = [];
  #released = false;

  /** @internal Made by `shard()`. */
  constructor(f: () => T | Promise<T>, ctx: Context, places: ShardPlaces) {
    this.#f = f;
    this.#ctx = ctx;
    this.#places = places;
    this.#refresh();
  }

  /** The processors that hold a piece now. */
  get processors(): Processor[] {
    this.#refresh();
    return [...this.#pieces.values()].map((p) => p.proc);
  }

  /**
   * The processors whose piece was lost with its thread and made again by `f()` on the
   * replacement: the state they had accumulated is gone. Each loss is listed once.
   */
  rebuilt(): Processor[] {
    this.#noteLost();
    return [...this.#rebuilt];
  }

  /**
   * Runs `fn(piece, ...args)` on a processor that holds a piece (inside `options.scope`
   * when given), with the piece of that processor: `fn` may mutate it. If the thread dies
   * while `fn` runs, the task fails with `WorkerLostError` (it is not re-run on the rebuilt,
   * empty piece). Throws `SchedulingError` when the scope allows no processor with a piece.
   */
  spawn<A extends unknown[], R>(
    options: PieceTaskOptions,
    fn: (piece: T, ...args: A) => R,
    ...args: A
  ): DTask<Awaited<R>> {
    this.#assertLive('spawn');
    if (typeof options !== 'object' || options === null) {
      throw new ArgumentError(
        'shard.spawn(options, fn, ...args): options must be { scope?, name? }',
      );
    }
    if (options.scope !== undefined && !isScope(options.scope)) {
      throw new ArgumentError(
        'shard.spawn({ scope }): scope must be a scope, e.g. scope({ thread: 1 })',
      );
    }
    if (typeof fn !== 'function') {
      throw new ArgumentError('shard.spawn(options, fn, ...args): fn must be a function');
    }
    this.#refresh();
    const allowed = [...this.#pieces.values()].filter(
      (p) => options.scope === undefined || isSubset(new ExactScope(p.proc), options.scope),
    );
    if (allowed.length === 0) {
      const holders = [...this.#pieces.keys()].join(', ');
      throw new SchedulingError(
        `No processor allowed by the task's scope holds a piece of this shard; pieces are held by: ${holders}. Widen the scope to include one of them.`,
      );
    }
    let piece = allowed[0] as Piece<T>;
    for (const p of allowed) if (p.busy < piece.busy) piece = p;
    return this.#run(piece, options.name, true, fn, args);
  }

  /** Every piece, moved to the caller, by the processor that holds it. */
  async fetch(): Promise<Map<Processor, T>> {
    this.#assertLive('fetch');
    this.#refresh();
    const pieces = [...this.#pieces.values()];
    const values = await Promise.all(pieces.map((p) => p.task.fetch()));
    return new Map(pieces.map((p, i) => [p.proc, values[i] as T]));
  }

  /**
   * Runs `fn(piece, ...args)` on each processor that holds a piece, where the piece lives;
   * resolves to the results by processor. Used by `reduceShard`.
   */
  async mapPieces<A extends unknown[], R>(
    fn: (piece: T, ...args: A) => R,
    ...args: A
  ): Promise<Map<Processor, Awaited<R>>> {
    this.#assertLive('mapPieces');
    this.#refresh();
    const pieces = [...this.#pieces.values()];
    const tasks = pieces.map((p) => this.#run(p, 'shard-map', false, fn, args));
    const values = await Promise.all(tasks.map((t) => t.fetch()));
    return new Map(pieces.map((p, i) => [p.proc, values[i] as Awaited<R>]));
  }

  /**
   * Lets the pieces go: the workers free them once no task still uses them. The shard
   * cannot be used afterwards. (Dropping every reference to the shard does the same.)
   */
  release(): void {
    this.#released = true;
    this.#pieces.clear();
  }

  /** `Shard(thread:1:1, thread:1:2)`. */
  toString(): string {
    return `Shard(${[...this.#pieces.keys()].join(', ')})`;
  }

  #assertLive(what: string): void {
    if (this.#released) {
      throw new ArgumentError(
        `shard.${what}(): this shard was released; make a new one with shard(f)`,
      );
    }
  }

  /** Records pieces whose holder is gone (also a thread that died while idle). */
  #noteLost(): void {
    for (const piece of this.#pieces.values()) {
      // A held result (core's RemoteResult) says when its holder is gone; its task's lineage
      // (f on that processor) remakes it on the replacement at the next use.
      const held = piece.task.value as { isLost?: () => boolean } | undefined;
      if (held?.isLost?.() === true) this.#markRebuilt(piece.proc);
    }
  }

  #markRebuilt(proc: Processor): void {
    if (!this.#rebuilt.some((p) => p.id === proc.id)) this.#rebuilt.push(proc);
  }

  /** Makes the pieces of processors that should have one and do not yet (workers added later). */
  #refresh(): void {
    if (this.#released) return;
    this.#noteLost();
    for (const proc of placesNow(this.#places, this.#ctx.processors())) {
      if (this.#pieces.has(proc.id)) continue;
      const task = this.#ctx.spawn(
        // resultScope pins the piece: the worker keeps this very object for the tasks that take it.
        { scope: new ExactScope(proc), resultScope: new ExactScope(proc), name: 'shard-piece' },
        this.#f,
      ) as DTask<T>;
      this.#pieces.set(proc.id, { proc, task, busy: 0 });
    }
  }

  #run<A extends unknown[], R>(
    piece: Piece<T>,
    name: string | undefined,
    inPlace: boolean,
    fn: (piece: T, ...args: A) => R,
    args: A,
  ): DTask<Awaited<R>> {
    const task = this.#ctx.spawn(
      { scope: new ExactScope(piece.proc), inPlace, ...(name ? { name } : {}) },
      fn as (...xs: unknown[]) => R,
      piece.task,
      ...args,
    ) as DTask<Awaited<R>>;
    piece.busy++;
    task.fetch().then(
      () => piece.busy--,
      (error: unknown) => {
        piece.busy--;
        // The piece died with its thread; the next use remakes it there from f (lineage).
        if (isWorkerLost(error)) this.#markRebuilt(piece.proc);
      },
    );
    return task;
  }
}

function isWorkerLost(error: unknown): boolean {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) {
    if (WorkerLostError.isInstance(e)) return true;
  }
  return false;
}

/**
 * Dagger's `shard`: runs `f()` once per worker process (default), once per thread
 * (`perThread: true`), or once per processor in `procs`, each piece pinned where it was
 * made, and returns at once a `Shard` handle; tasks that take it wait for their piece.
 * Throws `ArgumentError` for empty `procs`/`workers`, `procs` with `workers` or
 * `perThread`, and processors or workers that do not exist.
 */
export function shard<T>(f: () => T | Promise<T>, options: ShardOptions = {}): Shard<Awaited<T>> {
  if (typeof f !== 'function') throw new ArgumentError('shard(f, options): f must be a function');
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentError(
      'shard(f, options): options must be { procs?, workers?, perThread?, context? }',
    );
  }
  const { context, ...places } = options;
  const ctx = context ?? defaultContext();
  checkPlaces(places, ctx.processors());
  return new Shard(f as () => Awaited<T>, ctx, places);
}
