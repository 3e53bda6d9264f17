import { ArgumentError } from '@dtask/core';

/**
 * How a `DArray` is cut into chunks (Dagger's `Blocks`): one block size per dimension. Edge
 * blocks are smaller when a dimension does not divide evenly (shape 10 in blocks of 4 gives
 * blocks of 4, 4 and 2).
 */
export class Blocks {
  /** The block size along each dimension. */
  readonly sizes: readonly number[];

  /**
   * `new Blocks(4, 4)`: blocks of 4×4 elements; each size a positive integer. `new Blocks()`
   * blocks a 0-dimensional array (shape `[]`, one element), as Julia's `Blocks()` does.
   */
  constructor(...sizes: number[]) {
    if (sizes.some((s) => !Number.isInteger(s) || s < 1)) {
      throw new ArgumentError(
        `new Blocks(...sizes): give one positive integer block size per dimension; got (${sizes.join(', ')})`,
      );
    }
    this.sizes = Object.freeze([...sizes]);
  }
}

/** Column-major strides of `shape` (the first index varies fastest, like Julia). */
export function columnMajorStrides(shape: readonly number[]): number[] {
  const strides: number[] = [];
  let s = 1;
  for (const n of shape) {
    strides.push(s);
    s *= n;
  }
  return strides;
}

/** The number of elements of `shape`. */
export function lengthOf(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Throws `ArgumentError` unless `shape` is a list of non-negative integers. */
export function checkShape(shape: readonly number[], what: string): void {
  if (!Array.isArray(shape) || shape.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new ArgumentError(
      `${what}: shape must be an array of non-negative integers; got ${String(shape)}`,
    );
  }
}

/** Throws `ArgumentError` unless `blocks` is a `Blocks` with one size per dimension of `shape`. */
export function checkBlocks(shape: readonly number[], blocks: Blocks, what: string): void {
  if (!(blocks instanceof Blocks) || blocks.sizes.length !== shape.length) {
    throw new ArgumentError(
      `${what}: pass new Blocks(...) with one size per dimension of shape [${shape.join(', ')}]`,
    );
  }
}

/** The chunk grid: how many blocks along each dimension. */
export function gridOf(shape: readonly number[], blocks: Blocks): number[] {
  return shape.map((n, d) => Math.ceil(n / blocks.sizes[d]));
}

/** Every grid index, column-major (the first grid index varies fastest). */
export function gridIndices(grid: readonly number[]): number[][] {
  const total = lengthOf(grid);
  const out: number[][] = [];
  for (let i = 0; i < total; i++) {
    const idx: number[] = [];
    let r = i;
    for (const g of grid) {
      idx.push(r % g);
      r = Math.floor(r / g);
    }
    out.push(idx);
  }
  return out;
}

/** The element range `[start, end)` along each dimension of the block at `index`. */
export function blockRanges(
  shape: readonly number[],
  blocks: Blocks,
  index: readonly number[],
): [number, number][] {
  return index.map((b, d) => {
    const start = b * blocks.sizes[d];
    return [start, Math.min(start + blocks.sizes[d], shape[d])];
  });
}
