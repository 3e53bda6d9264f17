// @dtask/array: distributed arrays over dtask tasks (API.md, "Distributed arrays").

export { Blocks } from './blocks.js';
export { type CholeskyOptions, cholesky } from './cholesky.js';
export {
  type Collected,
  DArray,
  type DArrayOptions,
  type DType,
  type DTypeArray,
} from './darray.js';
export { type DistributeOptions, distribute } from './distribute.js';
export type { Block } from './kernels.js';
