// The WebAssembly module of one stencil sweep, encoded in the binary format (no compiler: the
// bytes as the format lays them out). Self-contained: its source is spliced into the SIMD
// loader (kernel-link.ts), which makes one per sweep program and block layout and keeps it.

/**
 * The bytes of a module importing the SIMD kernels' memory as `m.m` and exporting four
 * functions over it, for blocks whose columns (runs along dimension 0) hold `n0` elements:
 *
 * - `f(p, o, cols)`: for `cols` columns, each of `n0` positions, two at a time (f64x2): the
 *   expression `postfix` (stencil-simd-program.ts's `SweepProgram`, in its order) with read
 *   `k` loaded from byte `p + j + offsets[k]` (`j` the position's byte offset in its column),
 *   stored at byte `o + j`; then `p` moves `columnBytes` on and `o` `n0·8` (the output's columns
 *   contiguous). The last vector of a column may write one element past it.
 * - `g(src, dst, cols)`: copies `cols` columns of `n0` Float64 elements from `src` (contiguous)
 *   to `dst` (columns `columnBytes` apart).
 * - `s(src, dst, cols, rb)`: `g` where `dst` holds the block above in a stack: in each column,
 *   first its last `rb` bytes (the `rb / 8` rows the next block reads above it) moved to the `rb`
 *   bytes before `dst` (that column's upper halo), then the column copied in.
 * - `h(src, dst, cols, rb)`: in each of `cols` columns, the first `rb` bytes of `src`'s column
 *   (contiguous columns of `n0` elements) copied to just past `dst`'s column (its lower halo):
 *   the next block's first rows below the block laid out at `dst`.
 */
