import { ArgumentError } from '@dtask/core';
import { Boundary, type BoundarySpec, Pad } from './boundary.js';
import { DArray } from './darray.js';
import { requireReal } from './dtype-error.js';
import { describe, sameList } from './parts.js';
import type { StencilOptions } from './stencil-options.js';

/** A stencil call's arrays, radius and boundary conditions, checked. */
export interface Checked {
  names: string[];
  arrays: DArray[];
  radius: number[];
  bcs: Map<string, BoundarySpec[]>;
}

/** The checks at the call: same shapes and blockings, the radius, the boundary conditions. */
export function check(
  inputs: Readonly<Record<string, DArray>>,
  options: StencilOptions,
  what: string,
): Checked {
  if (typeof inputs !== 'object' || inputs === null || Object.keys(inputs).length === 0) {
    throw new ArgumentError(`${what}: pass the arrays by name, e.g. { A }`);
  }
  const names = Object.keys(inputs);
  const arrays = names.map((n) => inputs[n]);
  arrays.forEach((a, i) => {
    if (!(a instanceof DArray)) {
      throw new ArgumentError(`${what}: ${names[i]} must be a DArray; got ${String(a)}`);
    }
  });
  const first = arrays[0];
  const nd = first.shape.length;
  if (nd === 0) throw new ArgumentError(`${what}: ${names[0]} has no dimensions (shape [])`);
  arrays.forEach((a, i) => {
    if (!sameList(a.shape, first.shape) || !sameList(a.blocks.sizes, first.blocks.sizes)) {
      throw new ArgumentError(
        `${what}: every array must have the same shape and blocks; ${names[0]} is ${describe(first)} but ${names[i]} is ${describe(a)} (re-block with ${names[i]}.reblock(${names[0]}.blocks))`,
      );
    }
  });
  const r = options.radius ?? 1;
  const radius = typeof r === 'number' ? new Array<number>(nd).fill(r) : [...r];
  if (radius.length !== nd || radius.some((x) => !Number.isInteger(x) || x < 1)) {
    throw new ArgumentError(
      `${what}: radius must be a positive integer or one per dimension (${nd}); got ${String(r)}`,
    );
  }
  // The smallest block along each dimension (the last one may be short).
  const smallest = first.shape.map((n, d) => {
    const b = first.blocks.sizes[d];
    return Math.min(b, n - (Math.ceil(n / b) - 1) * b);
  });
  radius.forEach((x, d) => {
    if (x > smallest[d]) {
      throw new ArgumentError(
        `${what}: radius ${x} along dimension ${d} is larger than a block of ${describe(first)} (the smallest is ${smallest[d]} there); use larger blocks or a smaller radius`,
      );
    }
  });
  const bcs = new Map<string, BoundarySpec[]>();
  const given = options.boundary ?? new Pad(0);
  names.forEach((name, i) => {
    const own =
      given instanceof Boundary || Array.isArray(given)
        ? given
        : ((given as Record<string, Boundary | Boundary[]>)[name] ?? new Pad(0));
    const list = own instanceof Boundary ? new Array<Boundary>(nd).fill(own) : own;
    if (!Array.isArray(list) || list.length !== nd || list.some((b) => !(b instanceof Boundary))) {
      throw new ArgumentError(
        `${what}: the boundary of ${name} must be one condition (new Wrap(), new Pad(0), …) or one per dimension (${nd}); got ${String(own)}`,
      );
    }
    const specs = list.map((b: Boundary, d: number) => {
      requireReal('stencil', arrays[i], `${what}: ${name} (${describe(arrays[i])})`);
      b.checkDtype(arrays[i].dtype, `${what}: ${name} (${describe(arrays[i])})`);
      const spec = b.spec();
      const n = first.shape[d];
      const needs =
        spec.kind === 'linear'
          ? 2
          : (spec.kind === 'reflect' || spec.kind === 'antireflect') && !spec.symmetric
            ? radius[d] + 1
            : 1;
      if (n < needs) {
        throw new ArgumentError(
          `${what}: ${b.constructor.name} along dimension ${d} of ${name} needs at least ${needs} elements there; ${name} is ${describe(arrays[i])}`,
        );
      }
      return spec;
    });
    bcs.set(name, specs);
  });
  return { names, arrays, radius, bcs };
}
