/**
 * @dtask/datadeps/examples: seed 002's examples, runnable (and tested): a tiled Cholesky
 * factorisation, `treeReduce` and the row sums through `view`. Their kernels are
 * self-contained functions, so they travel to worker threads without `everywhere`.
 */
export {
  cholesky,
  choleskyError,
  choleskySerial,
  type SpawnLike,
  spdMatrix,
} from './cholesky.js';
export { asPosDefError, PosDefError } from './pos-def-error.js';
export { makeBlock, rowSums, sumArrayRow } from './row-sums.js';
export { gemm, potrf, syrk, trsm } from './tile-kernels.js';
export { addInto, treeReduce } from './tree-reduce.js';
