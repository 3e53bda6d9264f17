import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import { AbstractScope, addUnique, isScope, sameMembers } from './scope.js';
import type { ScopeSpec } from './scope-spec.js';

/**
 * The processors in any of `scopes` (Dagger's `UnionScope`); `new UnionScope()` is empty.
 * Built by `scope(a, b, ...)` and by `constrain` when distributing over a union. Nested
 * unions are flattened and equal parts kept once, so `scopes` lists distinct non-union scopes.
 */
export class UnionScope extends AbstractScope {
  /** The distinct parts, in first-seen order. */
  readonly scopes: readonly AbstractScope[];

  constructor(...scopes: AbstractScope[]) {
    super();
    const parts: AbstractScope[] = [];
    for (const [i, s] of scopes.entries()) {
      if (!isScope(s)) {
        throw new ArgumentError(
          `UnionScope: argument ${i + 1} is not a scope; build scopes with scope(...) or the scope classes`,
        );
      }
      if (s instanceof UnionScope) for (const p of s.scopes) addUnique(parts, p);
      else addUnique(parts, s);
    }
    this.scopes = parts;
  }

  /** True when some part contains `proc` (never for the empty union). */
  contains(proc: Processor): boolean {
    return this.scopes.some((s) => s.contains(proc));
  }

  /** True for a union of equal parts, in any order. */
  equals(other: unknown): boolean {
    return other instanceof UnionScope && sameMembers(this.scopes, other.scopes);
  }

  toString(): string {
    return `UnionScope(${this.scopes.join(', ')})`;
  }

  toSpec(): ScopeSpec {
    return { type: 'union', scopes: this.scopes.map((s) => s.toSpec()) };
  }
}
