import { describe, expect, it } from 'vitest';
import { transferablesOf } from './hand-over.js';

describe('transferablesOf', () => {
  it('finds the buffers of typed arrays, ArrayBuffers, and those one level down', () => {
    const a = new Float64Array(4);
    const b = new ArrayBuffer(8);
    const c = new Uint8Array(16);
    expect(transferablesOf(a, [])).toEqual([a.buffer]);
    expect(transferablesOf(b, [])).toEqual([b]);
    expect(transferablesOf([a, { x: 1 }], [])).toEqual([a.buffer]);
    expect(transferablesOf({ a, c, n: 3 }, [])).toEqual([a.buffer, c.buffer]);
  });

  it('leaves out shared memory, partial views, and buffers something else still holds', () => {
    const shared = new Float64Array(new SharedArrayBuffer(32));
    expect(transferablesOf(shared, [])).toBeUndefined();
    const whole = new ArrayBuffer(64);
    expect(transferablesOf(new Uint8Array(whole, 8, 8), [])).toBeUndefined();
    const a = new Float64Array(4);
    expect(transferablesOf(a, [[new Uint8Array(a.buffer)]])).toBeUndefined();
    expect(transferablesOf(a, [a])).toBeUndefined();
    expect(transferablesOf(a, [new Float64Array(2)])).toEqual([a.buffer]);
    expect(transferablesOf(42, [])).toBeUndefined();
    expect(transferablesOf(new Map([[1, a]]), [])).toBeUndefined();
  });
});
