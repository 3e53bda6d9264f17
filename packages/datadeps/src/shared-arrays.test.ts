import { describe, expect, it } from 'vitest';
import { In, InOut } from './annotations.js';
import type { Footprint } from './footprint.js';
import { sharedFootprints } from './shared-arrays.js';

/** `sharedFootprints` of `args`: the written bits, the footprints and the values passed. */
function analyse(args: unknown[]) {
  const footprints: (Footprint | undefined)[] = new Array(args.length);
  const values: unknown[] = [];
  const written = sharedFootprints(args, footprints, values);
  return { written, footprints, values };
}

describe('sharedFootprints', () => {
  it('gives a typed array over shared memory the same footprint every time (made once)', () => {
    const x = new Float64Array(new SharedArrayBuffer(8 * 16), 8 * 4, 8);
    const first = analyse([InOut(x), In(x)]);
    const second = analyse([x]);
    expect(first.written).toBe(1);
    expect(first.values).toEqual([x, x]);
    expect(first.footprints[0]).toBe(first.footprints[1]);
    expect(second.footprints[0]).toBe(first.footprints[0]);
    expect(first.footprints[0]).toMatchObject({ root: x.buffer, lo: 32, hi: 96 });
  });

  it('reads a view over growable shared memory anew: a length-tracking view grows with it', () => {
    // Growable shared memory (ES2024; the project's lib is ES2023).
    const Growable = SharedArrayBuffer as unknown as new (
      bytes: number,
      options: { maxByteLength: number },
    ) => SharedArrayBuffer & { grow(bytes: number): void };
    const buffer = new Growable(8 * 4, { maxByteLength: 8 * 64 });
    const x = new Float64Array(buffer);
    expect(analyse([x]).footprints[0]).toMatchObject({ lo: 0, hi: 32 });
    buffer.grow(8 * 32);
    expect(analyse([x]).footprints[0]).toMatchObject({ lo: 0, hi: 256 });
  });

  it('leaves arrays over ordinary memory to the full analysis, kept or not', () => {
    const shared = new Float64Array(new SharedArrayBuffer(8 * 4));
    const plain = new Float64Array(4);
    expect(analyse([shared, plain]).written).toBe(-1);
    expect(analyse([plain]).written).toBe(-1);
    expect(analyse([In(shared)]).written).toBe(0);
  });
});
