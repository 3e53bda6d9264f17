// The SIMD kernels' loader and driver, self-contained so that it is spliced into the source
// text of each block kernel that uses it (kernel-link.ts) and travels with it to worker threads
// and processes. The WebAssembly module (scripts/simd-wat.mjs, assembled in the build) arrives
// as the base64 text `__DTASK_SIMD_WASM__` stands for.
import type { sweepModuleBytes } from './simd-sweep-module.js';

/** The base64 bytes of the SIMD module, substituted when a kernel is linked. */
declare const __DTASK_SIMD_WASM__: string;
/** `sweepModuleBytes` (simd-sweep-module.ts), its source substituted when a kernel is linked. */
declare const __DTASK_SWEEP_MODULE__: typeof sweepModuleBytes;

/** A strided 2-D operand: element `(i, j)` at `data[offset + i·rs + j·cs]`. */
export type Operand = [data: Float64Array | Float32Array, offset: number, rs: number, cs: number];

/** What the loaded SIMD module offers to the kernels. */
export interface SimdKernels {
  /**
   * `C ← beta·C + alpha·Σ A·B` over the pairs of `products` (`[m, k]·[k, n]` each), computed in
   * the precision of `float32` (true: f32x4) or Float64 (f64x2); with `lower`, only the
   * elements `(i, j)` with `i ≥ j` of `C` are written.
   */
  gemm(
    float32: boolean,
    m: number,
    n: number,
    products: [a: Operand, b: Operand, k: number][],
    alpha: number,
    beta: number,
    c: Operand,
    lower?: boolean,
  ): void;
  /**
   * The reduction `op` (`'sum'`, `'sumsq'`, `'sumabs'`, `'prod'`, `'min'`, `'max'`, `'minabs'`,
   * `'maxabs'`) of the `n` contiguous elements of `data` from `offset`, in Float64 (float32
   * sums and products accumulated in Float64). Sums of no elements are 0, products 1; the
   * others need `n ≥ 1`.
   */
  reduce(op: string, data: Float64Array | Float32Array, offset: number, n: number): number;
  /**
   * Reduces `cols` columns of `m` elements (column `j` at `data[offset + j·ld …]`)
   * element-wise into `out[outOffset …]`: element `i` is the first column's, then `op`
   * (`'sum'` adds, `'prod'` multiplies, `'min'`/`'max'` as `Math.min`/`Math.max`) with each
   * next column's in order, in Float64 (other element types read as numbers): a loop's order,
   * so its bits. Each column is one f64x2 loop of the element-wise interpreter over the
   * accumulator.
   */
  reduceColumns(
    op: string,
    data: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> },
    offset: number,
    m: number,
    ld: number,
    cols: number,
    out: Float64Array,
    outOffset: number,
  ): void;
  /**
   * A fused element-wise program over the `n` first elements of `inputs` into `out`, all of
   * one element type (`float32`: Float32Array, f32x4; else Float64Array, f64x2). `code` holds
   * instructions of four numbers `[op, dst, a, b]` (opcodes of scripts/simd-elementwise-wat.mjs);
   * an operand `s ≥ 0` is slot `s` (the `inputs` first, then temporaries: `slots` in all), `-k-1`
   * is `scalars[k]`; slot `result` is written to `out`. Runs a chunk of 4096 elements at a time:
   * the inputs' chunks copied in, the program, the result's chunk copied out.
   */
  elementwise(
    float32: boolean,
    code: readonly number[],
    slots: number,
    result: number,
    scalars: readonly number[],
    inputs: readonly (Float64Array | Float32Array)[],
    out: Float64Array | Float32Array,
    n: number,
  ): void;
  /**
   * The Float64 memory a stencil sweep works in: the module's memory from its start, `n`
   * elements and two of slack (a vector may read or write one element past a run). Valid until
   * the next call into these kernels.
   */
  sweepArea(n: number): Float64Array;
  /**
   * Copies `len` elements of `data` from `offset` into this module's memory at byte `at`, in
   * `data`'s element type: from shared memory (where blocks live) with Node's memcpy, where a
   * typed array's `set` copies shared memory a word at a time.
   */
  copyIn(data: Float64Array | Float32Array, offset: number, len: number, at: number): void;
  /** Copies `len` elements from this module's memory at byte `at` into `out` from `offset` (`copyIn`'s way back). */
  copyOut(out: Float64Array | Float32Array, offset: number, len: number, at: number): void;
  /**
   * `copyIn`'s and `copyOut`'s memcpy with its two views made once, for a caller that moves the
   * same bytes at every step: the `len` elements of `data` from `offset` and the same number
   * of bytes of this module's memory at byte `at`, each a view that `copy(from, to)` moves
   * between, either way. Null where `copyIn` would not take memcpy (not shared memory, a run
   * under 4 KiB, not Node). The views last while the memory is not grown (a kernel that grows
   * it detaches them: length 0).
   */
  bytePair(
    data: Float64Array | Float32Array,
    offset: number,
    len: number,
    at: number,
  ): BytePair | null;
  /**
   * The functions of a stencil sweep over this module's memory (simd-sweep-module.ts's
   * `sweepModuleBytes(program, offsets, n0, columnBytes)`: `f` sweeps columns, `g` spreads
   * contiguous columns into a padded layout, `s` and `h` pass the rows between two blocks of a
   * stack), made once per program and layout and kept.
   */
  sweepModule(
    program: SweepCode,
    offsets: readonly number[],
    n0: number,
    columnBytes: number,
  ): SweepFunctions;
}

