import type { Processor } from '../processor/processor.js';
import type { ScopeSpec } from './scope-data.js';

const SCOPE_MARKER = Symbol.for('dtask.scope');

/**
 * A set of processors a task may run on, or its data may live on (Dagger's `AbstractScope`).
 *
 * Built by `scope(...)` or the constructors below, combined by `constrain` (intersection),
 * compared by `isSubset`, and sent to other threads and processes as a plain-data `ScopeSpec`
 * (`toSpec()` / `fromScopeSpec`). Scopes are immutable values; `equals` compares structure.
 */
export abstract class AbstractScope {
  /** Cross-copy marker read by `isScope`. */
  readonly [SCOPE_MARKER] = true;

  /** Called by the scheduler for each candidate processor: is `proc` inside this scope? */
  abstract contains(proc: Processor): boolean;

  /** Structural equality: same class and same parameters (a union's parts in any order). */
  abstract equals(other: unknown): boolean;

  /** A readable form such as `ProcessScope(2)`, used in error messages and logs. */
  abstract toString(): string;

  /**
   * Plain data that `fromScopeSpec` turns back into an equal scope on any thread or process.
   * Throws `ArgumentError` for a scope that cannot travel (a `ProcessorTypeScope` of a class
   * without a static `kind`).
   */
  abstract toSpec(): ScopeSpec;
}

/** True for any scope, including one made by another copy of `@dtask/core`. */
export function isScope(x: unknown): x is AbstractScope {
  return (
    x instanceof AbstractScope ||
    (typeof x === 'object' && x !== null && (x as any)[SCOPE_MARKER] === true)
  );
}

/** Every processor (Dagger's `AnyScope`): the default `resultScope`. All instances are equal. */
export class AnyScope extends AbstractScope {
  contains(_proc: Processor): boolean {
    return true;
  }
  equals(other: unknown): boolean {
    return other instanceof AnyScope;
  }
  toString(): string {
    return 'AnyScope';
  }
  toSpec(): ScopeSpec {
    return { type: 'any' };
  }
}

/**
 * The processors enabled by default (`proc.defaultEnabled`): where a task without a scope
 * runs. Opt-in processors such as GPUs are outside it. All instances are equal.
 */
export class DefaultScope extends AbstractScope {
  contains(proc: Processor): boolean {
    return proc.defaultEnabled;
  }
  equals(other: unknown): boolean {
    return other instanceof DefaultScope;
  }
  toString(): string {
    return 'DefaultScope';
  }
  toSpec(): ScopeSpec {
    return { type: 'default' };
  }
}

/**
 * The empty scope that `constrain` returns when two scopes provably do not intersect. It
 * remembers the two clashing scopes `x` and `y` and why, so that the scheduler's
 * `SchedulingError` can say which scopes clashed (see `message`). As sets, all instances are
 * equal (empty).
 */
export class InvalidScope extends AbstractScope {
  constructor(
    readonly x: AbstractScope,
    readonly y: AbstractScope,
    readonly reason?: string,
  ) {
    super();
  }
  contains(_proc: Processor): boolean {
    return false;
  }
  equals(other: unknown): boolean {
    return other instanceof InvalidScope;
  }
  /**
   * Explains the clash, naming the scopes by role when given, e.g. `message('compute scope',
   * 'result scope')` → `compute scope ProcessScope(2) and result scope ProcessScope(3) do not
   * intersect (workers 2 and 3 differ)`. Called by the scheduler to build `SchedulingError`s.
   */
  message(xName?: string, yName?: string): string {
    const x = xName ? `${xName} ${this.x}` : String(this.x);
    const y = yName ? `${yName} ${this.y}` : String(this.y);
    return `${x} and ${y} do not intersect${this.reason ? ` (${this.reason})` : ''}`;
  }
  toString(): string {
    return `InvalidScope(${this.message()})`;
  }
  toSpec(): ScopeSpec {
    const spec: ScopeSpec = { type: 'invalid', x: this.x.toSpec(), y: this.y.toSpec() };
    if (this.reason !== undefined) spec.reason = this.reason;
    return spec;
  }
}

/** Adds `scope` to `into` unless an equal one is there; shared by union and intersection. */
export function addUnique(into: AbstractScope[], scope: AbstractScope): void {
  if (!into.some((s) => s.equals(scope))) into.push(scope);
}

/** Same members in any order (both lists already free of duplicates). */
export function sameMembers(a: readonly AbstractScope[], b: readonly AbstractScope[]): boolean {
  return a.length === b.length && a.every((s) => b.some((t) => t.equals(s)));
}
