// Reduction kernels: `reduceBlocks` and `combineInOrder` are self-contained, so they travel to
// worker threads as source text; `reduceBlock` and `combineBlocks` call them, for direct use.
// A whole-block sum, product, min or max runs `reduceWhole` (WebAssembly SIMD where the runtime has it),
// spliced into the kernels' source; one along the last or the first dimensions of a contiguous
// block runs the SIMD loader's `reduceColumns` or `reduceWhole` per run.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import { reduceWhole } from './reduce-whole.js';
import type { installSimd } from './simd-install.js';

declare const __DTASK_LINK_whole__: typeof reduceWhole;
declare const __DTASK_SIMD__: typeof installSimd;

function reduceBlocksKernel(
  dims: number[],
  op: string,
  source: string | undefined,
  ...blocks: Block[]
): Block[] {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : op === 'sum'
        ? (p: number, v: number) => p + v
        : op === 'prod'
          ? (p: number, v: number) => p * v
          : op === 'min'
            ? Math.min
            : Math.max;
  // A sum, product, min or max of a contiguous column-major block along its last dimensions (the kept
  // ones leading): each kept element folds one element of every column, columns in order, in
  // SIMD where the runtime has it (the loop's order: the same bits). Along its first
  // dimensions (the reduced ones leading): each kept element is a contiguous run, reduced
  // whole (`reduceWhole`, SIMD: sums and products within rounding of the loop's). False:
  // neither applies. (A method, not a named arrow: built with keepNames, a named arrow is
  // wrapped in `__name`, an `Object.defineProperty` of its name each time the kernel runs.)
  const { fastAlong } = {
    fastAlong(dims: number[], a: Block, op: string, out: Float64Array): boolean {
      const { shape, strides, data } = a;
      const nd = shape.length;
      let size = 1;
      for (let d = 0; d < nd; d++) {
        if (strides[d] !== size && shape[d] !== 1) return false;
        size *= shape[d];
      }
      let k = 0;
      while (k < nd && !dims.includes(k)) k++;
      let lead = 1;
      for (let d = 0; d < k; d++) lead *= shape[d];
      if (k > 0 && dims.every((d) => d >= k) && dims.length === nd - k) {
        const simd = __DTASK_SIMD__();
        if (simd === null || lead < 4 || typeof data[0] === 'bigint') return false;
        simd.reduceColumns(op, data as Float64Array, a.offset, lead, lead, size / lead, out, 0);
        return true;
      }
      let r = 0;
      while (r < nd && dims.includes(r)) r++;
      let run = 1;
      for (let d = 0; d < r; d++) run *= shape[d];
      if (r === 0 || r !== dims.length || run < 64) return false;
      for (let o = 0; o < out.length; o++) {
        const view = { data, shape: [run], strides: [1], offset: a.offset + o * run };
        out[o] = __DTASK_LINK_whole__(op as 'sum', view);
      }
      return true;
    },
  };
  const results: Block[] = [];
  for (const a of blocks) {
    const nd = a.shape.length;
    const oshape = a.shape.map((s, d) => (dims.includes(d) ? 1 : s));
    const ostr: number[] = [];
    let m = 1;
    for (const s of oshape) {
      ostr.push(m);
      m *= s;
    }
    // An ordinary buffer: a partial result is combined at once, and a small one rides back
    // with its task's completion.
    const out = new Float64Array(m);
    const x = a.data;
    const n = x.length;
    if (m === 1) {
      // Everything reduced: the whole-block kernel (SIMD), or one accumulator for a function.
      if (op === 'fn') {
        let acc = x[0];
        for (let i = 1; i < n; i++) acc = f(acc, x[i]);
        out[0] = acc;
      } else out[0] = __DTASK_LINK_whole__(op as 'sum', a);
      results.push({ data: out, shape: oshape, strides: ostr, offset: 0 });
      continue;
    }
    if (op !== 'fn' && n > 0 && fastAlong(dims, a, op, out)) {
      results.push({ data: out, shape: oshape, strides: ostr, offset: 0 });
      continue;
    }
    const seen = new Uint8Array(m);
    const idx = new Array(nd).fill(0);
    for (let i = 0; i < n; i++) {
      let o = 0;
      for (let d = 0; d < nd; d++) if (oshape[d] !== 1) o += idx[d] * ostr[d];
      if (seen[o] === 0) {
        out[o] = x[i];
        seen[o] = 1;
      } else out[o] = f(out[o], x[i]);
      for (let d = 0; d < nd; d++) {
        idx[d]++;
        if (idx[d] < a.shape[d]) break;
        idx[d] = 0;
      }
    }
    results.push({ data: out, shape: oshape, strides: ostr, offset: 0 });
  }
  return results;
}

/**
 * The reduction `op` of every element of `block`: `reduceWhole`'s for a sum, product, min or max,
 * one accumulator over its data with `f` for a function (`'fn'`). As it comes out of the fold:
 * the kernels below store it as a float64.
 */
function wholeBlockValue(
  op: string,
  f: ((acc: number, x: number) => number) | undefined,
  block: Block,
): number {
  if (f === undefined) return __DTASK_LINK_whole__(op as 'sum', block);
  const x = block.data;
  const n = x.length;
  let acc = x[0];
  for (let i = 1; i < n; i++) acc = f(acc, x[i]);
  return acc;
}

declare const __DTASK_LINK_value__: typeof wholeBlockValue;

function reduceBlocksWholeKernel(
  op: string,
  source: string | undefined,
  ...blocks: Block[]
): Float64Array {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : undefined;
  const out = new Float64Array(blocks.length);
  for (let b = 0; b < blocks.length; b++) out[b] = __DTASK_LINK_value__(op, f, blocks[b]);
  return out;
}

