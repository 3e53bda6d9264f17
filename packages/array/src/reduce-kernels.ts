// Reduction kernels: self-contained, so they travel to worker threads as source text.
import type { Block } from './kernels.js';

/**
 * Reduce block `a` along `dims` with `op`: `'sum'`, `'min'`, `'max'`, or `'fn'` with `source`
 * the text of a self-contained `(acc, x) => number`. Returns a Float64 block with those
 * dimensions of size 1. With `'fn'`, each output element starts from its first input.
 */
export function reduceBlock(a: Block, dims: number[], op: string, source?: string): Block {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : op === 'sum'
        ? (p: number, v: number) => p + v
        : op === 'min'
          ? Math.min
          : Math.max;
  const nd = a.shape.length;
  const oshape = a.shape.map((s, d) => (dims.includes(d) ? 1 : s));
  const ostr: number[] = [];
  let m = 1;
  for (const s of oshape) {
    ostr.push(m);
    m *= s;
  }
  const out = new Float64Array(new SharedArrayBuffer(8 * m));
  const x = a.data;
  const n = x.length;
  if (m === 1) {
    // Everything reduced: one accumulator, no index arithmetic.
    let acc = x[0];
    if (op === 'sum') for (let i = 1; i < n; i++) acc += x[i];
    else for (let i = 1; i < n; i++) acc = f(acc, x[i]);
    out[0] = acc;
    return { data: out, shape: oshape, strides: ostr, offset: 0 };
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
  return { data: out, shape: oshape, strides: ostr, offset: 0 };
}

/**
 * Combine same-shaped partial results element-wise with `op` (as in `reduceBlock`), then
 * multiply by `scale` (a mean's 1/count; 1 otherwise).
 */
export function combineBlocks(
  op: string,
  source: string | undefined,
  scale: number,
  ...parts: Block[]
): Block {
  const f =
    op === 'fn'
      ? (new Function(`return (${source});`)() as (acc: number, x: number) => number)
      : op === 'sum'
        ? (p: number, v: number) => p + v
        : op === 'min'
          ? Math.min
          : Math.max;
  const first = parts[0];
  const n = first.data.length;
  const out = new Float64Array(new SharedArrayBuffer(8 * n));
  out.set(first.data);
  for (let p = 1; p < parts.length; p++) {
    const y = parts[p].data;
    if (op === 'sum') for (let i = 0; i < n; i++) out[i] += y[i];
    else for (let i = 0; i < n; i++) out[i] = f(out[i], y[i]);
  }
  if (scale !== 1) for (let i = 0; i < n; i++) out[i] *= scale;
  return { data: out, shape: first.shape, strides: first.strides, offset: 0 };
}
