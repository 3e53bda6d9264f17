// Copies a block (or the frame of one) into a padded buffer, for the stencil's block kernel and
// stacker. Self-contained: linked into their source (see kernel-link.ts), which travels as text.
import type { CopyBox } from './stencil-prepared.js';

/**
 * Copies `src` into `buf` at `origin` (`PS`: the padded buffer's strides); with `frame`, only the
 * elements within `frame[d]` of an edge along some dimension (the rest of an own block is read
 * in place). Kept per thread as one function, not a closure per task: a new closure per block
 * ran several times slower, its strips' short loops included.
 */
export const stencilCopyBox: CopyBox = (src, buf, origin, frame, PS) => {
  const nd = PS.length;
  const sh = src.shape;
  if (nd === 2) {
    // Two dimensions, the common case, without the general odometer: a block's frame and
    // the faces along dimension 0 are many rows of an element or two each, where the
    // per-row work is the cost (64 blocks of 512² spent 6× what 8 blocks did here).
    const [n0, n1] = sh;
    const [s0, s1] = src.strides;
    const data = src.data;
    const P1 = PS[1];
    const f0 = frame === null ? 0 : frame[0];
    const f1 = frame === null ? 0 : frame[1];
    const all = frame === null || n0 <= 2 * f0;
    if (all && n0 === 1) {
      // A row (a halo strip along dimension 0 of radius 1): one element per column, in one
      // strided loop (the general loop's per-column set-up cost it more than its reads).
      for (let j = 0, s = src.offset, t = origin[0] + origin[1] * P1; j < n1; j++) {
        buf[t] = data[s];
        s += s1;
        t += P1;
      }
      return;
    }
    for (let j = 0; j < n1; j++) {
      const s = src.offset + j * s1;
      const t = origin[0] + (origin[1] + j) * P1;
      if (all || j < f1 || j >= n1 - f1) for (let i = 0; i < n0; i++) buf[t + i] = data[s + i * s0];
      else {
        for (let i = 0; i < f0; i++) buf[t + i] = data[s + i * s0];
        for (let i = n0 - f0; i < n0; i++) buf[t + i] = data[s + i * s0];
      }
    }
    return;
  }
  const idx = new Array(nd).fill(0);
  const run = sh[0];
  let count = 1;
  for (const s of sh) count *= s;
  for (let k = 0; k < count; k += run) {
    let s = src.offset;
    let t = origin[0];
    for (let d = 0; d < nd; d++) s += idx[d] * src.strides[d];
    for (let d = 1; d < nd; d++) t += (origin[d] + idx[d]) * PS[d];
    let whole = frame === null || run <= 2 * frame[0];
    for (let d = 1; d < nd && !whole; d++) {
      if (idx[d] < (frame as number[])[d] || idx[d] >= sh[d] - (frame as number[])[d]) whole = true;
    }
    const st = src.strides[0];
    if (whole) for (let i = 0; i < run; i++) buf[t + i] = src.data[s + i * st];
    else {
      const f = (frame as number[])[0];
      for (let i = 0; i < f; i++) buf[t + i] = src.data[s + i * st];
      for (let i = run - f; i < run; i++) buf[t + i] = src.data[s + i * st];
    }
    for (let d = 1; d < nd; d++) {
      if (++idx[d] < sh[d]) break;
      idx[d] = 0;
    }
  }
};
