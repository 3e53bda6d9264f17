export { constrain, isEmptyScope, isSubset } from './constrain.js';
export { ExactScope } from './exact-scope.js';
export { IntersectionScope } from './intersection-scope.js';
export { NodeScope } from './node-scope.js';
export { ProcessScope } from './process-scope.js';
export { type ProcessorClass, ProcessorTypeScope } from './processor-type-scope.js';
export { AbstractScope, AnyScope, DefaultScope, InvalidScope, isScope } from './scope.js';
export { type ScopeSpecifier, scope } from './scope-builder.js';
export {
  registerScopeKey,
  type ScopeKeyDefinition,
  type ScopeSpecifierObject,
} from './scope-keys.js';
export { fromScopeSpec, type ScopeSpec, toScopeSpec } from './scope-spec.js';
export { UnionScope } from './union-scope.js';
