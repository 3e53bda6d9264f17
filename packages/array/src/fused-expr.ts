import type { DTask } from '@dtask/core';
import type { DType } from './dtype.js';
import type { BinaryOp } from './elementwise.js';
import type { Block } from './kernels.js';

/** One node of a fused element-wise expression, evaluated per element. */
export type FusedNode =
  | { kind: 'input'; index: number }
  | { kind: 'scalar'; index: number }
  | { kind: 'binary'; op: BinaryOp; left: FusedNode; right: FusedNode; dtype: DType }
  | { kind: 'map'; source: string; args: FusedNode[]; dtype: DType };

/**
 * A chain of element-wise operations and maps over arrays of one shape and blocking (Dask's
 * blockwise fusion): `inputs` are the chunk lists of the arrays it reads (materialised ones),
 * `scalars` the numbers it uses, `root` the expression. It becomes one task per block.
 */
export interface FusedExpr {
  readonly inputs: readonly (readonly DTask<Block>[])[];
  readonly scalars: readonly number[];
  readonly root: FusedNode;
  /** Nodes in the expression (a bound on the program's size). */
  readonly size: number;
}