function reduceBlockWholeKernel(op: string, source: string | undefined, block: Block): number {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : undefined;
  // ToNumber, as the store into a Float64Array of `reduceBlocksWhole` does.
  return +__DTASK_LINK_value__(op, f, block);
}

/**
 * Reduce each of `blocks` along `dims` with `op`: `'sum'`, `'prod'`, `'min'`, `'max'`, or `'fn'` with
 * `source` the text of a self-contained `(acc, x) => number`. Returns one Float64 block per
 * input block, in order, with those dimensions of size 1 (over an ordinary `ArrayBuffer`).
 * With `'fn'`, each output element starts from its first input. Reduced to one element, a
 * sum, product, min or max is `reduceWhole`'s (WebAssembly SIMD where the runtime has it).
 * Self-contained: a task may reduce several blocks that live on its processor at once.
 */
export const reduceBlocks: (
  dims: number[],
  op: string,
  source: string | undefined,
  ...blocks: Block[]
) => Block[] = linkKernel(reduceBlocksKernel, 'reduceBlocks', { whole: reduceWhole });

/**
 * Reduce every element of each of `blocks` with `op` (as `reduceBlocks` with every dimension):
 * the partial results as one Float64Array, in order, each computed as `reduceBlocks` computes
 * it. Compact, so a task's result rides back with its completion. Self-contained.
 */
export const reduceBlocksWhole: (
  op: string,
  source: string | undefined,
  ...blocks: Block[]
) => Float64Array = linkKernel(reduceBlocksWholeKernel, 'reduceBlocksWhole', {
  value: wholeBlockValue,
  whole: reduceWhole,
});

/**
 * Reduce every element of `block` with `op` to one number, the same value as
 * `reduceBlocksWhole(op, source, block)[0]`: a task's result that rides back with its completion
 * as a plain number (no typed array to allocate, clone and collect on either side).
 * Self-contained.
 */
export const reduceBlockWhole: (op: string, source: string | undefined, block: Block) => number =
  linkKernel(reduceBlockWholeKernel, 'reduceBlockWhole', {
    value: wholeBlockValue,
    whole: reduceWhole,
  });

/** Reduce block `a` along `dims` with `op` (as `reduceBlocks` does for one block). */
export function reduceBlock(a: Block, dims: number[], op: string, source?: string): Block {
  return reduceBlocks(dims, op, source, a)[0];
}

/**
 * Combine same-shaped partial results element-wise with `op` (as in `reduceBlocks`), in the
 * order of the blocks they came from, then multiply by `scale` (a mean's 1/count; 1 otherwise).
 * `groups` are lists of partial results (what `reduceBlocks` tasks return); `positions[g][j]`
 * is the place of `groups[g][j]` in that order, or `positions` is null when the groups are
 * already in order. Self-contained. The fold is the same whatever the grouping, so a result is
 * the same to the bit however the blocks were grouped into tasks.
 */
export function combineInOrder(
  op: string,
  source: string | undefined,
  scale: number,
  positions: number[][] | null,
  ...groups: Block[][]
): Block {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : op === 'sum'
        ? (p: number, v: number) => p + v
        : op === 'prod'
          ? (p: number, v: number) => p * v
          : op === 'min'
            ? Math.min
            : Math.max;
  let parts: Block[] = [];
  if (positions === null) for (const g of groups) for (const b of g) parts.push(b);
  else {
    parts = new Array(positions.reduce((n, p) => n + p.length, 0));
    for (let g = 0; g < groups.length; g++)
      for (let j = 0; j < groups[g].length; j++) parts[positions[g][j]] = groups[g][j];
  }
  const first = parts[0];
  const n = first.data.length;
  const out = new Float64Array(new SharedArrayBuffer(8 * n));
  out.set(first.data);
  for (let p = 1; p < parts.length; p++) {
    const y = parts[p].data;
    if (op === 'sum') for (let i = 0; i < n; i++) out[i] += y[i];
    else if (op === 'prod') for (let i = 0; i < n; i++) out[i] *= y[i];
    else for (let i = 0; i < n; i++) out[i] = f(out[i], y[i]);
  }
  if (scale !== 1) for (let i = 0; i < n; i++) out[i] *= scale;
  return { data: out, shape: first.shape, strides: first.strides, offset: 0 };
}

/**
 * Combine same-shaped partial results (`reduceBlock`'s) element-wise with `op`, in the order
 * given, then multiply by `scale` (as `combineInOrder` does).
 */
export function combineBlocks(
  op: string,
  source: string | undefined,
  scale: number,
  ...parts: Block[]
): Block {
  return combineInOrder(op, source, scale, null, parts);
}

/**
 * `combineInOrder` over one-number partial results: `values` (in block order) folded with `op`,
 * then multiplied by `scale`, in float64 as there: the same number to the bit as
 * `combineInOrder(op, source, scale, null, parts).data[0]` with `parts[k]` holding `values[k]`.
 */
export function combineValues(
  op: string,
  source: string | undefined,
  scale: number,
  values: ArrayLike<number>,
): number {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : op === 'min'
        ? Math.min
        : Math.max;
  const acc = new Float64Array(1);
  acc[0] = values[0];
  for (let p = 1; p < values.length; p++) {
    if (op === 'sum') acc[0] += values[p];
    else if (op === 'prod') acc[0] *= values[p];
    else acc[0] = f(acc[0], values[p]);
  }
  if (scale !== 1) acc[0] *= scale;
  return acc[0];
}
