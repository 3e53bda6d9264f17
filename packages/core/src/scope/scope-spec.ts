import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { ExactScope } from './exact-scope.js';
import { IntersectionScope } from './intersection-scope.js';
import { NodeScope } from './node-scope.js';
import { ProcessScope } from './process-scope.js';
import { ProcessorTypeScope } from './processor-type-scope.js';
import { type AbstractScope, AnyScope, DefaultScope, InvalidScope, isScope } from './scope.js';
import type { ScopeSpec } from './scope-data.js';
import { UnionScope } from './union-scope.js';

export type { ScopeSpec } from './scope-data.js';

/** The spec of `scope` (same as `scope.toSpec()`); called where options are sent elsewhere. */
export function toScopeSpec(scope: AbstractScope): ScopeSpec {
  if (!isScope(scope)) {
    throw new ArgumentError(`toScopeSpec(scope) needs a scope, got ${describeValue(scope)}`);
  }
  return scope.toSpec();
}

/**
 * Rebuilds a scope from `toScopeSpec`'s output (after a trip through `postMessage` or JSON);
 * the result `equals` the original. Throws `ArgumentError` for malformed data.
 */
export function fromScopeSpec(spec: ScopeSpec): AbstractScope {
  if (typeof spec !== 'object' || spec === null) {
    throw new ArgumentError(
      `fromScopeSpec: expected a scope spec object, got ${describeValue(spec)}`,
    );
  }
  switch (spec.type) {
    case 'any':
      return new AnyScope();
    case 'default':
      return new DefaultScope();
    case 'union':
      return new UnionScope(...list(spec.scopes, 'union').map(fromScopeSpec));
    case 'intersection':
      return new IntersectionScope(list(spec.scopes, 'intersection').map(fromScopeSpec));
    case 'node':
      return new NodeScope(spec.node);
    case 'process':
      return new ProcessScope(spec.worker);
    case 'exact':
      return new ExactScope(spec.id, spec.worker);
    case 'processor-type':
      return new ProcessorTypeScope(spec.kind);
    case 'invalid':
      return new InvalidScope(fromScopeSpec(spec.x), fromScopeSpec(spec.y), spec.reason);
    default:
      throw new ArgumentError(
        `fromScopeSpec: unknown scope spec type ${JSON.stringify((spec as { type?: unknown }).type)}; ` +
          'expected any, default, union, intersection, node, process, exact, processor-type or invalid',
      );
  }
}

function list(scopes: unknown, type: string): ScopeSpec[] {
  if (!Array.isArray(scopes)) {
    throw new ArgumentError(`fromScopeSpec: a ${type} spec needs a scopes array`);
  }
  return scopes;
}
