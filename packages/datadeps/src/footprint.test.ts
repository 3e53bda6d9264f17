import { describe, expect, it } from 'vitest';
import { stridedFootprint } from './aliasing.js';
import { footprintsOverlap } from './footprint.js';
import { intervalsOverlap } from './intervals.js';
import { strided } from './strided-view.js';
import { view } from './view.js';

describe('footprints of matrix blocks (grids)', () => {
  it('the constant-time grid test agrees with the interval lists for every pair of blocks', () => {
    const A = strided(new Float64Array(new SharedArrayBuffer(8 * 64)), [8, 8]);
    const spans: [number, number][] = [
      [0, 1],
      [0, 3],
      [1, 4],
      [2, 3],
      [3, 8],
      [5, 7],
      [7, 8],
      [0, 8],
    ];
    const blocks: unknown[] = [];
    for (const r of spans) for (const c of spans) blocks.push(view(A, r, c));
    let grids = 0;
    let overlaps = 0;
    for (const x of blocks) {
      for (const y of blocks) {
        const a = stridedFootprint(x as never, undefined);
        const b = stridedFootprint(y as never, undefined);
        if (a.grid !== undefined && b.grid !== undefined) grids++;
        const exact = intervalsOverlap(a.iv, b.iv);
        if (exact) overlaps++;
        expect(footprintsOverlap(a, b), `${JSON.stringify(x)} / ${JSON.stringify(y)}`).toBe(exact);
      }
    }
    // Blocks of 2 rows or more that are not whole rows are grids: 5 row spans × 7 column
    // spans, so 35² pairs took the grid path; both outcomes occurred.
    expect(grids).toBe(35 * 35);
    expect(overlaps).toBeGreaterThan(0);
    expect(overlaps).toBeLessThan(blocks.length * blocks.length);
  });

  it('the same layout seen again, through a new view object, reuses its footprint', () => {
    const A = strided(new Float64Array(new SharedArrayBuffer(8 * 64)), [8, 8]);
    const first = stridedFootprint(view(A, [0, 4], [4, 8]) as never, undefined);
    const again = stridedFootprint(view(A, [0, 4], [4, 8]) as never, undefined);
    const other = stridedFootprint(view(A, [4, 8], [4, 8]) as never, undefined);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });
});
