import { ArgumentError, type Context, type DTask } from '@dtask/core';
import { checkChunks, checkLayout } from './array-layout.js';
import { type AutoBlocks, resolveBlocks } from './auto-blocks.js';
import type { Blocks } from './blocks.js';
import { complexBinaryParts } from './complex-binary.js';
import type { Collected, DArrayOptions } from './darray-options.js';
import { sourceParts } from './distribute-parts.js';
import { type Complex, checkDtype, type DType, isComplex } from './dtype.js';
import {
  type BinaryOp,
  binaryParts,
  checkMap,
  type ElementwiseOptions,
  sameBlocking,
  widerDtype,
} from './elementwise.js';
import {
  binaryExpr,
  canDefer,
  type FusedExpr,
  fitsTogether,
  inputExpr,
  mapExpr,
  type Pending,
  spawnFused,
} from './fusion.js';
import {
  type CallerArray,
  callerArray,
  elementOf,
  fillOf,
  selectionOf,
  viewLayout,
  writeTasks,
} from './indexing.js';
import { installInternals } from './internals.js';
import type { Block } from './kernels.js';
import { makeParts } from './make-parts.js';
import { type ArrayData, chunkIndex, describe, type Parts, sameList, withRank } from './parts.js';
import { spawnerOf } from './placement.js';
import { matmulParts, transposeParts } from './products.js';
import { reduceArray } from './reduce-init.js';
import type { ReduceOptions } from './reductions.js';
import type { Selector } from './selectors.js';
import { assembleParts, type Range, reblockParts, selections } from './slicing.js';
import { materialize, type ViewOf } from './view-chunks.js';
import { collectArray } from './whole-array.js';

/** A settled promise: its reactions run as microtasks at the end of the synchronous run. */
const settled = Promise.resolve();

export type { Collected, DArrayOptions } from './darray-options.js';

/** What a selection can be set to: a number, a complex `{ re, im }`, an array, a caller's array. */
export type Source = number | Complex | DArray | CallerArray;

/**
 * A distributed dense array (Dagger's `DArray`): `shape` cut by `blocks` into chunks, each the
 * result of a task (a column-major block over a `SharedArrayBuffer`), computed where the
 * scheduler puts it. Operations spawn one task per block with the chunks as arguments, so the
 * data stays where it is; nothing of full size is built on the caller until `collect()`.
 * Element-wise operations and maps on arrays of one shape and blocking fuse (Dask's blockwise
 * fusion): `a.mul(2).add(b).map(f)` written in one synchronous run of code computes the whole
 * chain in one pass per block, as one group task per thread's run of blocks (`chunks` are its
 * handles, one per block; a lone block is a task of its own). Their tasks are spawned at the
 * end of that run (a microtask) or as soon as anything reads `chunks`; an intermediate array
 * used only inside the chain gets no tasks of its own unless it is read later (then its own
 * tasks compute it again from its inputs). Inside a task, a task queue or `withOptions`, each
 * operation spawns its tasks at once (a task per block), as any spawn there.
 * Column-major like Julia: element `(i₀, i₁, …)` of shape `[n₀, n₁, …]` is at
 * `i₀ + n₀·(i₁ + n₁·(i₂ + …))`.
 */
export class DArray {
  /** The array's shape. */
  readonly shape: readonly number[];
  /** How it is cut into chunks. */
  readonly blocks: Blocks;
  /** The element type. */
  readonly dtype: DType;
  /** Blocks along each dimension. */
  readonly grid: readonly number[];
  /** The context whose processors run its tasks (undefined: the default context). */
  readonly context: Context | undefined;
  #chunks: readonly DTask<Block>[] | undefined;
  #pending: Pending | undefined;
  #version = 0;
  #view: ViewOf<DArray> | undefined;
  #viewChunks: { version: number; chunks: readonly DTask<Block>[] } | undefined;

  static {
    installInternals({
      write: (a, updates) => (a as DArray).#write(updates),
      set: (a, selectors, value, what) =>
        DArray.#set(a as DArray, selectors, value as Source, what),
      viewOf: (a) => (a as DArray).#view,
    });
  }
  /**
   * The chain a fusing operation hands the constructor (then `chunks` is not given), and the
   * array whose shape and blocking the result takes (already checked: taken as they are).
   */
  static #deferring: { pending: Pending; like: DArray } | undefined;
  /** Fused arrays whose tasks are spawned at the end of this synchronous run, in order. */
  static #due: DArray[] = [];