export function sweepModuleBytes(
  postfix: readonly number[],
  scalars: readonly number[],
  offsets: readonly number[],
  n0: number,
  columnBytes: number,
): Uint8Array {
  const leb = (out: number[], v: number) => {
    do {
      const b = v % 128;
      v = Math.floor(v / 128);
      out.push(v === 0 ? b : b | 0x80);
    } while (v !== 0);
  };
  // Signed LEB128 for i32.const.
  const sleb = (out: number[], v: number) => {
    for (;;) {
      const b = v & 0x7f;
      v >>= 7;
      const done = (v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0);
      out.push(done ? b : b | 0x80);
      if (done) return;
    }
  };
  const columnBytesOut = n0 * 8;
  // f: params p 0, o 1, cols 2; locals j 3, q 4.
  const f: number[] = [0x01, 0x02, 0x7f];
  f.push(0x02, 0x40, 0x03, 0x40); // block, loop (columns)
  f.push(0x20, 0x02, 0x45, 0x0d, 0x01); // cols == 0: out
  f.push(0x41, 0x00, 0x21, 0x03); // j = 0
  f.push(0x02, 0x40, 0x03, 0x40); // block, loop (positions)
  f.push(0x20, 0x03, 0x41);
  sleb(f, columnBytesOut);
  f.push(0x4f, 0x0d, 0x01); // j >= n0·8: out
  f.push(0x20, 0x00, 0x20, 0x03, 0x6a, 0x21, 0x04); // q = p + j
  f.push(0x20, 0x01, 0x20, 0x03, 0x6a); // the store's address: o + j
  const bits = new DataView(new ArrayBuffer(8));
  for (let i = 0; i < postfix.length; i += 2) {
    const arg = postfix[i + 1];
    if (postfix[i] === 0) {
      f.push(0x20, 0x04, 0xfd, 0x00, 0x03); // v128.load, alignment hint 8 bytes
      leb(f, offsets[arg]);
    } else if (postfix[i] === 1) {
      f.push(0xfd, 0x0c); // v128.const: the number in both lanes
      bits.setFloat64(0, scalars[arg], true);
      for (let lane = 0; lane < 2; lane++) for (let k = 0; k < 8; k++) f.push(bits.getUint8(k));
    } else {
      // f64x2 add sub mul div min max neg sqrt abs
      f.push(0xfd);
      leb(f, [240, 241, 242, 243, 244, 245, 237, 239, 236][arg]);
    }
  }
  f.push(0xfd, 0x0b, 0x03, 0x00); // v128.store
  f.push(0x20, 0x03, 0x41, 0x10, 0x6a, 0x21, 0x03); // j += 16
  f.push(0x0c, 0x00, 0x0b, 0x0b); // next position
  f.push(0x20, 0x00, 0x41);
  sleb(f, columnBytes);
  f.push(0x6a, 0x21, 0x00); // p += columnBytes
  f.push(0x20, 0x01, 0x41);
  sleb(f, columnBytesOut);
  f.push(0x6a, 0x21, 0x01); // o += n0·8
  f.push(0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02); // cols -= 1
  f.push(0x0c, 0x00, 0x0b, 0x0b, 0x0b); // next column; end
  // A column's n0·8 bytes from local `src` to local `dst` (local `j` counting), in v128 loads
  // and stores (four a turn where they divide it), then the odd element: inline, where
  // `memory.copy` called out of the module per column (a 128-element column's copy cost about
  // what the call around it did).
  const vecBytes = columnBytesOut - (columnBytesOut % 16);
  const unroll = vecBytes % 64 === 0 ? 4 : 1;
  const copyColumn = (out: number[], src: number, dst: number, j: number) => {
    out.push(0x41, 0x00, 0x21, j); // j = 0
    out.push(0x02, 0x40, 0x03, 0x40);
    out.push(0x20, j, 0x41);
    sleb(out, vecBytes);
    out.push(0x4f, 0x0d, 0x01); // j >= the vectors' bytes: out
    for (let u = 0; u < unroll; u++) {
      out.push(0x20, dst, 0x20, j, 0x6a); // the store's address: dst + j
      out.push(0x20, src, 0x20, j, 0x6a, 0xfd, 0x00, 0x03); // v128.load src + j
      leb(out, u * 16);
      out.push(0xfd, 0x0b, 0x03); // v128.store
      leb(out, u * 16);
    }
    out.push(0x20, j, 0x41);
    sleb(out, unroll * 16);
    out.push(0x6a, 0x21, j); // j += the turn's bytes
    out.push(0x0c, 0x00, 0x0b, 0x0b);
    if (vecBytes !== columnBytesOut) {
      out.push(0x20, dst, 0x20, src, 0x2b, 0x03); // f64.load src + the vectors' bytes
      leb(out, vecBytes);
      out.push(0x39, 0x03); // f64.store dst + the vectors' bytes
      leb(out, vecBytes);
    }
  };
  // g: params src 0, dst 1, cols 2; local j 3.
  const g: number[] = [0x01, 0x01, 0x7f];
  g.push(0x02, 0x40, 0x03, 0x40);
  g.push(0x20, 0x02, 0x45, 0x0d, 0x01);
  copyColumn(g, 0x00, 0x01, 0x03);
  g.push(0x20, 0x00, 0x41);
  sleb(g, columnBytesOut);
  g.push(0x6a, 0x21, 0x00, 0x20, 0x01, 0x41);
  sleb(g, columnBytes);
  g.push(0x6a, 0x21, 0x01);
  g.push(0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02);
  g.push(0x0c, 0x00, 0x0b, 0x0b, 0x0b);
  // s: params src 0, dst 1, cols 2, rb 3; locals q 4, a 5 (the upper halo), b 6 (the last
  // rows), j 7.
  const sf: number[] = [0x01, 0x04, 0x7f];
  sf.push(0x02, 0x40, 0x03, 0x40);
  sf.push(0x20, 0x02, 0x45, 0x0d, 0x01); // cols == 0: out
  sf.push(0x20, 0x01, 0x20, 0x03, 0x6b, 0x21, 0x05); // a = dst - rb
  sf.push(0x20, 0x05, 0x41);
  sleb(sf, columnBytesOut);
  sf.push(0x6a, 0x21, 0x06); // b = a + n0·8
  sf.push(0x41, 0x00, 0x21, 0x04); // q = 0
  sf.push(0x02, 0x40, 0x03, 0x40);
  sf.push(0x20, 0x04, 0x20, 0x03, 0x4f, 0x0d, 0x01); // q >= rb: out
  sf.push(0x20, 0x05, 0x20, 0x04, 0x6a); // the store's address: a + q
  sf.push(0x20, 0x06, 0x20, 0x04, 0x6a, 0x2b, 0x03, 0x00); // f64.load b + q
  sf.push(0x39, 0x03, 0x00); // f64.store
  sf.push(0x20, 0x04, 0x41, 0x08, 0x6a, 0x21, 0x04); // q += 8
  sf.push(0x0c, 0x00, 0x0b, 0x0b);
  copyColumn(sf, 0x00, 0x01, 0x07);
  sf.push(0x20, 0x00, 0x41);
  sleb(sf, columnBytesOut);
  sf.push(0x6a, 0x21, 0x00, 0x20, 0x01, 0x41);
  sleb(sf, columnBytes);
  sf.push(0x6a, 0x21, 0x01);
  sf.push(0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02);
  sf.push(0x0c, 0x00, 0x0b, 0x0b, 0x0b);
  // h: params src 0, dst 1, cols 2, rb 3; locals q 4, a 5 (the lower halo).
  const h: number[] = [0x01, 0x02, 0x7f];
  h.push(0x02, 0x40, 0x03, 0x40);
  h.push(0x20, 0x02, 0x45, 0x0d, 0x01); // cols == 0: out
  h.push(0x20, 0x01, 0x41);
  sleb(h, columnBytesOut);
  h.push(0x6a, 0x21, 0x05); // a = dst + n0·8
  h.push(0x41, 0x00, 0x21, 0x04); // q = 0
  h.push(0x02, 0x40, 0x03, 0x40);
  h.push(0x20, 0x04, 0x20, 0x03, 0x4f, 0x0d, 0x01); // q >= rb: out
  h.push(0x20, 0x05, 0x20, 0x04, 0x6a); // the store's address: a + q
  h.push(0x20, 0x00, 0x20, 0x04, 0x6a, 0x2b, 0x03, 0x00); // f64.load src + q
  h.push(0x39, 0x03, 0x00); // f64.store
  h.push(0x20, 0x04, 0x41, 0x08, 0x6a, 0x21, 0x04); // q += 8
  h.push(0x0c, 0x00, 0x0b, 0x0b);
  h.push(0x20, 0x00, 0x41);
  sleb(h, columnBytesOut);
  h.push(0x6a, 0x21, 0x00, 0x20, 0x01, 0x41);
  sleb(h, columnBytes);
  h.push(0x6a, 0x21, 0x01);
  h.push(0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02);
  h.push(0x0c, 0x00, 0x0b, 0x0b, 0x0b);
  const vec = (items: number[][]) => {
    const out: number[] = [];
    leb(out, items.length);
    for (const item of items) {
      leb(out, item.length);
      out.push(...item);
    }
    return out;
  };
  const section = (id: number, content: number[]) => {
    const s = [id];
    leb(s, content.length);
    return [...s, ...content];
  };
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // types: (i32, i32, i32) → () and (i32, i32, i32, i32) → ()
    ...section(
      1,
      [0x02, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, 0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x00],
    ),
    ...section(2, [0x01, 0x01, 0x6d, 0x01, 0x6d, 0x02, 0x00, 0x00]), // import m.m: a memory
    ...section(3, [0x04, 0x00, 0x00, 0x01, 0x01]), // f and g of the first type, s and h the second
    // export f, g, s, h
    ...section(
      7,
      [
        0x04, 0x01, 0x66, 0x00, 0x00, 0x01, 0x67, 0x00, 0x01, 0x01, 0x73, 0x00, 0x02, 0x01, 0x68,
        0x00, 0x03,
      ],
    ),
    ...section(10, vec([f, g, sf, h])),
  ]);
}
