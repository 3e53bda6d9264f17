// The block kernel of fused element-wise operations. Self-contained (no imports, no outer
// variables) so it travels to worker threads as source text.
import type { Block } from './kernels.js';

/**
 * Runs a fused element-wise `program` over same-shaped contiguous blocks `inputs` into a new
 * block of `dtype`: `program` is the source text of a function of `notNumber` (what a map's f
 * returned that is not a number) giving the function `(out, n, scalars, ...inputs)` that fills
 * `out[0…n)` in one pass (made by `@dtask/array`'s fusion: `a.mul(2).add(b).map(f)` is one
 * loop, not three blocks). Each program is compiled once per thread and kept (the last
 * 256 kinds), so its loop runs as optimised code from the second block on.
 */
export function fusedBlock(
  program: string,
  dtype: string,
  scalars: readonly number[],
  ...inputs: Block[]
): Block {
  const key = Symbol.for('dtask.array.fusedPrograms');
  const g = globalThis as unknown as Record<symbol, Map<string, Function> | undefined>;
  let compiled = g[key];
  if (compiled === undefined) {
    compiled = new Map();
    g[key] = compiled;
  }
  let run = compiled.get(program);
  if (run === undefined) {
    if (compiled.size >= 256) compiled.clear();
    // A map's f returned something other than a number: a boolean counts as 1 or 0, anything
    // else fails the block's task (mapBlock's rule and message).
    const notNumber = (v: unknown, type: string): number => {
      if (typeof v === 'boolean') return v ? 1 : 0;
      const what =
        typeof v === 'string' ? `'${v.slice(0, 40)}' (a string)` : `${String(v)} (${typeof v})`;
      throw new TypeError(
        `da.map(f): f returned ${what}; the result is a ${type} array, so f must return a number`,
      );
    };
    run = new Function(`return (${program});`)()(notNumber) as Function;
    compiled.set(program, run);
  }
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  const a = inputs[0];
  const n = a.data.length;
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const arrays: unknown[] = [data, n, scalars];
  for (const b of inputs) arrays.push(b.data);
  run(...arrays);
  return { data, shape: a.shape, strides: a.strides, offset: 0 };
}
