// The stencil's block kernels. Each is self-contained (no imports, no outer variables) so it
// travels to worker threads and processes as source text.
import type { Block } from './kernels.js';

/** What a stencil block task needs to know, a plain object (see `stencilBlock`). */
export interface StencilPlan {
  /** The kernel's source with `at.NAME(offsets)` rewritten to direct indexing. */
  source: string;
  /** The rewritten expression when the kernel is an arrow with an expression body. */
  expr: string | null;
  /** The kernel's first parameter (the element's position in the padded inputs). */
  atName: string;
  /** The kernel's second parameter (the global index), or null when it has none. */
  idxName: string | null;
  /** The element type of a result the task allocates. */
  dtype: string;
  /** The block's shape. */
  shape: number[];
  /** The block's first element's global index. */
  start: number[];
  /** The halo width along each dimension. */
  radius: number[];
  /**
   * Per input read: padded with a halo or not, whether it is `out` itself (then its own block is
   * `out`, not an argument), the halo strips that follow it, and the edges to fill.
   */
  inputs: {
    padded: boolean;
    isOut: boolean;
    codes: number[][];
    bc: { kind: string; value?: number; symmetric?: boolean }[];
    low: boolean[];
    high: boolean[];
  }[];
}

/** A compact copy of the box `[lo, hi)` (block-local, per dimension) of `block`. */
export function haloStrip(block: Block, lo: number[], hi: number[]): Block {
  const C = block.data.constructor as Float64ArrayConstructor;
  const nd = lo.length;
  const shape = lo.map((a, d) => hi[d] - a);
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const idx = new Array(nd).fill(0);
  const run = shape[0];
  for (let o = 0; o < n; o += run) {
    let src = block.offset;
    for (let d = 0; d < nd; d++) src += (lo[d] + idx[d]) * block.strides[d];
    if (block.strides[0] === 1) data.set(block.data.subarray(src, src + run), o);
    else for (let i = 0; i < run; i++) data[o + i] = block.data[src + i * block.strides[0]];
    for (let d = 1; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data, shape, strides, offset: 0 };
}

/**
 * One block of one stencil step: `blocks` holds, per input of `plan.inputs`, its own block
 * and then its halo strips (in `codes` order). Padded inputs are copied with their halo
 * into a buffer `radius` wider on each side, the edges of the whole array filled by the
 * boundary conditions (dimension by dimension, in order); then the compiled kernel runs over
 * the block's elements, writing `out` in place (a datadeps `InOut`) or a new block.
 */
export function stencilBlock(plan: StencilPlan, out: Block | null, ...blocks: Block[]): Block {
  const { shape, radius } = plan;
  const nd = shape.length;
  const P = shape.map((s, d) => s + 2 * radius[d]);
  const PS: number[] = [];
  let total = 1;
  for (const p of P) {
    PS.push(total);
    total *= p;
  }
  const copyBox = (src: Block, buf: Float64Array, origin: number[]) => {
    const sh = src.shape;
    const idx = new Array(nd).fill(0);
    const run = sh[0];
    let count = 1;
    for (const s of sh) count *= s;
    for (let k = 0; k < count; k += run) {
      let s = src.offset;
      let t = origin[0];
      for (let d = 0; d < nd; d++) s += idx[d] * src.strides[d];
      for (let d = 1; d < nd; d++) t += (origin[d] + idx[d]) * PS[d];
      for (let i = 0; i < run; i++) buf[t + i] = src.data[s + i * src.strides[0]];
      for (let d = 1; d < nd; d++) {
        if (++idx[d] < sh[d]) break;
        idx[d] = 0;
      }
    }
  };
  // Corners: the conditions apply dimension by dimension, in order, each over the values the
  // earlier ones filled; LinearExtrapolate extrapolates along the first dimension past an
  // edge only and clamps along later ones (as Dagger's).
  const fillEdge = (
    buf: Float64Array,
    input: StencilPlan['inputs'][number],
    d: number,
    high: boolean,
  ) => {
    const bc = input.bc[d];
    const r = radius[d];
    const st = PS[d];
    const e = high ? r + shape[d] - 1 : r;
    const dir = high ? 1 : -1;
    const skip = bc.symmetric ? 0 : 1;
    const pos = new Array(nd).fill(0);
    const lines = total / P[d];
    for (let l = 0; l < lines; l++) {
      let base = 0;
      for (let x = 0; x < nd; x++) if (x !== d) base += pos[x] * PS[x];
      const edge = buf[base + e * st];
      let linear = bc.kind === 'linear';
      for (let x = 0; x < d && linear; x++) {
        const past =
          (input.low[x] && pos[x] < radius[x]) || (input.high[x] && pos[x] >= radius[x] + shape[x]);
        if (past && input.bc[x].kind === 'linear') linear = false;
      }
      for (let k = 1; k <= r; k++) {
        const q = base + (e + dir * k) * st;
        let v: number;
        if (bc.kind === 'pad') v = bc.value as number;
        else if (bc.kind === 'clamp' || (bc.kind === 'linear' && !linear)) v = edge;
        else if (linear) v = edge + k * (edge - buf[base + (e - dir) * st]);
        else {
          v = buf[base + (e - dir * (k - 1 + skip)) * st];
          if (bc.kind === 'antireflect') v = 2 * edge - v;
        }
        buf[q] = v;
      }
      for (let x = 0; x < nd; x++) {
        if (x === d) continue;
        if (++pos[x] < P[x]) break;
        pos[x] = 0;
      }
    }
  };
  const padded: (Float64Array | null)[] = [];
  const own: (Float64Array | Float32Array | Int32Array)[] = [];
  let b = 0;
  for (const input of plan.inputs) {
    const block = input.isOut ? (out as Block) : blocks[b++];
    own.push(block.data);
    if (!input.padded) {
      padded.push(null);
      continue;
    }
    const buf = new Float64Array(total);
    copyBox(block, buf, radius);
    for (const code of input.codes) {
      const origin = code.map((c, d) => (c < 0 ? 0 : c === 0 ? radius[d] : radius[d] + shape[d]));
      copyBox(blocks[b++], buf, origin);
    }
    for (let d = 0; d < nd; d++) {
      if (input.low[d]) fillEdge(buf, input, d, false);
      if (input.high[d]) fillEdge(buf, input, d, true);
    }
    padded.push(buf);
  }
  let result = out;
  if (result === null) {
    const C = (
      plan.dtype === 'float32' ? Float32Array : plan.dtype === 'int32' ? Int32Array : Float64Array
    ) as Float64ArrayConstructor;
    let n = 1;
    const strides: number[] = [];
    for (const s of shape) {
      strides.push(n);
      n *= s;
    }
    result = {
      data: new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT)),
      shape,
      strides,
      offset: 0,
    };
  }
  // Compiled once per kernel and block layout on each thread.
  const g = globalThis as unknown as { __dtaskStencilCache?: Map<string, Function> };
  const cache = g.__dtaskStencilCache ?? new Map<string, Function>();
  g.__dtaskStencilCache = cache;
  const key = `${plan.source}\u0000${shape.join(',')}\u0000${radius.join(',')}\u0000${plan.inputs.map((i) => (i.padded ? 1 : 0)).join('')}`;
  let run = cache.get(key);
  if (run === undefined) {
    const at = plan.atName;
    const lines: string[] = ['"use strict";', 'return function ($$P, $$U, $$out, $$start) {'];
    for (let d = 0; d < nd; d++) lines.push(`const $$S${d} = ${PS[d]};`);
    for (let i = 0; i < plan.inputs.length; i++) {
      lines.push(
        plan.inputs[i].padded ? `const $$P${i} = $$P[${i}];` : `const $$U${i} = $$U[${i}];`,
      );
    }
    if (plan.idxName) lines.push(`const ${plan.idxName} = $$start.slice();`);
    lines.push(
      'const $$chk = (v, r) => { if (!Number.isInteger(v) || v < -r || v > r) throw new RangeError("stencil: offset " + v + " is not an integer within the radius " + r); return v; };',
    );
    if (plan.expr === null) lines.push(`const $$k = (${plan.source});`);
    lines.push('let $$o = 0;');
    for (let d = nd - 1; d >= 1; d--) {
      lines.push(`for (let $$j${d} = 0; $$j${d} < ${shape[d]}; $$j${d}++) {`);
      if (plan.idxName) lines.push(`${plan.idxName}[${d}] = $$start[${d}] + $$j${d};`);
    }
    let base = `${radius[0]}`;
    for (let d = 1; d < nd; d++) base += ` + ($$j${d} + ${radius[d]}) * ${PS[d]}`;
    lines.push(`let ${at} = ${base};`);
    lines.push(`for (let $$j0 = 0; $$j0 < ${shape[0]}; $$j0++, ${at}++, $$o++) {`);
    if (plan.idxName) lines.push(`${plan.idxName}[0] = $$start[0] + $$j0;`);
    lines.push(
      plan.expr === null
        ? `$$out[$$o] = $$k(${at}${plan.idxName ? `, ${plan.idxName}` : ''});`
        : `$$out[$$o] = (${plan.expr});`,
    );
    for (let d = 0; d < nd; d++) lines.push('}');
    lines.push('};');
    run = new Function(lines.join('\n'))() as Function;
    cache.set(key, run);
  }
  run(padded, own, result.data, plan.start);
  return result;
}
