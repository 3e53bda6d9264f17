import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import { AbstractScope, addUnique, isScope, sameMembers } from './scope.js';
import type { ScopeSpec } from './scope-data.js';

/**
 * The processors in every one of `scopes`: what `constrain` returns when an intersection
 * cannot be simplified structurally (e.g. `DefaultScope ∩ ProcessScope(2)`, or
 * `ProcessScope(2) ∩ ProcessorTypeScope('gpu')`). It may turn out empty once the scheduler
 * checks real processors. Nested intersections are flattened and equal parts kept once.
 */
export class IntersectionScope extends AbstractScope {
  /** The distinct parts, in first-seen order. */
  readonly scopes: readonly AbstractScope[];

  constructor(scopes: readonly AbstractScope[]) {
    super();
    if (!Array.isArray(scopes)) {
      throw new ArgumentError('IntersectionScope(scopes) needs an array of scopes');
    }
    const parts: AbstractScope[] = [];
    for (const [i, s] of scopes.entries()) {
      if (!isScope(s)) {
        throw new ArgumentError(
          `IntersectionScope: element ${i} is not a scope; build scopes with scope(...) or the scope classes`,
        );
      }
      if (s instanceof IntersectionScope) for (const p of s.scopes) addUnique(parts, p);
      else addUnique(parts, s);
    }
    this.scopes = parts;
  }

  /** True when every part contains `proc` (always for an intersection of nothing). */
  contains(proc: Processor): boolean {
    return this.scopes.every((s) => s.contains(proc));
  }

  /** True for an intersection of equal parts, in any order. */
  equals(other: unknown): boolean {
    return other instanceof IntersectionScope && sameMembers(this.scopes, other.scopes);
  }

  toString(): string {
    return `IntersectionScope(${this.scopes.join(', ')})`;
  }

  toSpec(): ScopeSpec {
    return { type: 'intersection', scopes: this.scopes.map((s) => s.toSpec()) };
  }
}
