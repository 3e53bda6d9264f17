// @dtask/array: distributed arrays over dtask tasks (API.md, "Distributed arrays").

export type { AssignmentGrid } from './assign-grid.js';
export { AutoBlocks } from './auto-blocks.js';
export { Blocks } from './blocks.js';
export {
  AntiReflect,
  Boundary,
  type BoundarySpec,
  Clamp,
  LinearExtrapolate,
  Pad,
  Reflect,
  Wrap,
} from './boundary.js';
export { type CholeskyOptions, cholesky, PosDefError } from './cholesky.js';
export { choleskySolve, ldivInto } from './cholesky-solve.js';
export { adjoint, complex, complexAt, complexSum, conj, imag, real } from './complex.js';
export { type CatOptions, cat, hcat, vcat } from './concat.js';
export { copyto } from './copyto.js';
export { type Collected, DArray, type DArrayOptions, type Source } from './darray.js';
export { type DistributeOptions, distribute } from './distribute.js';
export type { Complex, DType, DTypeArray } from './dtype.js';
export { DtypeError } from './dtype-error.js';
export type { BinaryOp, ElementwiseOptions } from './elementwise.js';
export { cageqrf, geqrf, luInPlace, qrInPlace } from './factor-in-place.js';
export { type FFTOptions, fft, fftInPlace, ifft, ifftInPlace } from './fft.js';
export {
  choleskyInPlace,
  type FillOptions,
  mulInto,
  randInto,
  randnInto,
  type SimilarOptions,
  similar,
} from './in-place.js';
export type { Block } from './kernels.js';
export { complexDet, det, LU, type LUOptions, lu } from './lu.js';
export { matpow } from './matpow.js';
export { norm, opnorm } from './norms.js';
export { permutedims } from './permute.js';
export type { Assignment, NamedAssignment } from './placement.js';
export { QR, type QROptions, qr } from './qr.js';
export { porgqr, pormqr } from './qr-workspace.js';
export { randn } from './randn.js';
export type { ReduceOptions } from './reductions.js';
export type { Selector } from './selectors.js';
export { SingularError } from './singular-error.js';
export type { Range } from './slicing.js';
export { DEFAULT_SMALL_WORK_ELEMENTS, setSmallWorkElements } from './small-work.js';
export { solve } from './solve.js';
export { type SortOptions, sort } from './sort.js';
export {
  extrema,
  prod,
  std,
  type VarianceOptions,
  variance,
} from './statistics.js';
export { type StencilOptions, type StencilStep, stencil, stencilSteps } from './stencil.js';
export type { StencilKernel } from './stencil-compile.js';
export { SVD, type SVDOptions, svd, svdvals } from './svd.js';
export { ishermitian, issymmetric } from './symmetry.js';
export { type IsApproxOptions, isapprox, tril, triu } from './triangular.js';
