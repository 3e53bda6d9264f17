// Kernels of the complex element types (complex128, complex64: interleaved re, im pairs in a
// Float64Array or Float32Array). Self-contained, so they travel to worker threads and
// processes as source text. Blocks are contiguous column-major (a DArray's chunks).
import type { Block } from './kernels.js';

/**
 * Element-wise `a op b` (`op` one of add, sub, mul, div, complex arithmetic) into a new block
 * of the complex `dtype`: `b` a block of `a`'s shape, a number, or `[re, im]`. `aComplex` and
 * `bComplex` say whether each operand holds pairs (a real one's imaginary parts are 0).
 */
export function complexBinaryBlock(
  a: Block,
  b: Block | number | number[],
  op: string,
  dtype: string,
  aComplex: boolean,
  bComplex: boolean,
): Block {
  const C = (dtype === 'complex64' ? Float32Array : Float64Array) as Float64ArrayConstructor;
  let n = 1;
  for (const s of a.shape) n *= s;
  const data = new C(new SharedArrayBuffer(2 * n * C.BYTES_PER_ELEMENT));
  const x = a.data;
  const scalar = typeof b === 'number' ? [b, 0] : Array.isArray(b) ? b : null;
  const y = scalar === null ? (b as Block).data : null;
  for (let i = 0; i < n; i++) {
    const ar = aComplex ? x[2 * i] : x[i];
    const ai = aComplex ? x[2 * i + 1] : 0;
    let br: number;
    let bi: number;
    if (scalar !== null) {
      br = scalar[0];
      bi = scalar[1];
    } else if (bComplex) {
      br = (y as Float64Array)[2 * i];
      bi = (y as Float64Array)[2 * i + 1];
    } else {
      br = (y as Float64Array)[i];
      bi = 0;
    }
    if (op === 'add') {
      data[2 * i] = ar + br;
      data[2 * i + 1] = ai + bi;
    } else if (op === 'sub') {
      data[2 * i] = ar - br;
      data[2 * i + 1] = ai - bi;
    } else if (op === 'mul') {
      data[2 * i] = ar * br - ai * bi;
      data[2 * i + 1] = ar * bi + ai * br;
    } else {
      const d = br * br + bi * bi;
      data[2 * i] = (ar * br + ai * bi) / d;
      data[2 * i + 1] = (ai * br - ar * bi) / d;
    }
  }
  return { data, shape: a.shape, strides: a.strides, offset: 0 };
}

/** The sum of a complex block's elements, `[re, im]` (accumulated in Float64). */
export function complexBlockSum(block: Block): number[] {
  const x = block.data;
  let re = 0;
  let im = 0;
  for (let i = 0; i + 1 < x.length; i += 2) {
    re += x[i];
    im += x[i + 1];
  }
  return [re, im];
}

/**
 * A part of a complex block: `'re'` or `'im'` (a new real block of `dtype`), or `'conj'` (a
 * new complex block of `dtype`, the imaginary parts negated).
 */
export function complexPartBlock(block: Block, part: string, dtype: string): Block {
  const C = (
    dtype === 'float32' || dtype === 'complex64' ? Float32Array : Float64Array
  ) as Float64ArrayConstructor;
  const x = block.data;
  const n = x.length / 2;
  if (part === 'conj') {
    const data = new C(new SharedArrayBuffer(2 * n * C.BYTES_PER_ELEMENT));
    for (let i = 0; i < n; i++) {
      data[2 * i] = x[2 * i];
      data[2 * i + 1] = -x[2 * i + 1];
    }
    return { data, shape: block.shape, strides: block.strides, offset: 0 };
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const k = part === 'im' ? 1 : 0;
  for (let i = 0; i < n; i++) data[i] = x[2 * i + k];
  return { data, shape: block.shape, strides: block.strides, offset: 0 };
}

/** A complex block of `dtype` from a real block `re` and a real block `im` (or zeros). */
export function complexJoinBlock(re: Block, im: Block | null, dtype: string): Block {
  const C = (dtype === 'complex64' ? Float32Array : Float64Array) as Float64ArrayConstructor;
  let n = 1;
  for (const s of re.shape) n *= s;
  const data = new C(new SharedArrayBuffer(2 * n * C.BYTES_PER_ELEMENT));
  for (let i = 0; i < n; i++) {
    data[2 * i] = re.data[i];
    data[2 * i + 1] = im === null ? 0 : im.data[i];
  }
  return { data, shape: re.shape, strides: re.strides, offset: 0 };
}

/** The element at `local` of a complex `block`, `[re, im]`. */
export function complexElementAt(block: Block, local: number[]): number[] {
  let o = block.offset;
  for (let d = 0; d < local.length; d++) o += local[d] * block.strides[d];
  return [block.data[2 * o], block.data[2 * o + 1]];
}

/**
 * How many elements of the complex block `a` differ (`!==` in either part) from those of `b`
 * (`b`'s conjugates with `conjugate`), both of one shape.
 */
export function complexDiffCount(a: Block, b: Block, conjugate: boolean): number {
  const rank = a.shape.length;
  let n = 1;
  for (const s of a.shape) n *= s;
  const index = new Array(rank).fill(0);
  let count = 0;
  for (let e = 0; e < n; e++) {
    let oa = a.offset;
    let ob = b.offset;
    for (let d = 0; d < rank; d++) {
      oa += index[d] * a.strides[d];
      ob += index[d] * b.strides[d];
    }
    const im = conjugate ? -b.data[2 * ob + 1] : b.data[2 * ob + 1];
    if (a.data[2 * oa] !== b.data[2 * ob] || a.data[2 * oa + 1] !== im) count++;
    for (let d = 0; d < rank; d++) {
      if (++index[d] < a.shape[d]) break;
      index[d] = 0;
    }
  }
  return count;
}

/**
 * A new complex block of `dtype`: `upper`'s elements on and above the global diagonal, `rest`'s
 * below it (`rowStart`, `colStart`: the block's place in the array; `cholesky!` of a complex
 * matrix writing `U = Lᴴ` over its upper triangle).
 */
export function upperOverComplex(
  upper: Block,
  rest: Block,
  rowStart: number,
  colStart: number,
  dtype: string,
): Block {
  const [m, n] = rest.shape;
  const C = (dtype === 'complex64' ? Float32Array : Float64Array) as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer(2 * m * n * C.BYTES_PER_ELEMENT));
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      const from = rowStart + i <= colStart + j ? upper : rest;
      const at = 2 * (from.offset + i * from.strides[0] + j * from.strides[1]);
      data[2 * (i + j * m)] = from.data[at];
      data[2 * (i + j * m) + 1] = from.data[at + 1];
    }
  }
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}
