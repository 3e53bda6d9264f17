// A new zeroed block of a dtype and shape in shared memory: the one allocation of the kernels
// that make blocks (kernels.ts, layout-kernels.ts), linked into their source (`linkKernel`), so
// it travels with them to worker threads and processes.

/**
 * A block as `newBlock` makes it (a `Block` of kernels.ts, which links this file in): its
 * arrays its own, to fill.
 */
export interface NewBlock {
  // Any typed array of the dtype, as `Block`'s.
  readonly data: any;
  readonly shape: number[];
  readonly strides: number[];
  readonly offset: number;
}

/**
 * A new column-major block of `dtype` ('float64', 'uint8', …; a complex dtype's element is a
 * (re, im) pair of Float64 for complex128, Float32 for complex64) and `shape`, all zeros, over
 * a `SharedArrayBuffer`. Self-contained: no imports, no outer variables.
 */
export function newBlock(dtype: string, shape: number[]): NewBlock {
  const w = dtype.startsWith('complex') ? 2 : 1;
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    w === 2
      ? dtype === 'complex64'
        ? 'Float32Array'
        : 'Float64Array'
      : `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(w * n * C.BYTES_PER_ELEMENT));
  return { data, shape, strides, offset: 0 };
}