  /** Wrap existing chunk tasks (column-major over the grid of `shape` by `blocks`). */
  constructor(
    shape: readonly number[],
    blocksOrAuto: Blocks | AutoBlocks,
    dtype: DType,
    chunks: readonly DTask<Block>[],
    context?: Context,
    view?: ViewOf<DArray>,
  ) {
    const deferring = DArray.#deferring;
    DArray.#deferring = undefined;
    if (deferring !== undefined) {
      const { like } = deferring;
      checkDtype(dtype, 'new DArray');
      this.shape = like.shape;
      this.blocks = like.blocks;
      this.dtype = dtype;
      this.grid = like.grid;
      this.context = like.context;
      this.#pending = deferring.pending;
      return;
    }
    const { blocks, grid } = checkLayout(shape, blocksOrAuto, dtype, context);
    this.shape = Object.freeze([...shape]);
    this.blocks = blocks;
    this.dtype = dtype;
    this.grid = Object.freeze(grid);
    this.context = context;
    this.#view = view;
    if (view !== undefined) return;
    checkChunks(chunks, this.grid, shape);
    this.#chunks = Object.freeze([...chunks]);
  }

  /**
   * The chunks' tasks, column-major over the grid (block `(i, j)` of a `p×q` grid at `i + j·p`;
   * `chunk(i, j)` indexes it): each resolves to a `Block` (a strided view), and is usable as a
   * task argument and with datadeps `view(chunk, ...slices)`. Reading it spawns a pending
   * element-wise chain's tasks (once). A write (`set`, `copyto`) replaces the tasks of the
   * blocks it touches; a view's are made on first use (and again after its parent is written).
   */
  get chunks(): readonly DTask<Block>[] {
    const view = this.#view;
    if (view !== undefined) {
      const version = view.parent.#version;
      if (this.#viewChunks?.version !== version) {
        this.#viewChunks = { version, chunks: Object.freeze(materialize(this, view)) };
      }
      return this.#viewChunks.chunks;
    }
    if (this.#chunks === undefined) this.#materialise();
    return this.#chunks as readonly DTask<Block>[];
  }

  /** A view's parent (Julia's `parent(V)`): the array it reads and writes; undefined otherwise. */
  get parent(): DArray | undefined {
    return this.#view?.parent;
  }

  #write(updates: ReadonlyMap<number, DTask<Block>>): void {
    const next = [...this.chunks];
    for (const [k, task] of updates) next[k] = task;
    this.#chunks = Object.freeze(next);
    this.#version++;
  }