/** A stencil sweep's functions (see `SimdKernels.sweepModule`); arguments are byte addresses. */
export interface SweepFunctions {
  f(p: number, o: number, cols: number): void;
  g(src: number, dst: number, cols: number): void;
  s(src: number, dst: number, cols: number, rb: number): void;
  h(src: number, dst: number, cols: number, rb: number): void;
}

/** `SimdKernels.bytePair`'s views: a block's bytes, the module memory's, and their copy. */
export interface BytePair {
  /** The array the block's view was made of (a block re-pointed to other memory needs a new pair). */
  of: Float64Array | Float32Array;
  block: Uint8Array;
  memory: Uint8Array;
  /** Copies the bytes of `from` (one of the two views) into `to` (the other). */
  copy(from: Uint8Array, to: Uint8Array): void;
}

/** A stencil sweep program as `SimdKernels.sweep` reads it (`SweepProgram`'s shape). */
export interface SweepCode {
  readonly postfix: readonly number[];
  readonly scalars: readonly number[];
}

/**
 * The SIMD kernels of this runtime, loaded once and kept on `globalThis`; `null` where the
 * runtime's WebAssembly has no 128-bit SIMD or `DTASK_ARRAY_KERNELS=js` asks for the plain
 * JavaScript kernels.
 */
