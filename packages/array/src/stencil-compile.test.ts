// A stencil kernel compiled once per function, names and radius: a later call with the same
// ones gets the same result, and one with other names or another radius is checked anew.
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { compileKernel } from './stencil-compile.js';

const jacobi = (at: Record<string, (...o: number[]) => number>) =>
  (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;

describe('compileKernel', () => {
  it('gives the same compiled kernel for the same function, names and radius', () => {
    const a = compileKernel(jacobi, ['A', 'B'], [1, 1], 'first');
    const b = compileKernel(jacobi, ['A', 'B'], [1, 1], 'second');
    expect(b).toBe(a);
    expect(a.simd).not.toBeNull();
    expect([...a.reads.keys()]).toEqual(['A']);
    expect(a.reads.get('A')?.offsets).toEqual([
      [-1, 0],
      [1, 0],
      [0, -1],
      [0, 1],
    ]);
  });

  it('checks the kernel again for other names or another radius', () => {
    const wide = compileKernel(jacobi, ['A'], [2, 2], 'wide');
    expect(compileKernel(jacobi, ['A'], [2, 2], 'again')).toBe(wide);
    expect(compileKernel(jacobi, ['A'], [1, 1], 'narrow')).not.toBe(wide);
    // Names that would join into the same text are told apart.
    expect(() => compileKernel(jacobi, ['A,B'], [1, 1], 'joined')).toThrow(ArgumentError);
    // An offset past the radius fails at every call, after a call with a wider radius passed.
    expect(() => compileKernel(jacobi, ['A'], [0, 1], 'too narrow')).toThrow(/past the radius/);
    expect(() => compileKernel(jacobi, ['A'], [0, 1], 'too narrow')).toThrow(/past the radius/);
    // A new function with the same source is compiled on its own (equal, not the same object).
    const copy = new Function(`return ${jacobi.toString()}`)() as typeof jacobi;
    const fresh = compileKernel(copy, ['A'], [2, 2], 'copy');
    expect(fresh).not.toBe(wide);
    expect(fresh.source).toBe(wide.source);
  });
});
