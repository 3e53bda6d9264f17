import {
  type AbstractScope,
  ArgumentError,
  type Context,
  type DTask,
  spawn as defaultSpawn,
} from '@dtask/core';
import {
  Blocks,
  blockRanges,
  checkBlocks,
  checkShape,
  columnMajorStrides,
  gridIndices,
  gridOf,
  lengthOf,
} from './blocks.js';
import {
  assembleBlock,
  type Block,
  binaryBlock,
  combineBlocks,
  makeBlock,
  mapBlock,
  matmulBlocks,
  reduceBlock,
  transposeBlock,
} from './kernels.js';

/** Element types a `DArray` holds. */
export type DType = 'float64' | 'float32' | 'int32';

/** The typed array of each `DType`. */
export type DTypeArray = Float64Array | Float32Array | Int32Array;

/** Options of the `DArray` constructors. */
export interface DArrayOptions {
  /** Element type; default `'float64'`. */
  dtype?: DType;
  /** The context whose processors run the chunks' tasks; default: the default context. */
  context?: Context;
  /** Seed of `DArray.rand` (each block gets its own stream); default 1. */
  seed?: number;
  /**
   * Explicit placement: the scope of the task that makes the block at each grid index (e.g.
   * `(idx) => scope({ worker: 1, thread: 1 + (idx[0] % 2) })`); default: anywhere in scope.
   */
  assign?: (index: readonly number[]) => AbstractScope;
}

/** The spawn options that place the block at `index` by `assign` (none without it). */
export function placement(
  assign: ((index: readonly number[]) => AbstractScope) | undefined,
  index: readonly number[],
  what: string,
): { scope: AbstractScope }[] {
  if (assign === undefined) return [];
  if (typeof assign !== 'function') {
    throw new ArgumentError(`${what}: assign must be a function (gridIndex) => scope`);
  }
  return [{ scope: assign(index) }];
}

/** What `collect()` resolves to: the whole array, column-major. */
export interface Collected {
  /** The elements, column-major (element `(i, j)` of an `m×n` array at `i + j·m`). */
  data: DTypeArray;
  /** The shape. */
  shape: number[];
}

type SpawnFn = (...args: any[]) => DTask<Block>;

const DTYPES: readonly string[] = ['float64', 'float32', 'int32'];

/** Throws `ArgumentError` unless `dtype` is one of the supported element types. */
export function checkDtype(dtype: string, what: string): DType {
  if (!DTYPES.includes(dtype)) {
    throw new ArgumentError(
      `${what}: dtype must be 'float64', 'float32' or 'int32'; got ${String(dtype)}`,
    );
  }
  return dtype as DType;
}

/** The spawn function of `context` (or core's `spawn`). */
export function spawnerOf(context?: Context): SpawnFn {
  return (context ? context.spawn.bind(context) : defaultSpawn) as unknown as SpawnFn;
}

/** A zeroed typed array of `dtype` and length `n`. */
export function arrayOf(dtype: DType, n: number): DTypeArray {
  return dtype === 'float32'
    ? new Float32Array(n)
    : dtype === 'int32'
      ? new Int32Array(n)
      : new Float64Array(n);
}

