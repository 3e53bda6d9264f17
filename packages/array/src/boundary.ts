import { ArgumentError } from '@dtask/core';
import { arrayOf, type DType, isInteger } from './dtype.js';

/**
 * How a boundary condition travels to the block tasks: a plain object the stencil kernel
 * reads (`kind`, and `value` of `Pad`, `symmetric` of `Reflect`/`AntiReflect`).
 */
export interface BoundarySpec {
  /** Which condition. */
  kind: 'wrap' | 'pad' | 'reflect' | 'antireflect' | 'clamp' | 'linear';
  /** `Pad`'s value. */
  value?: number;
  /** `Reflect`/`AntiReflect`: whether the mirror includes the edge element. */
  symmetric?: boolean;
}

/** What every boundary condition has: its travelling form. */
export abstract class Boundary {
  /** The plain form the block tasks read. */
  abstract spec(): BoundarySpec;
  /** Throws `ArgumentError` when the condition cannot hold elements of `dtype`. */
  checkDtype(_dtype: DType, _what: string): void {}
}

/** Reads past an edge wrap around to the other side of the array (periodic). */
export class Wrap extends Boundary {
  /** The travelling form. */
  spec(): BoundarySpec {
    return { kind: 'wrap' };
  }
}

/** Reads past an edge give `value`. */
export class Pad extends Boundary {
  /** `new Pad(0)`: every element past an edge reads `value`. */
  constructor(readonly value: number) {
    super();
    if (typeof value !== 'number') {
      throw new ArgumentError(`new Pad(value): value must be a number; got ${String(value)}`);
    }
  }
  /** The travelling form. */
  spec(): BoundarySpec {
    return { kind: 'pad', value: this.value };
  }
  /** An integer array pads only with an integer in its dtype's range. */
  override checkDtype(dtype: DType, what: string): void {
    if (isInteger(dtype) && arrayOf(dtype, 1).fill(this.value)[0] !== this.value) {
      throw new ArgumentError(
        `${what}: new Pad(${this.value}) does not fit an ${dtype} array; pad it with an integer in its range, or use a float64 array`,
      );
    }
  }
}

/**
 * Reads past an edge mirror the array at the edge: with `symmetric` the mirror includes the
 * edge element (`[1, 2, 3]` with radius 2 reads `[2, 1, 1, 2, 3, 3, 2]`), without it the
 * edge element is the mirror's axis (`[3, 2, 1, 2, 3, 2, 1]`).
 */
// biome-ignore lint/suspicious/noShadowRestrictedNames: Dagger's name for the condition
export class Reflect extends Boundary {
  /** `new Reflect(true)` (symmetric) or `new Reflect(false)` (the edge is the axis). */
  constructor(readonly symmetric = true) {
    super();
  }
  /** The travelling form. */
  spec(): BoundarySpec {
    return { kind: 'reflect', symmetric: this.symmetric === true };
  }
}

/**
 * Reads past an edge are the mirrored element (the mirror as `Reflect(symmetric)`'s) with its
 * sign flipped (an odd reflection, Dagger's: `[1, 2, 3, 4]` reads `-1` at index −1), once per
 * dimension reflected, so a corner reflected along two dimensions keeps its sign. The
 * condition for a quantity that vanishes at a wall (the velocity normal to it). Any element
 * type.
 */
export class AntiReflect extends Boundary {
  /** `new AntiReflect(true)` or `new AntiReflect(false)`, the mirror as `Reflect`'s. */
  constructor(readonly symmetric = true) {
    super();
  }
  /** The travelling form. */
  spec(): BoundarySpec {
    return { kind: 'antireflect', symmetric: this.symmetric === true };
  }
}

/** Reads past an edge give the edge element (`[1, 2, 3]`, radius 2: `[1, 1, 1, 2, 3, 3, 3]`). */
export class Clamp extends Boundary {
  /** The travelling form. */
  spec(): BoundarySpec {
    return { kind: 'clamp' };
  }
}

/**
 * Reads past an edge continue the line through the two elements at the edge (`[1, 2, 4]`,
 * radius 2: `[-1, 0, 1, 2, 4, 6, 8]`); float arrays only.
 */
export class LinearExtrapolate extends Boundary {
  /** The travelling form. */
  spec(): BoundarySpec {
    return { kind: 'linear' };
  }
  /** Needs a float array. */
  override checkDtype(dtype: DType, what: string): void {
    if (isInteger(dtype)) {
      throw new ArgumentError(
        `${what}: new LinearExtrapolate() needs a float64 or float32 array; got ${dtype} (use Clamp, or copy the array into a float one: copyto(similar(a, { dtype: 'float64' }), a))`,
      );
    }
  }
}