  /** `value` written into the elements `selectors` pick of `a` (all when undefined). */
  static #set(
    a: DArray,
    selectors: readonly Selector[] | number | undefined,
    value: Source,
    what: string,
  ): void {
    const target = selectionOf(a, a.#view, selectors, what);
    const src =
      fillOf(value, target.parent, what) ??
      (value instanceof DArray
        ? selectionOf(value, value.#view, undefined, what)
        : selectionOf(callerArray(value, target.parent, what), undefined, undefined, what));
    target.parent.#write(writeTasks(target, src, what));
  }

  #materialise(): void {
    const pending = this.#pending as Pending;
    if (pending.error !== undefined) throw pending.error;
    try {
      this.#chunks = Object.freeze(spawnFused(pending.expr, this.dtype, pending.context));
      this.#pending = undefined;
    } catch (error) {
      pending.error = error;
      throw error;
    }
  }

  /** This array as the start of a fused chain: its pending chain (taken), or its chunks. */
  #expr(): FusedExpr {
    const pending = this.#chunks === undefined ? this.#pending : undefined;
    if (pending === undefined) return inputExpr(this.chunks);
    pending.absorbed = true;
    return pending.expr;
  }

  /**
   * The array computed by the chain `expr` of shape and blocks like this one's, of `dtype`:
   * pending until the end of this synchronous run (or until read) where fusing is safe, else
   * spawned now.
   */
  #fused(expr: FusedExpr, dtype: DType): DArray {
    const pending: Pending = { expr, context: this.context, absorbed: false };
    DArray.#deferring = { pending, like: this };
    let result: DArray;
    try {
      result = new DArray(this.shape, this.blocks, dtype, [], this.context);
    } finally {
      DArray.#deferring = undefined;
    }
    if (!canDefer(this.context)) {
      void result.chunks;
      return result;
    }
    // One microtask for every chain of this run (a promise reaction: no async resource each).
    if (DArray.#due.push(result) === 1) void settled.then(DArray.#spawnDue);
    return result;
  }

  /** Spawns the tasks of the chains left pending at the end of a synchronous run, in order. */
  static #spawnDue(): void {
    const due = DArray.#due;
    DArray.#due = [];
    for (const result of due) {
      const pending = result.#pending;
      if (pending === undefined || pending.absorbed || result.#chunks !== undefined) continue;
      try {
        void result.chunks;
      } catch {
        // Kept in `pending.error`: thrown to whoever reads the chunks (collect rejects with it).
      }
    }
  }

  /** The parts of a chain over `arrays`, each as its pending chain if they fit in one task. */
  static #exprs(arrays: DArray[]): FusedExpr[] {
    const exprs = arrays.map((a) =>
      a.#chunks === undefined && a.#pending !== undefined ? a.#pending.expr : inputExpr(a.chunks),
    );
    if (fitsTogether(exprs)) return arrays.map((a) => a.#expr());
    return arrays.map((a) => inputExpr(a.chunks));
  }

  /** The chunk task at grid index `(i, j, …)` (0-based). */
  chunk(...index: number[]): DTask<Block> {
    return this.chunks[chunkIndex(this, index)];
  }

  static #of(p: Parts, options: DArrayOptions): DArray {
    return new DArray(p.shape, p.blocks, p.dtype, p.chunks, options.context);
  }

  /** An array of zeros, each block made by a task where it lives. */
  static zeros(
    shape: readonly number[],
    blocks: Blocks | AutoBlocks,
    options: DArrayOptions = {},
  ): DArray {
    return DArray.#of(makeParts(shape, blocks, 'fill', 0, options, 'DArray.zeros'), options);
  }

  /**
   * Julia's (and Dagger's) `DArray{T}(undef, Blocks(...), dims)`: an array whose elements are
   * not to be read before written. JavaScript's typed arrays start as zeros, so it is
   * `DArray.zeros` (each block made by a task where it lives).
   */
  static undef(
    shape: readonly number[],
    blocks: Blocks | AutoBlocks,
    options: DArrayOptions = {},
  ): DArray {
    return DArray.#of(makeParts(shape, blocks, 'fill', 0, options, 'DArray.undef'), options);
  }

  /** An array of ones, each block made by a task where it lives. */
  static ones(
    shape: readonly number[],
    blocks: Blocks | AutoBlocks,
    options: DArrayOptions = {},
  ): DArray {
    return DArray.#of(makeParts(shape, blocks, 'fill', 1, options, 'DArray.ones'), options);
  }

  /** An array filled with `value`, each block made by a task where it lives. */
  static fill(
    shape: readonly number[],
    blocks: Blocks | AutoBlocks,
    value: number,
    options: DArrayOptions = {},
  ): DArray {
    if (typeof value !== 'number')
      throw new ArgumentError('DArray.fill(shape, blocks, value): value must be a number');
    return DArray.#of(makeParts(shape, blocks, 'fill', value, options, 'DArray.fill'), options);
  }

  /**
   * Pseudo-random values (uniform in [0, 1); integers 0–99 for int32), each block made by a
   * task where it lives: fresh numbers each call, or reproducible ones from `options.seed`.
   */
  static rand(
    shape: readonly number[],
    blocks: Blocks | AutoBlocks,
    options: DArrayOptions = {},
  ): DArray {
    return DArray.#of(makeParts(shape, blocks, 'rand', 0, options, 'DArray.rand'), options);
  }

  /**
   * A `DArray` of a caller's array, cut by `blocks` (Dagger's `DArray(A, Blocks(...))`):
   * `source` is `{ data, shape }` (column-major, what `collect()` gives) or a 1-D array or
   * typed array. The dtype defaults to the source's (Float32Array, Int32Array; else float64).
   */
  static from(
    source: { data: ArrayLike<number>; shape: readonly number[] } | ArrayLike<number>,
    blocks: Blocks | AutoBlocks,
    options: DArrayOptions = {},
  ): DArray {
    return DArray.#of(sourceParts(source, blocks, options, 'DArray.from(source, blocks)'), options);
  }

  /** A new array of `parts` (an operation's, or a view's to copy) in this array's context. */
  #derive(parts: Pick<ArrayData, 'shape' | 'blocks' | 'dtype' | 'chunks'>): DArray {
    return new DArray(parts.shape, parts.blocks, parts.dtype, parts.chunks, this.context);
  }

  /**
   * `f` applied element by element, block by block where each lives: `f(x)`, or `f(x, y, …)`
   * over this array and `others` of the same shape and blocks (else `ArgumentError`). `f`
   * travels to worker threads as source text, so it must be self-contained (no outer
   * variables). The result has this array's dtype; a boolean `f` returns is stored as 1 or 0,
   * and any other value that is not a number fails the block's task with a `TypeError`.
   */
  map(f: (x: number, ...ys: number[]) => number | boolean, ...others: DArray[]): DArray {
    const source = checkMap(this, f, others);
    return this.#fused(mapExpr(DArray.#exprs([this, ...others]), source, this.dtype), this.dtype);
  }

  #binary(other: DArray | number, op: BinaryOp, options?: ElementwiseOptions): DArray {
    if (isComplex(this.dtype) || (other instanceof DArray && isComplex(other.dtype))) {
      return this.#derive(complexBinaryParts(this, other, op, options));
    }
    if (typeof other === 'number') {
      const [a] = DArray.#exprs([this]);
      return this.#fused(binaryExpr(a, other, op, this.dtype), this.dtype);
    }
    if (other instanceof DArray && sameList(this.shape, other.shape) && sameBlocking(this, other)) {
      const [a, b] = DArray.#exprs([this, other]);
      const dtype = widerDtype(this.dtype, other.dtype);
      return this.#fused(binaryExpr(a, b, op, dtype), dtype);
    }
    // Missing trailing dimensions count as 1 (Julia's broadcasting: a 10×10 array .+ a
    // 10-vector adds the vector to every column).
    const rank = other instanceof DArray ? Math.max(this.shape.length, other.shape.length) : 0;
    const a = withRank(this, rank);
    const b = other instanceof DArray ? withRank(other, rank) : other;
    return this.#derive(binaryParts(a, spawnerOf(this.context), b, op, options));
  }

  /**
   * Element-wise sum with a number or an array (broadcast along dimensions of size 1, and a
   * missing trailing dimension counts as 1, like Julia's `a .+ b`); blockings must agree where
   * sizes do, unless `{ reblock: true }`.
   */
  add(other: DArray | number, options?: ElementwiseOptions): DArray {
    return this.#binary(other, 'add', options);
  }

  /** Element-wise difference (as `add`). */
  sub(other: DArray | number, options?: ElementwiseOptions): DArray {
    return this.#binary(other, 'sub', options);
  }

  /** Element-wise product (as `add`). */
  mul(other: DArray | number, options?: ElementwiseOptions): DArray {
    return this.#binary(other, 'mul', options);
  }

  /** Element-wise quotient (as `add`; int32 arrays truncate). */
  div(other: DArray | number, options?: ElementwiseOptions): DArray {
    return this.#binary(other, 'div', options);
  }

  #reduce(
    op: 'sum' | 'prod' | 'min' | 'max' | 'fn',
    options: ReduceOptions | undefined,
    what: string,
    extra?: { mean?: boolean; f?: unknown },
  ): Promise<number> | DArray {
    const reduced = reduceArray(this, op, options, what, extra);
    if (reduced instanceof Promise) return reduced;
    const result = this.#derive(reduced.parts);
    return reduced.each === undefined ? result : result.map(reduced.each);
  }

  /** Sum of all elements (a number), or along `dims` (a Float64 `DArray` with those dims of size 1). */
  sum(options?: { init?: number }): Promise<number>;
  sum(options: { dims: number | number[]; init?: number }): DArray;
  sum(options?: ReduceOptions): Promise<number> | DArray {
    return this.#reduce('sum', options, 'sum');
  }

  /** Mean of all elements (a number), or along `dims` (a Float64 `DArray`). */
  mean(options?: { init?: number }): Promise<number>;
  mean(options: { dims: number | number[]; init?: number }): DArray;
  mean(options?: ReduceOptions): Promise<number> | DArray {
    return this.#reduce('sum', options, 'mean', { mean: true });
  }

  /** Smallest element (a number), or along `dims` (a Float64 `DArray`). */
  min(options?: { init?: number }): Promise<number>;
  min(options: { dims: number | number[]; init?: number }): DArray;
  min(options?: ReduceOptions): Promise<number> | DArray {
    return this.#reduce('min', options, 'min');
  }

  /** Largest element (a number), or along `dims` (a Float64 `DArray`). */
  max(options?: { init?: number }): Promise<number>;
  max(options: { dims: number | number[]; init?: number }): DArray;
  max(options?: ReduceOptions): Promise<number> | DArray {
    return this.#reduce('max', options, 'max');
  }

  /**
   * Reduce with `f(acc, x)` (self-contained, associative: blocks are reduced where they are,
   * then their partial results combined): a number, or along `dims` a Float64 `DArray`.
   */
  reduce(f: (acc: number, x: number) => number, options?: { init?: number }): Promise<number>;
  reduce(
    f: (acc: number, x: number) => number,
    options: { dims: number | number[]; init?: number },
  ): DArray;
  reduce(f: (acc: number, x: number) => number, options?: ReduceOptions): Promise<number> | DArray {
    return this.#reduce('fn', options, 'reduce', { f });
  }

  /**
   * Blocked matrix product of two 2-D arrays: one task per result block, taking A's block row
   * and B's block column (B's rows re-blocked to A's column blocks where they differ); same
   * dtype. With a 1-D `other` (Julia's `A * x`), a vector: one task per block row of A.
   */
  matmul(other: DArray): DArray {
    return this.#derive(matmulParts(this, spawnerOf(this.context), other));
  }

  /** The transpose of a 2-D array (blocks transposed too), one task per block. */
  transpose(): DArray {
    return this.#derive(transposeParts(this, spawnerOf(this.context)));
  }

  /**
   * A sub-array (Dagger's `A[inds...]`), a copy: one selector per dimension, `':'`, `[start,
   * end)` or `[start, end, step]` (0-based, half-open), an index `i` (the dimension is dropped)
   * or `{ indices: [...] }`. It keeps the block sizes; each block is a task copying from the
   * source blocks it overlaps.
   */
  slice(...ranges: Selector[]): DArray {
    if (!ranges.every((r) => r === ':' || Array.isArray(r)))
      return this.#derive(this.view(...ranges));
    const select = selections(this, ranges as Range[]);
    return this.#derive(assembleParts(this, spawnerOf(this.context), select, this.blocks));
  }

  /** A view (Dagger's `view(A, inds...)`), selectors as `slice`'s: writes into it write here. */
  view(...selectors: Selector[]): DArray {
    const of = selectionOf(this, this.#view, selectors, 'da.view(...selectors)');
    const { shape, blocks } = viewLayout(of);
    return new DArray(shape, blocks, of.parent.dtype, [], of.parent.context, of);
  }

  /** The element at `(i, j, …)` or at one column-major linear index (Dagger's `A[i, j]`). */
  get(...index: number[]): Promise<number> {
    return elementOf(this, this.#view, index);
  }

  /**
   * `A[inds...] = value` in place (Dagger's `setindex!`; selectors as `slice`'s, or a linear
   * index): a number fills, an array of the selection's shape (size-1 dimensions aside) copies.
   */
  set(selectors: readonly Selector[] | number, value: Source): this {
    DArray.#set(this, selectors, value, `da.set(selectors, value) of ${describe(this)}`);
    return this;
  }

  /** A copy of this array with `value` written as `set` would (Dagger's `setindex`). */
  with(selectors: readonly Selector[] | number, value: Source): DArray {
    return this.#derive(this).set(selectors, value);
  }

  /**
   * The same array cut by other `blocks` (the re-blocking step): one task per new block,
   * assembled from the old blocks it overlaps, where the scheduler places it (this array
   * itself when the blocks are the same).
   */
  reblock(blocksOrAuto: Blocks | AutoBlocks): DArray {
    const blocks = resolveBlocks(this.shape, blocksOrAuto, this.context);
    const parts = reblockParts(this, blocks);
    return parts === undefined ? this : this.#derive(parts); // arrays are immutable
  }

  /** The whole array on the caller: `{ data, shape }`, column-major like Julia. */
  collect(): Promise<Collected> {
    return collectArray(this);
  }

  /** Dagger's `fetch(DA)`: the same as `collect()`. */
  fetch(): Promise<Collected> {
    return this.collect();
  }

  /** `DArray [13, 11] float64 in blocks (4, 4)`. */
  toString(): string {
    return `DArray ${describe(this)}`;
  }
}
