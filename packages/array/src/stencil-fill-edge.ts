// Fills a padded buffer's halo past an edge of the whole array from its boundary condition, for
// the stencil's block kernel and stacker. Self-contained: linked into their source (see
// kernel-link.ts), which travels as text.
import type { FillEdge } from './stencil-prepared.js';

/**
 * Fills the halo of `buf` past one edge of the array along `d` (`high`: the far one) from
 * `input`'s boundary condition. Corners: the conditions apply dimension by dimension, in order,
 * each over the values the earlier ones filled; LinearExtrapolate extrapolates along the first
 * dimension past an edge only and clamps along later ones (as Dagger's).
 */
export const stencilFillEdge: FillEdge = (buf, input, d, high, plan, prep) => {
  const { shape, radius } = plan;
  const { P, PS, total, pos } = prep;
  const nd = shape.length;
  const bc = input.bc[d];
  const r = radius[d];
  const st = PS[d];
  const e = high ? r + shape[d] - 1 : r;
  const dir = high ? 1 : -1;
  const skip = bc.symmetric ? 0 : 1;
  if (nd === 2) {
    // Two dimensions, the common case: a line per position `l` along the other dimension `x`,
    // without the general odometer (per line it cost more than the line's own writes).
    const x = 1 - d;
    const sx = PS[x];
    const n = P[x];
    const kind = bc.kind;
    if (kind === 'pad') {
      const value = bc.value as number;
      for (let l = 0, base = 0; l < n; l++, base += sx) {
        for (let k = 1; k <= r; k++) buf[base + (e + dir * k) * st] = value;
      }
      return;
    }
    const lowX = input.low[x];
    const highX = input.high[x];
    const linearX = input.bc[x].kind === 'linear';
    for (let l = 0, base = 0; l < n; l++, base += sx) {
      const edge = buf[base + e * st];
      // Past an edge along an earlier dimension with its own extrapolation: clamped.
      const linear =
        kind === 'linear' &&
        !(x < d && linearX && ((lowX && l < radius[x]) || (highX && l >= radius[x] + shape[x])));
      for (let k = 1; k <= r; k++) {
        let v: number;
        if (kind === 'clamp' || (kind === 'linear' && !linear)) v = edge;
        else if (linear) v = edge + k * (edge - buf[base + (e - dir) * st]);
        else {
          v = buf[base + (e - dir * (k - 1 + skip)) * st];
          if (kind === 'antireflect') v = -v;
        }
        buf[base + (e + dir * k) * st] = v;
      }
    }
    return;
  }
  pos.fill(0);
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
        if (bc.kind === 'antireflect') v = -v;
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
