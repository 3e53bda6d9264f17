/** @dtask/datadeps: in-place parallel algorithms (Dagger's Datadeps, seed 002). */

export { aliases } from './aliases.js';
export {
  type AccessMode,
  Dep,
  Deps,
  DepsArg,
  In,
  InOut,
  isDep,
  isDepsArg,
  Out,
} from './annotations.js';
export { ChunkView, isChunkView } from './chunk-view.js';
export {
  AliasModifier,
  bidiagonal,
  diagonal,
  isAliasModifier,
  lowerTriangular,
  type ModifierKind,
  tridiagonal,
  unitLowerTriangular,
  unitUpperTriangular,
  upperTriangular,
} from './modifiers.js';
export {
  type MoveInPlaceRule,
  type MoveModifier,
  moveInPlace,
  registerMoveInPlace,
} from './move-in-place.js';
export type { Slice } from './slices.js';
export { type DatadepsOptions, spawnDatadeps } from './spawn-datadeps.js';
export { isStridedView, type StridedView, strided, type TypedArray } from './strided-view.js';
export { type Sliced, view } from './view.js';
export { moveWrittenParts, type WrittenPart } from './written-parts.js';
