// Block kernels. Each is self-contained (no imports, no outer variables, or the parts it uses
// linked into its source by `linkKernel`) so it travels to worker threads as source text. A
// block is a column-major strided view over a SharedArrayBuffer: { data, shape, strides,
// offset: 0 }.
import { linkKernel } from './kernel-link.js';
import { newBlock } from './new-block.js';

declare const __DTASK_LINK_newBlock__: typeof newBlock;

/** A block: a column-major, contiguous strided view (usable with datadeps `view`). */
export interface Block<T extends Float64Array | Float32Array | Int32Array = any> {
  readonly data: T;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
}

function makeBlockKernel(
  dtype: string,
  shape: number[],
  kind: string,
  value: number,
  seed: number,
): Block {
  const block = __DTASK_LINK_newBlock__(dtype, shape);
  const data = block.data;
  const w = dtype.startsWith('complex') ? 2 : 1;
  const n = data.length / w;
  if (kind === 'rand' || kind === 'randn') {
    // Drawn into a Float64Array: the block's own, else a run at a time into one stored by `set`
    // (which converts each number to the dtype as an element store does). The loops see one
    // array type whatever the dtype: stores into every typed array type through one loop (a
    // worker makes blocks of many dtypes) were several times slower.
    const int = dtype.includes('int');
    const total = w * n;
    const direct = data instanceof Float64Array;
    const run = direct ? data : new Float64Array(Math.min(total, 4096));
    let s = seed >>> 0 || 1;
    // The normal quantile's coefficients (for 'randn').
    const a = [
      -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269,
      -30.66479806614716, 2.506628277459239,
    ];
    const b = [
      -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
      -13.28068155288572,
    ];
    const c = [
      -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
      4.374664141464968, 2.938163982698783,
    ];
    const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
    const low = 0.02425;
    for (let at = 0; at < total; at += run.length) {
      const len = Math.min(run.length, total - at);
      const part = len === run.length ? run : run.subarray(0, len);
      for (let i = 0; i < len; i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        run[i] = int ? s % 100 : s / 2 ** 32;
      }
      if (!direct) data.set(part, at);
      if (kind === 'randn') {
        // 'randn': each stored uniform (read back as the dtype holds it) through the normal
        // quantile (Acklam's rational approximation, relative error below 1.2e-9), as randn.ts
        // documents.
        if (!direct) part.set(data.subarray(at, at + len));
        for (let i = 0; i < len; i++) {
          // A uniform in (0, 1): [0, 1) moved off 0 by half of its resolution.
          const p = run[i] + 2 ** -54;
          let x: number;
          if (p < low || p > 1 - low) {
            const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
            x =
              (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
              ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
            if (p >= low) x = -x;
          } else {
            const q = p - 0.5;
            const r = q * q;
            x =
              ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
              (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
          }
          run[i] = x;
        }
        if (!direct) data.set(part, at);
      }
    }
  } else if (value !== 0 && w === 2) {
    for (let i = 0; i < n; i++) data[2 * i] = value;
  } else if (value !== 0) data.fill(value);
  return block;
}

/**
 * Make a block of `dtype` and `shape`: `kind` 'fill' (with `value`), 'rand' or 'randn' (from
 * `seed`).
 */
export const makeBlock: (
  dtype: string,
  shape: number[],
  kind: string,
  value: number,
  seed: number,
) => Block = linkKernel(makeBlockKernel, 'makeBlock', { newBlock });

function blockFromKernel(dtype: string, shape: number[], values: ArrayLike<number>): Block {
  const block = __DTASK_LINK_newBlock__(dtype, shape);
  block.data.set(values as ArrayLike<number>);
  return block;
}

/** A block of `dtype` and `shape` holding a copy of `values` (column-major). */
export const blockFrom: (dtype: string, shape: number[], values: ArrayLike<number>) => Block =
  linkKernel(blockFromKernel, 'blockFrom', { newBlock });

/**
 * `f` (given as source text) applied element by element to `a` and the same-shaped `others`
 * (`f(a[i], others[0][i], …)`): a new block of `dtype`.
 */
export function mapBlock(a: Block, source: string, dtype: string, ...others: Block[]): Block {
  const f = new Function(`return (${source});`)() as (...x: number[]) => number;
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  const n = a.data.length;
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const x = a.data;
  // A value that is not a number would be stored as NaN (or 0) without a word: a boolean counts
  // as 1 or 0, anything else is refused. Defined here: the kernel travels as source text. (A
  // method, not a named arrow: the build wraps a named arrow in `__name`, a property definition
  // each time the kernel runs.)
  const { elementOf } = {
    elementOf(v: unknown): number {
      if (typeof v === 'boolean') return v ? 1 : 0;
      const what =
        typeof v === 'string' ? `'${v.slice(0, 40)}' (a string)` : `${String(v)} (${typeof v})`;
      throw new TypeError(
        `da.map(f): f returned ${what}; the result is a ${dtype} array, so f must return a number`,
      );
    },
  };
  let v: unknown;
  if (others.length === 0) {
    for (let i = 0; i < n; i++) {
      v = f(x[i]);
      data[i] = typeof v === 'number' ? v : elementOf(v);
    }
  } else if (others.length === 1) {
    const y = others[0].data;
    for (let i = 0; i < n; i++) {
      v = f(x[i], y[i]);
      data[i] = typeof v === 'number' ? v : elementOf(v);
    }
  } else {
    const ys = others.map((o) => o.data);
    const args = new Array(ys.length + 1);
    for (let i = 0; i < n; i++) {
      args[0] = x[i];
      for (let k = 0; k < ys.length; k++) args[k + 1] = ys[k][i];
      v = f(...args);
      data[i] = typeof v === 'number' ? v : elementOf(v);
    }
  }
  return { data, shape: a.shape, strides: a.strides, offset: 0 };
}

/**
 * Element-wise `a op b` (`op` one of add, sub, mul, div) into a new block of `dtype`. `b` is a
 * number or a block; a block may be broadcast: along a dimension where one block has size 1,
 * its single slice pairs with every slice of the other (Julia's `a .+ b`). The result has the
 * larger size along each dimension.
 */
export function binaryBlock(a: Block, b: Block | number, op: string, dtype: string): Block {
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  // Methods, not named arrows: built with keepNames, a named arrow is wrapped in `__name`, an
  // `Object.defineProperty` of its name (about 0.5 µs) every time the kernel runs.
  const { apply, as, bs } = {
    apply(x: number, v: number): number {
      return op === 'add' ? x + v : op === 'sub' ? x - v : op === 'mul' ? x * v : x / v;
    },
    as(d: number): number {
      return d < a.shape.length ? a.shape[d] : 1;
    },
    bs(d: number): number {
      return typeof b === 'number' || d >= b.shape.length ? 1 : b.shape[d];
    },
  };
  const x = a.data;
  if (typeof b === 'number') {
    const n = x.length;
    const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
    for (let i = 0; i < n; i++) data[i] = apply(x[i], b);
    return { data, shape: a.shape, strides: a.strides, offset: 0 };
  }
  const y = b.data;
  // A dimension one block lacks (a trailing one) counts as size 1.
  const nd = Math.max(a.shape.length, b.shape.length);
  let same = a.shape.length === b.shape.length;
  for (let d = 0; d < nd; d++) if (as(d) !== bs(d)) same = false;
  if (same) {
    const n = x.length;
    const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
    for (let i = 0; i < n; i++) data[i] = apply(x[i], y[i]);
    return { data, shape: a.shape, strides: a.strides, offset: 0 };
  }
  // Broadcasting: walk the result's indices; a size-1 dimension of an operand stays at 0.
  const shape: number[] = [];
  const strides: number[] = [];
  let n = 1;
  for (let d = 0; d < nd; d++) {
    shape.push(Math.max(as(d), bs(d)));
    strides.push(n);
    n *= shape[d];
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const idx = new Array(nd).fill(0);
  for (let i = 0; i < n; i++) {
    let ia = 0;
    let ib = 0;
    for (let d = 0; d < nd; d++) {
      if (as(d) !== 1) ia += idx[d] * a.strides[d];
      if (bs(d) !== 1) ib += idx[d] * b.strides[d];
    }
    data[i] = apply(x[ia], y[ib]);
    for (let d = 0; d < nd; d++) {
      idx[d]++;
      if (idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data, shape, strides, offset: 0 };
}
