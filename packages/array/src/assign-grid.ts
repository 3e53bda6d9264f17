// Dagger's assignment by an array of worker ids or processors (`distribute(A, blocks, procs)`,
// `rand(…; assignment=procs)`): the array is a grid of places, repeated over the block grid, so
// block `(i, j, …)` is made on the place at `(i mod rows, j mod cols, …)`.
import {
  type AbstractScope,
  ArgumentError,
  type Context,
  ExactScope,
  type Processor,
} from '@dtask/core';
import { defaultContext, describeValue } from '@dtask/core/plugin';
import type { Assignment } from './placement.js';

/**
 * A grid of places, nested arrays with one level per dimension of the array (outermost:
 * dimension 0): worker ids (Dagger's `AbstractArray{<:Int}`: thread 1 of that worker, Dagger's
 * `ThreadProc(id, 1)`) or processors of the context (`AbstractArray{<:Processor}`).
 */
export type AssignmentGrid = readonly (number | Processor | AssignmentGrid)[];

/** The grid's shape and its places in column-major order, checked to be rectangular. */
function flatten(grid: AssignmentGrid, what: string): { shape: number[]; places: unknown[] } {
  const shape: number[] = [];
  for (let level: unknown = grid; Array.isArray(level); level = level[0]) {
    if (level.length === 0) throw new ArgumentError(`${what}: assign has an empty dimension`);
    shape.push(level.length);
  }
  const places = new Array<unknown>(shape.reduce((a, b) => a * b, 1));
  const walk = (node: unknown, depth: number, at: number, stride: number): void => {
    if (depth === shape.length) {
      if (Array.isArray(node)) throw ragged();
      places[at] = node;
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) throw ragged();
    for (let i = 0; i < node.length; i++) {
      walk(node[i], depth + 1, at + i * stride, stride * shape[depth]);
    }
  };
  const ragged = () =>
    new ArgumentError(
      `${what}: assign must be a rectangular grid (nested arrays, one level per dimension); got ragged arrays of shape [${shape.join(', ')}] at the start`,
    );
  walk(grid, 0, 0, 1);
  return { shape, places };
}

/**
 * `assign` as the constructors use it: an `AssignmentGrid` becomes a function from a block's
 * grid index to the scope of its place (the grid repeated over the blocks); anything else is
 * returned as it is. `ArgumentError` for a grid whose depth is not the array's number of
 * dimensions, a ragged or empty one, a worker id the context has no processor for, or a
 * processor that is not the context's.
 */
export function gridAssignment(
  assign: Assignment | AssignmentGrid | undefined,
  context: Context | undefined,
  ndims: number,
  what: string,
): Assignment | undefined {
  if (!Array.isArray(assign)) return assign as Assignment | undefined;
  const { shape, places } = flatten(assign, what);
  if (shape.length !== ndims) {
    throw new ArgumentError(
      `${what}: assign is a grid of ${shape.length} dimension(s) [${shape.join(', ')}] for an array of ${ndims}; give one level of nesting per dimension (Dagger's processor array has the array's dimensions)`,
    );
  }
  const all = (context ?? defaultContext()).processors();
  const workers = [...new Set(all.map((p) => p.worker))];
  const scopes = places.map((place): AbstractScope => {
    if (typeof place === 'number') {
      const first = all.find((p) => p.worker === place && (p as { thread?: number }).thread === 1);
      if (first === undefined) {
        throw new ArgumentError(
          `${what}: assign names worker ${place}, which the context does not have; its workers are ${workers.join(', ')}`,
        );
      }
      return new ExactScope(first);
    }
    const id = (place as { id?: unknown } | null)?.id;
    const proc = all.find((p) => p.id === id);
    if (proc === undefined) {
      throw new ArgumentError(
        `${what}: assign must hold worker ids or the context's processors; got ${describeValue(place)} (its processors are ${all.map((p) => p.id).join(', ')})`,
      );
    }
    return new ExactScope(proc);
  });
  return (index) => {
    let at = 0;
    let stride = 1;
    for (let d = 0; d < shape.length; d++) {
      at += (index[d] % shape[d]) * stride;
      stride *= shape[d];
    }
    return scopes[at];
  };
}
