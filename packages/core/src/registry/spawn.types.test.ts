import { describe, expectTypeOf, it } from 'vitest';
import type { Chunk, DTask } from '../index.js';
import { spawn } from '../index.js';
import type { PieceChunk } from '../plugin.js';

// Type-level contract of spawn (API.md): argument and result types are inferred, and any
// argument may be given as a DTask or Chunk of its type. Checked by tsc (npm test runs it).
describe('spawn typing', () => {
  it('infers the result type, unwrapping promises', () => {
    expectTypeOf(spawn((x: number) => x + 1, 1)).toEqualTypeOf<DTask<number>>();
    expectTypeOf(spawn(async (s: string) => s.length, 'ab')).toEqualTypeOf<DTask<number>>();
    expectTypeOf(spawn({ name: 'n' }, (a: number, b: string) => `${a}${b}`, 1, 'x')).toEqualTypeOf<
      DTask<string>
    >();
  });

  it('accepts a DTask or Chunk wherever a value of that type goes', () => {
    const n = spawn(() => 1);
    const s = spawn((a: number, b: number) => a + b, n, 2);
    expectTypeOf(s).toEqualTypeOf<DTask<number>>();
    const chunk = null as unknown as Chunk<number>;
    expectTypeOf(spawn((a: number) => a, chunk)).toEqualTypeOf<DTask<number>>();
    const text = spawn(() => 'x');
    // @ts-expect-error a DTask<string> is not a number
    spawn((a: number) => a, text);
    // @ts-expect-error wrong argument type
    spawn((a: number) => a, 'x');
  });

  it('accepts a chunk of one piece per processor (a shard) where a piece goes', () => {
    const pieces = null as unknown as PieceChunk<{ n: number }>;
    expectTypeOf(spawn((p: { n: number }, by: number) => p.n + by, pieces, 1)).toEqualTypeOf<
      DTask<number>
    >();
    // @ts-expect-error its pieces are not strings
    spawn((s: string) => s, pieces);
    // @ts-expect-error a plain chunk of another type is still rejected
    spawn((a: number) => a, null as unknown as Chunk<string>);
  });
});
