/**
 * @dtask/array/kernels: the block kernels the array's tasks run, for calling them directly on
 * blocks (`{ data, shape, strides, offset }`, column-major): a single-threaded baseline with
 * the very same loops (bench/array.mjs), or custom tasks over `da.chunks`. Each is
 * self-contained, so it also travels to worker threads as source text.
 */
export { caqrApplyBlock, caqrSolveBlock, caqrSteps, caqrWorkMatrix } from './caqr-kernels.js';
export { caqrGeqrt, caqrTsmqr, caqrTsqrt, caqrUnmqr } from './caqr-tiles.js';
export { lowerPart, paddedMatrix } from './cholesky-kernels.js';
export { choleskySolveBlock } from './cholesky-solve-kernel.js';
export {
  gemm as gemmTile,
  potrf as potrfTile,
  syrk as syrkTile,
  trsm as trsmTile,
} from './cholesky-tiles.js';
export { fusedBlock } from './fused-kernel.js';
export { fusedBlockSimd } from './fused-simd-kernel.js';
export {
  type Block,
  binaryBlock,
  blockFrom,
  makeBlock,
  mapBlock,
} from './kernels.js';
export { assembleBlock, type Piece, transposeBlock } from './layout-kernels.js';
export { luSolveBlock, luSummary, luTriangle, paddedWithRows } from './lu-kernels.js';
export { gemmNN, getrfPanel, laswp, trsmUnitLower } from './lu-tiles.js';
export { matmulBlocksGpujs } from './matmul-gpujs-kernel.js';
export { matmulBlocks, matmulBlocksJs } from './matmul-kernel.js';
export { matmulBlocksTfjs } from './matmul-tfjs-kernel.js';
export { matvecBlocks } from './matvec-kernel.js';
export { qrApplyBlock } from './qr-apply-kernel.js';
export { type QRLayout, qrPart, qrRankInfo, qrSolveBlock, qrWorkMatrix } from './qr-kernels.js';
export { geqrt, larfb } from './qr-tiles.js';
export {
  combineBlocks,
  combineInOrder,
  reduceBlock,
  reduceBlocks,
  reduceBlocksWhole,
} from './reduce-kernels.js';
export { reduceWhole, reduceWholeJs, type WholeReduction } from './reduce-whole.js';
export { simdKernelsLoaded } from './simd-status.js';
export { type SVDParts, svdPart, svdSolveBlock, svdValues, svdWhole } from './svd-kernels.js';
