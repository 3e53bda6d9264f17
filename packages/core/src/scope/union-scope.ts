import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import { AbstractScope, addUnique, isScope, sameMembers } from './scope.js';
import type { ScopeSpec } from './scope-data.js';

/**
 * The processors in any of `scopes` (Dagger's `UnionScope`), at least one: `new UnionScope()`
 * throws `ArgumentError`, as Dagger refuses an empty union (and `scope([])`). Built by
 * `scope(a, b, ...)` and by `constrain` when distributing over a union. Nested unions are
 * flattened and equal parts kept once, so `scopes` lists distinct non-union scopes.
 */
export class UnionScope extends AbstractScope {
  /** The distinct parts, in first-seen order. */
  readonly scopes: readonly AbstractScope[];

  constructor(...scopes: AbstractScope[]) {
    super();
    if (scopes.length === 0) {
      throw new ArgumentError(
        "UnionScope: a union of no scopes names no processor; pass at least one scope, or use new AnyScope() (scope('any')) for every processor",
      );
    }
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

  /** True when some part contains `proc`. */
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