export function installSimd(): SimdKernels | null {
  const key = Symbol.for('dtask.array.simdKernels.v2');
  const g = globalThis as any;
  if (g[key] !== undefined) return g[key];
  const env = g.process?.env?.DTASK_ARRAY_KERNELS;
  const wasm = g.WebAssembly;
  let bytes: Uint8Array | undefined;
  if (env !== 'js' && typeof wasm === 'object') {
    const text = atob(__DTASK_SIMD_WASM__);
    bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    if (!wasm.validate(bytes)) bytes = undefined;
  }
  if (bytes === undefined) {
    g[key] = null;
    return null;
  }
  const x = new wasm.Instance(new wasm.Module(bytes), {}).exports;
  const memory = x.memory;
  // Cache blocking (BLIS): a kc-deep panel of B (kc·NR in L1 per micro-panel), an mc × kc
  // block of A in L2 (256 KiB), C's block in memory.
  const KC = 256;
  let f64 = new Float64Array(memory.buffer);
  let f32 = new Float32Array(memory.buffer);
  let i32 = new Int32Array(memory.buffer);
  // Node's `Buffer#fill` with a byte view as its value copies the bytes with `memcpy`, where a
  // typed array's `set` from a SharedArrayBuffer (where a block lives) copies them a word at a
  // time (V8's relaxed copy for shared memory): 2.4 against 3.5 ms of CPU for 32 MiB here.
  // Node only (`set` elsewhere), and only for shared runs of `FILL_FROM_BYTES` or more; the same
  // way back out into shared memory.
  const NodeBuffer = g.process?.versions?.node === undefined ? undefined : g.Buffer;
  const FILL_FROM_BYTES = 4096;
  let view: { fill(value: Uint8Array, from: number, to: number): unknown } | undefined =
    NodeBuffer?.from(memory.buffer);
  const ensure = (bytesNeeded: number) => {
    const have = memory.buffer.byteLength;
    if (bytesNeeded > have) {
      memory.grow(Math.ceil((bytesNeeded - have) / 65536));
      f64 = new Float64Array(memory.buffer);
      f32 = new Float32Array(memory.buffer);
      i32 = new Int32Array(memory.buffer);
      view = NodeBuffer?.from(memory.buffer);
    }
  };
  /** Copies the `len` elements of `data` from `offset` into the memory at byte `at`. */
  const copyIn = (data: Float64Array | Float32Array, offset: number, len: number, at: number) => {
    const es = data.BYTES_PER_ELEMENT;
    const n = len * es;
    if (view !== undefined && n >= FILL_FROM_BYTES && data.buffer instanceof SharedArrayBuffer)
      view.fill(new Uint8Array(data.buffer, data.byteOffset + offset * es, n), at, at + n);
    else (es === 8 ? f64 : f32).set(data.subarray(offset, offset + len), at / es);
  };
  // `bytePair`'s copy: `to` is a Node Buffer (both views are), whose `fill` with a byte view as
  // its value is one memcpy of the view's length.
  const copyBytes = (from: Uint8Array, to: Uint8Array) => {
    (to as unknown as { fill(value: Uint8Array): unknown }).fill(from);
  };
  /** Copies `len` elements from the memory at byte `at` into `out` from `offset` (`copyIn`'s way). */
  const copyOut = (out: Float64Array | Float32Array, offset: number, len: number, at: number) => {
    const es = out.BYTES_PER_ELEMENT;
    const n = len * es;
    if (view !== undefined && n >= FILL_FROM_BYTES && out.buffer instanceof SharedArrayBuffer)
      NodeBuffer.from(out.buffer, out.byteOffset + offset * es, n).fill(
        new Uint8Array(memory.buffer, at, n),
      );
    else out.set((es === 8 ? f64 : f32).subarray(at / es, at / es + len), offset);
  };
  /**
   * The byte address of an element-wise program's operand `s`: slot `s` (`s ≥ 0`, `chunk`
   * elements of `es` bytes each from `slotAt`) or scalar `-s - 1` (from `scAt`).
   */
  const operandAt = (s: number, slotAt: number, scAt: number, es: number, chunk: number) =>
    s >= 0 ? slotAt + s * chunk * es : scAt + (-s - 1) * es;
  // Stencil sweeps: a module per program and layout, over this module's memory.
  const sweeps = new Map<string, SweepFunctions>();
  const kernels: SimdKernels = {
    copyIn,
    copyOut,
    bytePair(data, offset, len, at) {
      const es = data.BYTES_PER_ELEMENT;
      const n = len * es;
      if (view === undefined || n < FILL_FROM_BYTES || !(data.buffer instanceof SharedArrayBuffer))
        return null;
      return {
        of: data,
        block: NodeBuffer.from(data.buffer, data.byteOffset + offset * es, n),
        memory: NodeBuffer.from(memory.buffer, at, n),
        copy: copyBytes,
      };
    },
    gemm(float32, m, n, products, alpha, beta, c, lower = false) {
      const es = float32 ? 4 : 8;
      const MR = float32 ? 8 : 4;
      const NR = 4;
      const MC = float32 ? 256 : 128;
      const run = float32 ? x.gemm_f32 : x.gemm_f64;
      const mp = Math.ceil(m / MR) * MR;
      const np = Math.ceil(n / NR) * NR;
      // Memory (element offsets): C (mp × np) | A block (MC × KC) | B panel (KC × np) | A's
      // kc columns as copied (m × KC) | B's kc rows as copied (KC × n) | slack for the packing's
      // reads past the last row (read, then replaced by zeros).
      const cAt = 0;
      const aAt = mp * np;
      const bAt = aAt + MC * KC;
      const saAt = bAt + KC * np;
      const sbAt = saAt + m * KC;
      ensure((sbAt + KC * n) * es + 65536);
      const w = float32 ? f32 : f64;
      const pack = float32 ? x.pack_f32 : x.pack_f64;
      w.fill(0, cAt, cAt + mp * np);
      const [cd, co, crs, ccs] = c;
      // C ± A·B with C's columns contiguous: C is copied in and out natively, the sign goes
      // into A's packing, and the micro-kernel adds onto C in place.
      const inPlace = beta === 1 && (alpha === 1 || alpha === -1) && crs === 1;
      const scale = inPlace ? alpha : 1;
      if (inPlace)
        for (let j = 0; j < n; j++)
          w.set(cd.subarray(co + j * ccs, co + j * ccs + m), cAt + j * mp);
      for (const [a, b, k] of products) {
        const [ad, ao, ars, acs] = a;
        const [bd, bo, brs, bcs] = b;
        for (let pc = 0; pc < k; pc += KC) {
          const kc = Math.min(KC, k - pc);
          // B[pc … pc+kc, 0 … n) copied in (a column or a row at a time where they are
          // contiguous), then packed in panels of NR columns by the module, zeros past n.
          let bjs: number; // stride of the copy along B's columns (j), in elements
          let bps: number; // along its rows (p)
          if (brs === 1) {
            for (let j = 0; j < n; j++) {
              const s0 = bo + pc + j * bcs;
              w.set(bd.subarray(s0, s0 + kc), sbAt + j * kc);
            }
            bjs = kc;
            bps = 1;
          } else if (bcs === 1) {
            for (let p = 0; p < kc; p++) {
              const s0 = bo + (pc + p) * brs;
              w.set(bd.subarray(s0, s0 + n), sbAt + p * n);
            }
            bjs = 1;
            bps = n;
          } else {
            for (let j = 0; j < n; j++)
              for (let p = 0; p < kc; p++) w[sbAt + j * kc + p] = bd[bo + (pc + p) * brs + j * bcs];
            bjs = kc;
            bps = 1;
          }
          pack(sbAt * es, bjs, bps, n, kc, NR, np / NR, bAt * es, 1);
          // A[0 … m, pc … pc+kc) copied in likewise; packed an MC-row block at a time.
          let ais: number;
          let aps: number;
          if (ars === 1) {
            for (let p = 0; p < kc; p++) {
              const s0 = ao + (pc + p) * acs;
              w.set(ad.subarray(s0, s0 + m), saAt + p * m);
            }
            ais = 1;
            aps = m;
          } else if (acs === 1) {
            for (let i = 0; i < m; i++) {
              const s0 = ao + i * ars + pc;
              w.set(ad.subarray(s0, s0 + kc), saAt + i * kc);
            }
            ais = kc;
            aps = 1;
          } else {
            for (let p = 0; p < kc; p++)
              for (let i = 0; i < m; i++) w[saAt + p * m + i] = ad[ao + i * ars + (pc + p) * acs];
            ais = 1;
            aps = m;
          }
          for (let ic = 0; ic < mp; ic += MC) {
            const mc = Math.min(MC, mp - ic);
            pack((saAt + ic * ais) * es, ais, aps, m - ic, kc, MR, mc / MR, aAt * es, scale);
            run(mc, np, kc, aAt * es, bAt * es, (cAt + ic) * es, mp);
          }
        }
      }
      if (inPlace) {
        // Back out: the lower triangle only where asked.
        for (let j = 0; j < n; j++) {
          const i0 = lower ? Math.min(j, m) : 0;
          cd.set(w.subarray(cAt + j * mp + i0, cAt + j * mp + m), co + j * ccs + i0);
        }
        return;
      }
      if (beta === 0 && alpha === 1 && crs === 1 && !lower) {
        // The product alone into a column-major C: a column at a time, natively.
        for (let j = 0; j < n; j++)
          cd.set(w.subarray(cAt + j * mp, cAt + j * mp + m), co + j * ccs);
        return;
      }
      for (let j = 0; j < n; j++) {
        const src = cAt + j * mp;
        const dst = co + j * ccs;
        const i0 = lower ? j : 0;
        if (beta === 0) for (let i = i0; i < m; i++) cd[dst + i * crs] = alpha * w[src + i];
        else if (beta === 1 && alpha === 1)
          for (let i = i0; i < m; i++) cd[dst + i * crs] += w[src + i];
        else if (beta === 1 && alpha === -1)
          for (let i = i0; i < m; i++) cd[dst + i * crs] -= w[src + i];
        else
          for (let i = i0; i < m; i++)
            cd[dst + i * crs] = beta * cd[dst + i * crs] + alpha * w[src + i];
      }
    },
    reduceColumns(op, data, offset, m, ld, cols, out, outOffset) {
      // Memory (bytes): the instructions (5 i32 each) | the accumulator | the columns copied
      // in, a group at a time (up to 2^20 elements).
      const per = Math.max(1, Math.min(cols, Math.floor(2 ** 20 / Math.max(m, 1))));
      const mv = m + (m % 2) + 2;
      const accAt = Math.ceil((per * 20) / 16) * 16;
      const colAt = accAt + mv * 8;
      ensure(colAt + (per * mv + 2) * 8);
      const code = op === 'sum' ? 0 : op === 'prod' ? 2 : op === 'min' ? 4 : 5;
      for (let j0 = 0; j0 < cols; j0 += per) {
        const count = Math.min(per, cols - j0);
        for (let j = 0; j < count; j++) {
          const at = colAt + j * mv * 8;
          const src = offset + (j0 + j) * ld;
          if (data instanceof Float64Array) copyIn(data, src, m, at);
          else f64.set(data.subarray(src, src + m), at / 8);
          // The first column: max(x, x) is x (NaN and -0 kept), the accumulator's start.
          const first = j0 === 0 && j === 0;
          i32.set([first ? 5 : code, accAt, first ? at : accAt, at, 0], 5 * j);
        }
        x.ew_f64(0, count, m);
      }
      out.set(f64.subarray(accAt / 8, accAt / 8 + m), outOffset);
    },
    reduce(op, data, offset, n) {
      // Through the module's memory a chunk at a time (a copy, then one pass in SIMD), the
      // partial results folded in order.
      const float32 = data instanceof Float32Array;
      const run = x[`reduce_${op}_${float32 ? 'f32' : 'f64'}`];
      const CHUNK = 16384;
      ensure(CHUNK * 8);
      const sum = op.startsWith('sum');
      const max = op.startsWith('max');
      const prod = op === 'prod';
      let acc = prod ? 1 : 0;
      for (let i = 0; i < n; i += CHUNK) {
        const len = Math.min(CHUNK, n - i);
        copyIn(data, offset + i, len, 0);
        const r = run(0, len);
        acc =
          i === 0 ? r : sum ? acc + r : prod ? acc * r : max ? Math.max(acc, r) : Math.min(acc, r);
      }
      return acc;
    },
    elementwise(float32, code, slots, result, scalars, inputs, out, n) {
      const es = float32 ? 4 : 8;
      const CHUNK = 4096;
      const count = code.length / 4;
      // Memory (bytes): the program (5 i32 an instruction) | the scalars | the slots.
      const scAt = Math.ceil((count * 20) / 16) * 16;
      const slotAt = Math.ceil((scAt + scalars.length * es) / 16) * 16;
      ensure(slotAt + slots * CHUNK * es);
      const w = float32 ? f32 : f64;
      // Each instruction's operands as byte addresses, written in place: no closure and no
      // arrays per call (a named closure costs a `__name` property definition per call in a
      // kernel compiled from a build that keeps names).
      for (let k = 0; k < count; k++) {
        const a = code[4 * k + 2];
        const b = code[4 * k + 3];
        const at = 5 * k;
        i32[at] = code[4 * k];
        i32[at + 1] = operandAt(code[4 * k + 1], slotAt, scAt, es, CHUNK);
        i32[at + 2] = operandAt(a, slotAt, scAt, es, CHUNK);
        i32[at + 3] = operandAt(b, slotAt, scAt, es, CHUNK);
        i32[at + 4] = (a < 0 ? 1 : 0) | (b < 0 ? 2 : 0);
      }
      for (let k = 0; k < scalars.length; k++) w[scAt / es + k] = scalars[k];
      const run = float32 ? x.ew_f32 : x.ew_f64;
      const resultAt = (slotAt + result * CHUNK * es) / es;
      for (let i = 0; i < n; i += CHUNK) {
        const len = Math.min(CHUNK, n - i);
        for (let k = 0; k < inputs.length; k++) copyIn(inputs[k], i, len, slotAt + k * CHUNK * es);
        run(0, count, len);
        copyOut(out, i, len, resultAt * es);
      }
    },
    sweepArea(n) {
      ensure((n + 2) * 8);
      return new Float64Array(memory.buffer, 0, n + 2);
    },
    sweepModule(program, offsets, n0, columnBytes) {
      const k = JSON.stringify([program.postfix, program.scalars, offsets, n0, columnBytes]);
      let made = sweeps.get(k);
      if (made === undefined) {
        const bytes = __DTASK_SWEEP_MODULE__(
          program.postfix,
          program.scalars,
          offsets,
          n0,
          columnBytes,
        );
        made = new wasm.Instance(new wasm.Module(bytes), { m: { m: memory } })
          .exports as unknown as SweepFunctions;
        if (sweeps.size >= 256) sweeps.clear();
        sweeps.set(k, made);
      }
      return made;
    },
  };
  g[key] = kernels;
  return kernels;
}