/**
 * A distributed dense array (Dagger's `DArray`): `shape` cut by `blocks` into chunks, each the
 * result of a task (a column-major block over a `SharedArrayBuffer`), computed where the
 * scheduler puts it. Operations spawn one task per block with the chunks as arguments, so data
 * stays where it is; nothing full-size is built on the caller until `collect()`.
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
  /**
   * The chunks' tasks, column-major over the grid (block `(i, j)` of a `p×q` grid at `i + j·p`);
   * each resolves to a `Block` (a strided view), usable as a task argument and with datadeps `view`.
   */
  readonly chunks: readonly DTask<Block>[];
  readonly #context: Context | undefined;

  /** Wrap existing chunk tasks (column-major over the grid of `shape` by `blocks`). */
  constructor(
    shape: readonly number[],
    blocks: Blocks,
    dtype: DType,
    chunks: readonly DTask<Block>[],
    context?: Context,
  ) {
    checkShape(shape, 'new DArray');
    checkBlocks(shape, blocks, 'new DArray');
    checkDtype(dtype, 'new DArray');
    this.shape = Object.freeze([...shape]);
    this.blocks = blocks;
    this.dtype = dtype;
    this.grid = Object.freeze(gridOf(shape, blocks));
    if (chunks.length !== lengthOf(this.grid)) {
      throw new ArgumentError(
        `new DArray: expected ${lengthOf(this.grid)} chunks for grid [${this.grid.join(', ')}]; got ${chunks.length}`,
      );
    }
    this.chunks = Object.freeze([...chunks]);
    this.#context = context;
  }

  /** The chunk task at grid index `(i, j, …)` (0-based). */
  chunk(...index: number[]): DTask<Block> {
    if (
      index.length !== this.grid.length ||
      index.some((b, d) => !Number.isInteger(b) || b < 0 || b >= this.grid[d])
    ) {
      throw new ArgumentError(
        `chunk(...index): give ${this.grid.length} block indices within grid [${this.grid.join(', ')}]`,
      );
    }
    let flat = 0;
    const strides = columnMajorStrides(this.grid);
    for (let d = 0; d < index.length; d++) flat += index[d] * strides[d];
    return this.chunks[flat];
  }

  static #make(
    shape: readonly number[],
    blocks: Blocks,
    kind: string,
    value: number,
    options: DArrayOptions,
    what: string,
  ): DArray {
    checkShape(shape, what);
    checkBlocks(shape, blocks, what);
    const dtype = checkDtype(options.dtype ?? 'float64', what);
    const seed = options.seed ?? 1;
    const spawn = spawnerOf(options.context);
    const grid = gridOf(shape, blocks);
    const chunks = gridIndices(grid).map((idx, k) => {
      const bshape = blockRanges(shape, blocks, idx).map(([a, b]) => b - a);
      return spawn(
        ...placement(options.assign, idx, what),
        makeBlock,
        dtype,
        bshape,
        kind,
        value,
        (seed * 7919 + k * 104729) >>> 0,
      );
    });
    return new DArray(shape, blocks, dtype, chunks, options.context);
  }

  /** An array of zeros, each block made by a task where it lives. */
  static zeros(shape: readonly number[], blocks: Blocks, options: DArrayOptions = {}): DArray {
    return DArray.#make(shape, blocks, 'fill', 0, options, 'DArray.zeros');
  }

  /** An array of ones, each block made by a task where it lives. */
  static ones(shape: readonly number[], blocks: Blocks, options: DArrayOptions = {}): DArray {
    return DArray.#make(shape, blocks, 'fill', 1, options, 'DArray.ones');
  }

  /** An array filled with `value`, each block made by a task where it lives. */
  static fill(
    shape: readonly number[],
    blocks: Blocks,
    value: number,
    options: DArrayOptions = {},
  ): DArray {
    if (typeof value !== 'number')
      throw new ArgumentError('DArray.fill(shape, blocks, value): value must be a number');
    return DArray.#make(shape, blocks, 'fill', value, options, 'DArray.fill');
  }

  /**
   * Pseudo-random values (uniform in [0, 1); integers 0–99 for int32) from `options.seed`,
   * each block made by a task where it lives.
   */
  static rand(shape: readonly number[], blocks: Blocks, options: DArrayOptions = {}): DArray {
    return DArray.#make(shape, blocks, 'rand', 0, options, 'DArray.rand');
  }

  #spawn(): SpawnFn {
    return spawnerOf(this.#context);
  }

  #derive(shape: readonly number[], blocks: Blocks, dtype: DType, chunks: DTask<Block>[]): DArray {
    return new DArray(shape, blocks, dtype, chunks, this.#context);
  }

  /**
   * `f` applied to every element, one task per block. `f` travels to worker threads as source
   * text, so it must be self-contained (no outer variables). The result has the same dtype.
   */
  map(f: (x: number) => number): DArray {
    if (typeof f !== 'function')
      throw new ArgumentError('da.map(f): f must be a function (x) => number');
    const source = f.toString();
    try {
      new Function(`return (${source});`);
    } catch {
      throw new ArgumentError(
        `da.map(f): f must be a self-contained function written in JS (an arrow or function expression) so it can travel as source text; got ${source.slice(0, 60)}`,
      );
    }
    const spawn = this.#spawn();
    return this.#derive(
      this.shape,
      this.blocks,
      this.dtype,
      this.chunks.map((c) => spawn(mapBlock, c, source, this.dtype)),
    );
  }

  #binary(other: DArray | number, op: string): DArray {
    const spawn = this.#spawn();
    if (typeof other === 'number') {
      return this.#derive(
        this.shape,
        this.blocks,
        this.dtype,
        this.chunks.map((c) => spawn(binaryBlock, c, other, op, this.dtype)),
      );
    }
    if (!(other instanceof DArray))
      throw new ArgumentError(`da.${op}(other): other must be a DArray or a number`);
    if (!sameList(this.shape, other.shape) || !sameList(this.blocks.sizes, other.blocks.sizes)) {
      throw new ArgumentError(
        `da.${op}(other): shapes and blocks must match; got [${this.shape.join(', ')}] in blocks (${this.blocks.sizes.join(', ')}) and [${other.shape.join(', ')}] in blocks (${other.blocks.sizes.join(', ')}); redistribute one with the other's Blocks`,
      );
    }
    return this.#derive(
      this.shape,
      this.blocks,
      this.dtype,
      this.chunks.map((c, k) => spawn(binaryBlock, c, other.chunks[k], op, this.dtype)),
    );
  }

  /** Element-wise sum with a same-shaped, same-blocked `DArray`, or with a number. */
  add(other: DArray | number): DArray {
    return this.#binary(other, 'add');
  }

  /** Element-wise difference with a same-shaped, same-blocked `DArray`, or with a number. */
  sub(other: DArray | number): DArray {
    return this.#binary(other, 'sub');
  }

  /** Element-wise product with a same-shaped, same-blocked `DArray`, or with a number. */
  mul(other: DArray | number): DArray {
    return this.#binary(other, 'mul');
  }

  /** Element-wise quotient with a same-shaped, same-blocked `DArray`, or with a number. */
  div(other: DArray | number): DArray {
    return this.#binary(other, 'div');
  }

  #reduce(
    op: string,
    options: { dims?: number[] } | undefined,
    mean: boolean,
    what: string,
  ): DArray {
    const nd = this.shape.length;
    const dims = options?.dims ?? [...Array(nd).keys()];
    if (!Array.isArray(dims) || dims.some((d) => !Number.isInteger(d) || d < 0 || d >= nd)) {
      throw new ArgumentError(
        `da.${what}({ dims }): dims must list dimensions 0…${nd - 1}; got ${String(dims)}`,
      );
    }
    if (lengthOf(this.shape) === 0) throw new ArgumentError(`da.${what}(): the array is empty`);
    const spawn = this.#spawn();
    const partial = this.chunks.map((c) => spawn(reduceBlock, c, dims, op));
    const oshape = this.shape.map((s, d) => (dims.includes(d) ? 1 : s));
    const oblocks = new Blocks(...this.blocks.sizes.map((s, d) => (dims.includes(d) ? 1 : s)));
    const ogrid = gridOf(oshape, oblocks);
    const gstr = columnMajorStrides(this.grid);
    const reduced = lengthOf(this.shape) / lengthOf(oshape);
    const scale = mean ? 1 / reduced : 1;
    const rgrid = this.grid.map((g, d) => (dims.includes(d) ? g : 1));
    const chunks = gridIndices(ogrid).map((oidx) => {
      const parts = gridIndices(rgrid).map((ridx) => {
        let flat = 0;
        for (let d = 0; d < nd; d++) flat += (dims.includes(d) ? ridx[d] : oidx[d]) * gstr[d];
        return partial[flat];
      });
      return spawn(combineBlocks, op, scale, ...parts);
    });
    return this.#derive(oshape, oblocks, 'float64', chunks);
  }

  /** Sum of all elements (a number), or along `dims` (a Float64 `DArray` with those dims of size 1). */
  sum(): Promise<number>;
  sum(options: { dims: number[] }): DArray;
  sum(options?: { dims?: number[] }): Promise<number> | DArray {
    return scalarOr(this.#reduce('sum', options, false, 'sum'), options);
  }

  /** Mean of all elements (a number), or along `dims` (a Float64 `DArray`). */
  mean(): Promise<number>;
  mean(options: { dims: number[] }): DArray;
  mean(options?: { dims?: number[] }): Promise<number> | DArray {
    return scalarOr(this.#reduce('sum', options, true, 'mean'), options);
  }

  /** Smallest element (a number), or along `dims` (a Float64 `DArray`). */
  min(): Promise<number>;
  min(options: { dims: number[] }): DArray;
  min(options?: { dims?: number[] }): Promise<number> | DArray {
    return scalarOr(this.#reduce('min', options, false, 'min'), options);
  }

  /** Largest element (a number), or along `dims` (a Float64 `DArray`). */
  max(): Promise<number>;
  max(options: { dims: number[] }): DArray;
  max(options?: { dims?: number[] }): Promise<number> | DArray {
    return scalarOr(this.#reduce('max', options, false, 'max'), options);
  }

  /**
   * Blocked matrix product of two 2-D arrays: one task per result block, taking A's block row
   * and B's block column. A's column blocks must equal B's row blocks; same dtype.
   */
  matmul(other: DArray): DArray {
    if (!(other instanceof DArray) || this.shape.length !== 2 || other.shape.length !== 2) {
      throw new ArgumentError('da.matmul(other): both arrays must be 2-D DArrays');
    }
    const [m, k] = this.shape;
    const [k2, n] = other.shape;
    if (k !== k2 || this.blocks.sizes[1] !== other.blocks.sizes[0] || this.dtype !== other.dtype) {
      throw new ArgumentError(
        `da.matmul(other): need [m, k]·[k, n] with A's column block size equal to B's row block size and one dtype; got [${m}, ${k}] blocks (${this.blocks.sizes.join(', ')}) ${this.dtype} and [${k2}, ${n}] blocks (${other.blocks.sizes.join(', ')}) ${other.dtype}`,
      );
    }
    const spawn = this.#spawn();
    const blocks = new Blocks(this.blocks.sizes[0], other.blocks.sizes[1]);
    const grid = gridOf([m, n], blocks);
    const kb = this.grid[1];
    const chunks = gridIndices(grid).map(([i, j]) => {
      const as = Array.from({ length: kb }, (_, p) => this.chunk(i, p));
      const bs = Array.from({ length: kb }, (_, p) => other.chunk(p, j));
      return spawn(matmulBlocks, this.dtype, kb, ...as, ...bs);
    });
    return this.#derive([m, n], blocks, this.dtype, chunks);
  }

  /** The transpose of a 2-D array (blocks transposed too), one task per block. */
  transpose(): DArray {
    if (this.shape.length !== 2)
      throw new ArgumentError('da.transpose(): only 2-D arrays; use slice/map for others');
    const spawn = this.#spawn();
    const blocks = new Blocks(this.blocks.sizes[1], this.blocks.sizes[0]);
    const grid = [this.grid[1], this.grid[0]];
    const chunks = gridIndices(grid).map(([j, i]) => spawn(transposeBlock, this.chunk(i, j)));
    return this.#derive([this.shape[1], this.shape[0]], blocks, this.dtype, chunks);
  }

  /**
   * A sub-array: one range per dimension, each `[start, end)` (0-based, half-open) or `':'`
   * for all of it. The result keeps the block sizes; each block is assembled by a task from
   * the source blocks it overlaps.
   */
  slice(...ranges: ([number, number] | ':')[]): DArray {
    const nd = this.shape.length;
    if (ranges.length !== nd) {
      throw new ArgumentError(
        `da.slice(...ranges): give ${nd} ranges ([start, end) or ':'); got ${ranges.length}`,
      );
    }
    const bounds = ranges.map((r, d): [number, number] => {
      if (r === ':') return [0, this.shape[d]];
      if (
        !Array.isArray(r) ||
        r.length !== 2 ||
        !Number.isInteger(r[0]) ||
        !Number.isInteger(r[1]) ||
        r[0] < 0 ||
        r[1] > this.shape[d] ||
        r[0] > r[1]
      ) {
        throw new ArgumentError(
          `da.slice(...ranges): range ${d} must be ':' or [start, end) with 0 ≤ start ≤ end ≤ ${this.shape[d]}; got ${JSON.stringify(r)}`,
        );
      }
      return [r[0], r[1]];
    });
    const oshape = bounds.map(([a, b]) => b - a);
    const spawn = this.#spawn();
    const size = this.blocks.sizes;
    const chunks = gridIndices(gridOf(oshape, this.blocks)).map((oidx) => {
      const out = blockRanges(oshape, this.blocks, oidx);
      // Source element ranges this output block needs, then the source blocks they span.
      const src = out.map(([a, b], d): [number, number] => [a + bounds[d][0], b + bounds[d][0]]);
      const spans = src.map(([a, b], d) => {
        const first = Math.floor(a / size[d]);
        const last = b > a ? Math.floor((b - 1) / size[d]) : first;
        return [first, last - first + 1];
      });
      const plan: { from: number[]; to: number[]; size: number[] }[] = [];
      const sources: DTask<Block>[] = [];
      for (const rel of gridIndices(spans.map(([, c]) => c))) {
        const bidx = rel.map((r, d) => spans[d][0] + r);
        if (bidx.some((b, d) => b >= this.grid[d])) continue;
        const br = blockRanges(this.shape, this.blocks, bidx);
        const lo = br.map(([a], d) => Math.max(a, src[d][0]));
        const hi = br.map(([, b], d) => Math.min(b, src[d][1]));
        if (hi.some((h, d) => h <= lo[d])) continue;
        plan.push({
          from: lo.map((l, d) => l - br[d][0]),
          to: lo.map((l, d) => l - src[d][0]),
          size: hi.map((h, d) => h - lo[d]),
        });
        sources.push(this.chunk(...bidx));
      }
      return spawn(
        assembleBlock,
        this.dtype,
        out.map(([a, b]) => b - a),
        plan,
        ...sources,
      );
    });
    return this.#derive(oshape, this.blocks, this.dtype, chunks);
  }

  /** The whole array on the caller: `{ data, shape }`, column-major like Julia. */
  async collect(): Promise<Collected> {
    const blocks = await Promise.all(this.chunks.map((c) => c.fetch()));
    const data = arrayOf(this.dtype, lengthOf(this.shape));
    const strides = columnMajorStrides(this.shape);
    const indices = gridIndices(this.grid);
    blocks.forEach((block, k) => {
      const starts = blockRanges(this.shape, this.blocks, indices[k]).map(([a]) => a);
      const n = block.data.length;
      const nd = block.shape.length;
      const idx = new Array(nd).fill(0);
      for (let i = 0; i < n; i++) {
        let o = 0;
        for (let d = 0; d < nd; d++) o += (starts[d] + idx[d]) * strides[d];
        data[o] = block.data[i];
        for (let d = 0; d < nd; d++) {
          idx[d]++;
          if (idx[d] < block.shape[d]) break;
          idx[d] = 0;
        }
      }
    });
    return { data, shape: [...this.shape] };
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function scalarOr(
  result: DArray,
  options: { dims?: number[] } | undefined,
): Promise<number> | DArray {
  if (options?.dims !== undefined) return result;
  return result.collect().then(({ data }) => data[0]);
}
