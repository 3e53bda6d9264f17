// Block kernels. Each is self-contained (no imports, no outer variables) so it travels to
// worker threads as source text. A block is a column-major strided view over a
// SharedArrayBuffer: { data, shape, strides, offset: 0 }.

/** A block: a column-major, contiguous strided view (usable with datadeps `view`). */
export interface Block<T extends Float64Array | Float32Array | Int32Array = any> {
  readonly data: T;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
}

/** Make a block of `dtype` and `shape`: `kind` 'fill' (with `value`) or 'rand' (from `seed`). */
export function makeBlock(
  dtype: string,
  shape: number[],
  kind: string,
  value: number,
  seed: number,
): Block {
  const C = (
    dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array
  ) as Float64ArrayConstructor;
  let n = 1;
  const strides: number[] = [];
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  if (kind === 'rand') {
    let s = seed >>> 0 || 1;
    for (let i = 0; i < n; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      data[i] = dtype === 'int32' ? s % 100 : s / 2 ** 32;
    }
  } else if (value !== 0) data.fill(value);
  return { data, shape, strides, offset: 0 };
}

/** A block of `dtype` and `shape` holding a copy of `values` (column-major). */
export function blockFrom(dtype: string, shape: number[], values: ArrayLike<number>): Block {
  const C = (
    dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array
  ) as Float64ArrayConstructor;
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  data.set(values as ArrayLike<number>);
  return { data, shape, strides, offset: 0 };
}

/** `f` (given as source text) applied to each element of `a`: a new block of `dtype`. */
export function mapBlock(a: Block, source: string, dtype: string): Block {
  const f = new Function(`return (${source});`)() as (x: number) => number;
  const C = (
    dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array
  ) as Float64ArrayConstructor;
  const n = a.data.length;
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  for (let i = 0; i < n; i++) data[i] = f(a.data[i]);
  return { data, shape: a.shape, strides: a.strides, offset: 0 };
}

/** Element-wise `a op b` (`op` one of add, sub, mul, div); `b` a block of the same shape or a number. */
export function binaryBlock(a: Block, b: Block | number, op: string, dtype: string): Block {
  const C = (
    dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array
  ) as Float64ArrayConstructor;
  const n = a.data.length;
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const x = a.data;
  const scalar = typeof b === 'number';
  const y = scalar ? null : b.data;
  for (let i = 0; i < n; i++) {
    const v = y === null ? (b as number) : y[i];
    data[i] =
      op === 'add' ? x[i] + v : op === 'sub' ? x[i] - v : op === 'mul' ? x[i] * v : x[i] / v;
  }
  return { data, shape: a.shape, strides: a.strides, offset: 0 };
}

/** Reduce `a` along `dims` with `op` (sum, min, max): a Float64 block with those dims of size 1. */
export function reduceBlock(a: Block, dims: number[], op: string): Block {
  const nd = a.shape.length;
  const oshape = a.shape.map((s, d) => (dims.includes(d) ? 1 : s));
  const ostr: number[] = [];
  let m = 1;
  for (const s of oshape) {
    ostr.push(m);
    m *= s;
  }
  const out = new Float64Array(new SharedArrayBuffer(8 * m));
  out.fill(op === 'sum' ? 0 : op === 'min' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY);
  const n = a.data.length;
  if (m === 1) {
    // Everything reduced: one accumulator, no index arithmetic.
    let acc = out[0];
    const x = a.data;
    if (op === 'sum') for (let i = 0; i < n; i++) acc += x[i];
    else if (op === 'min') for (let i = 0; i < n; i++) acc = Math.min(acc, x[i]);
    else for (let i = 0; i < n; i++) acc = Math.max(acc, x[i]);
    out[0] = acc;
    return { data: out, shape: oshape, strides: ostr, offset: 0 };
  }
  const idx = new Array(nd).fill(0);
  for (let i = 0; i < n; i++) {
    let o = 0;
    for (let d = 0; d < nd; d++) if (oshape[d] !== 1) o += idx[d] * ostr[d];
    const v = a.data[i];
    out[o] = op === 'sum' ? out[o] + v : op === 'min' ? Math.min(out[o], v) : Math.max(out[o], v);
    for (let d = 0; d < nd; d++) {
      idx[d]++;
      if (idx[d] < a.shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data: out, shape: oshape, strides: ostr, offset: 0 };
}

/** Combine same-shaped partial results element-wise with `op` (sum, min, max), then scale by `scale`. */
export function combineBlocks(op: string, scale: number, ...parts: Block[]): Block {
  const first = parts[0];
  const n = first.data.length;
  const out = new Float64Array(new SharedArrayBuffer(8 * n));
  out.set(first.data);
  for (let p = 1; p < parts.length; p++) {
    const y = parts[p].data;
    for (let i = 0; i < n; i++) {
      out[i] =
        op === 'sum'
          ? out[i] + y[i]
          : op === 'min'
            ? Math.min(out[i], y[i])
            : Math.max(out[i], y[i]);
    }
  }
  if (scale !== 1) for (let i = 0; i < n; i++) out[i] *= scale;
  return { data: out, shape: first.shape, strides: first.strides, offset: 0 };
}

/** `Σₚ A[p]·B[p]` for the `count` blocks of A's row and the `count` blocks of B's column (2-D). */
export function matmulBlocks(dtype: string, count: number, ...blocks: Block[]): Block {
  const C = (
    dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array
  ) as Float64ArrayConstructor;
  const m = blocks[0].shape[0];
  const n = blocks[count].shape[1];
  const acc = new Float64Array(m * n);
  for (let p = 0; p < count; p++) {
    const a = blocks[p];
    const b = blocks[count + p];
    const k = a.shape[1];
    for (let j = 0; j < n; j++) {
      for (let q = 0; q < k; q++) {
        const bv = b.data[q + j * k];
        if (bv === 0) continue;
        for (let i = 0; i < m; i++) acc[i + j * m] += a.data[i + q * m] * bv;
      }
    }
  }
  const data = new C(new SharedArrayBuffer(m * n * C.BYTES_PER_ELEMENT));
  data.set(acc);
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}

/** The transpose of a 2-D block. */
export function transposeBlock(a: Block): Block {
  const [m, n] = a.shape;
  const C = a.data.constructor as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer(m * n * C.BYTES_PER_ELEMENT));
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) data[j + i * n] = a.data[i + j * m];
  return { data, shape: [n, m], strides: [1, n], offset: 0 };
}

/**
 * A new block of `shape` and `dtype` assembled from pieces of `sources`: piece `p` copies the
 * box of size `plan[p].size` at `plan[p].from` in `sources[p]` to `plan[p].to` in the new block.
 */
export function assembleBlock(
  dtype: string,
  shape: number[],
  plan: { from: number[]; to: number[]; size: number[] }[],
  ...sources: Block[]
): Block {
  const C = (
    dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array
  ) as Float64ArrayConstructor;
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  for (let p = 0; p < plan.length; p++) {
    const { from, to, size } = plan[p];
    const src = sources[p];
    const nd = size.length;
    let count = 1;
    for (const s of size) count *= s;
    const idx = new Array(nd).fill(0);
    for (let i = 0; i < count; i++) {
      let si = 0;
      let di = 0;
      for (let d = 0; d < nd; d++) {
        si += (from[d] + idx[d]) * src.strides[d];
        di += (to[d] + idx[d]) * strides[d];
      }
      data[di] = src.data[src.offset + si];
      for (let d = 0; d < nd; d++) {
        idx[d]++;
        if (idx[d] < size[d]) break;
        idx[d] = 0;
      }
    }
  }
  return { data, shape, strides, offset: 0 };
}
