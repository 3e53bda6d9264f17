import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { type AliasModifier, checkModifier } from './modifiers.js';

/** How a task uses an argument: reads it, writes it without reading, or both. */
export type AccessMode = 'in' | 'out' | 'inout';

const DEP = Symbol.for('dtask.datadeps.dep');
const DEPS = Symbol.for('dtask.datadeps.deps');

/**
 * An argument annotation (`In(x)`, `Out(x)`, `InOut(x)`). Inside a `spawnDatadeps` region the
 * task receives `value` itself; the annotation only tells the region how the task accesses it.
 * Outside a region it is an ordinary object: spawn plain values there.
 */
export class Dep<T = unknown> {
  constructor(
    /** How the task accesses `value`. */
    readonly mode: AccessMode,
    /** The argument (or, inside `Deps`, a modifier or field name). */
    readonly value: T,
  ) {}

  /** True when the task may write `value`. */
  get writes(): boolean {
    return this.mode !== 'in';
  }

  /** `In(x)` / `Out(x)` / `InOut(x)`, for messages. */
  toString(): string {
    return `${this.mode === 'in' ? 'In' : this.mode === 'out' ? 'Out' : 'InOut'}(…)`;
  }

  /** Brand (works across copies of the package). */
  get [DEP](): true {
    return true;
  }
}

/**
 * `Deps(x, InOut(modifier), In(modifier), …)`: the task receives `x` as-is; the modifiers say
 * which parts of it the task touches, and how (seed 002's aliasing modifiers).
 */
export class DepsArg<T = unknown> {
  constructor(
    /** The argument the task receives. */
    readonly value: T,
    /** Each touched part and how. */
    readonly parts: readonly Dep<AliasModifier | string>[],
  ) {}

  /** Brand (works across copies of the package). */
  get [DEPS](): true {
    return true;
  }
}

/** Marks `x` as read by the task (the default for an unmarked argument). */
export function In<T>(x: T): T {
  return new Dep('in', x) as unknown as T;
}

/** Marks `x` as written (not read) by the task: later readers of `x` wait for it. */
export function Out<T>(x: T): T {
  return new Dep('out', x) as unknown as T;
}

/** Marks `x` as read and written by the task. */
export function InOut<T>(x: T): T {
  return new Dep('inout', x) as unknown as T;
}

/**
 * Passes `x` as-is while declaring which parts the task touches: `Deps(A, InOut(upperTriangular))`
 * writes the upper triangle of the 2-D view `A`; `Deps(obj, InOut('value'))` writes the field
 * `obj.value`. Throws `ArgumentError` for anything but `In`/`Out`/`InOut` of a modifier or name.
 */
export function Deps<T>(x: T, ...parts: unknown[]): T {
  if (parts.length === 0) {
    throw new ArgumentError(
      'Deps(x, …parts): give at least one part, e.g. Deps(A, InOut(upperTriangular)); for the ' +
        'whole of x use InOut(x)',
    );
  }
  const checked = parts.map((p) => {
    if (!isDep(p)) {
      throw new ArgumentError(
        `Deps(x, …parts): each part is In(m), Out(m) or InOut(m) of a modifier or field name; got ${describeValue(p)}`,
      );
    }
    checkModifier(p.value);
    return p as Dep<AliasModifier | string>;
  });
  return new DepsArg(x, checked) as unknown as T;
}

/** True for `In(x)`/`Out(x)`/`InOut(x)`. */
export function isDep(x: unknown): x is Dep {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[DEP] === true;
}

/** True for `Deps(x, …)`. */
export function isDepsArg(x: unknown): x is DepsArg {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[DEPS] === true;
}
