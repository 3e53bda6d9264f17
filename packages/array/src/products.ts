import { ArgumentError, type DTask, ExactScope, type Processor } from '@dtask/core';
import { Blocks, gridIndices, gridOf } from './blocks.js';
import { isComplex } from './dtype.js';
import { isDArray } from './elementwise.js';
import type { Block } from './kernels.js';
import { transposeBlock } from './layout-kernels.js';
import { matmulBlocksGpujs } from './matmul-gpujs-kernel.js';
import { matmulBlocks } from './matmul-kernel.js';
import { matmulBlocksTfjs } from './matmul-tfjs-kernel.js';
import { matvecParts } from './matvec.js';
import { type ArrayData, chunkAt, dataOf, describe, type Parts } from './parts.js';
import type { SpawnFn } from './placement.js';
import { reblockParts } from './slicing.js';

/**
 * The blocked product `a·b` of two 2-D arrays (a 2-D array and a vector: `matvecParts`): one
 * task per result block `(i, j)`, taking block row `i` of `a` and block column `j` of `b`.
 * Where `a`'s column blocks differ from `b`'s row blocks (Dagger multiplies those too), `b`'s
 * rows are first re-blocked to `a`'s column blocks. The dtypes must agree.
 */
export function matmulParts(a: ArrayData, spawn: SpawnFn, other: ArrayData): Parts {
  const b = innerAligned(a, other);
  if (isArray2(a) && Array.isArray(b?.shape) && b.shape.length === 1) {
    return matvecParts(a, spawn, b);
  }
  if (!isArray2(a) || !isArray2(b)) {
    throw new ArgumentError(
      `da.matmul(other): both arrays must be 2-D DArrays; got ${describe(a)} and ${b?.shape ? describe(b) : String(b)}`,
    );
  }
  const [m, k] = a.shape;
  const [k2, n] = b.shape;
  if (k !== k2 || a.dtype !== b.dtype) {
    throw new ArgumentError(
      `da.matmul(other): need [m, k]·[k, n] of one dtype; got ${describe(a)} · ${describe(b)}; convert one with map(...) on a DArray of the other's dtype`,
    );
  }
  const blocks = new Blocks(a.blocks.sizes[0], b.blocks.sizes[1]);
  const inner = a.grid[1];
  const chunks = gridIndices(gridOf([m, n], blocks)).map(([i, j]) => {
    const row = Array.from({ length: inner }, (_, p) => chunkAt(a, i, p));
    const column = Array.from({ length: inner }, (_, p) => chunkAt(b, p, j));
    // Blocks that all live on one TensorFlow.js or gpu.js processor multiply there with its
    // own kernel (float32: their dtype).
    const device = a.dtype === 'float32' ? deviceHome([...row, ...column]) : undefined;
    if (device !== undefined) {
      const kernel = device.id.startsWith('tfjs:') ? matmulBlocksTfjs : matmulBlocksGpujs;
      return spawn({ scope: new ExactScope(device) }, kernel, inner, ...row, ...column);
    }
    return spawn(matmulBlocks, a.dtype, inner, ...row, ...column);
  });
  return { shape: [m, n], blocks, dtype: a.dtype, chunks };
}

/** The transpose of a 2-D array: block `(j, i)` of the result is block `(i, j)` transposed. */
export function transposeParts(a: ArrayData, spawn: SpawnFn): Parts {
  if (a.shape.length !== 2) {
    throw new ArgumentError(`da.transpose(): only 2-D arrays; got ${describe(a)}`);
  }
  const blocks = new Blocks(a.blocks.sizes[1], a.blocks.sizes[0]);
  const chunks = gridIndices([a.grid[1], a.grid[0]]).map(([j, i]) =>
    spawn(transposeBlock, chunkAt(a, i, j), isComplex(a.dtype)),
  );
  return { shape: [a.shape[1], a.shape[0]], blocks, dtype: a.dtype, chunks };
}

/**
 * The device processor with a product kernel of its own (TensorFlow.js `tfjs:…`, gpu.js
 * `gpujs:…`) holding every one of `chunks`, if one holds them all.
 */
function deviceHome(chunks: DTask<Block>[]): Processor | undefined {
  const first = chunks[0]?.processor;
  if (first === undefined || !/^(tfjs|gpujs):/.test(first.id)) return undefined;
  return chunks.every((c) => c.processor?.id === first.id) ? first : undefined;
}

/**
 * `b`, its rows re-blocked to `a`'s column blocks when both are arrays whose inner sizes agree
 * but whose inner blocks differ (one task per new block); otherwise `b` as given, for the
 * checks to name what does not fit.
 */
function innerAligned(a: ArrayData, b: ArrayData): ArrayData {
  if (!isArray2(a) || !isDArray(b)) return b;
  if (b.shape.length < 1 || b.shape.length > 2 || b.shape[0] !== a.shape[1]) return b;
  const inner = a.blocks.sizes[1];
  if (b.blocks.sizes[0] === inner) return b;
  const parts = reblockParts(b, new Blocks(inner, ...b.blocks.sizes.slice(1)));
  return parts === undefined ? b : dataOf(parts, b.context);
}

function isArray2(x: ArrayData): boolean {
  return typeof x === 'object' && x !== null && Array.isArray(x.shape) && x.shape.length === 2;
}
