import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { sizeOf } from './size-of.js';

describe('sizeOf', () => {
  it('counts binary data by its byteLength, views only their own bytes', () => {
    expect(sizeOf(new ArrayBuffer(100))).toBe(100);
    expect(sizeOf(new SharedArrayBuffer(64))).toBe(64);
    expect(sizeOf(new Float64Array(10))).toBe(80);
    expect(sizeOf(new Int32Array(new ArrayBuffer(400), 40, 5))).toBe(20);
    expect(sizeOf(new DataView(new ArrayBuffer(32), 8))).toBe(24);
    expect(sizeOf(Buffer.from('hello'))).toBe(5);
    expect(sizeOf(new Uint8Array(8 * 1024 * 1024))).toBe(8 * 1024 * 1024);
  });

  it('counts primitives', () => {
    expect(sizeOf(null)).toBe(0);
    expect(sizeOf(undefined)).toBe(0);
    expect(sizeOf(42)).toBe(8);
    expect(sizeOf(true)).toBe(8);
    expect(sizeOf(new Date())).toBe(8);
    expect(sizeOf('')).toBe(16);
    expect(sizeOf('abcd')).toBe(16 + 8);
    expect(sizeOf(2n ** 100n)).toBe(8 + 16);
    expect(sizeOf(() => 1)).toBe(0);
  });

  it('sums arrays, objects, Maps and Sets', () => {
    expect(sizeOf([])).toBe(16);
    expect(sizeOf([1, 2, 3])).toBe(16 + 24);
    expect(sizeOf({ ab: 1 })).toBe(16 + 4 + 8);
    expect(sizeOf({ a: { b: 'xy' } })).toBe(16 + 2 + 16 + 2 + 16 + 4);
    expect(sizeOf(new Map([['k', 1]]))).toBe(16 + 18 + 8);
    expect(sizeOf(new Set([1, 2]))).toBe(16 + 16);
    expect(sizeOf({ data: new Float64Array(1000) })).toBe(16 + 8 + 8000);
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    expect(sizeOf(new Point(1, 2))).toBe(16 + 2 + 8 + 2 + 8);
  });

  it('survives cycles and counts an object reached twice once', () => {
    const node: { self?: unknown; list: unknown[] } = { list: [] };
    node.self = node;
    node.list.push(node, node.list);
    expect(sizeOf(node)).toBe(16 + 8 + 8 + 16);
    const shared = new Float64Array(1000);
    expect(sizeOf([shared, shared, shared])).toBe(16 + 8000);
    const map = new Map<string, unknown>();
    map.set('me', map);
    expect(sizeOf(map)).toBe(16 + 20);
  });

  it('counts an object reached twice once before and after the walk has reached many', () => {
    const shared = new Float64Array(100);
    const few = { a: shared, b: shared, shape: [4, 4] };
    expect(sizeOf(few)).toBe(16 + 2 + 800 + 2 + 0 + 10 + 16 + 16);
    // 40 distinct views, then the first again, and a cycle back to the top: each counted once.
    const views = Array.from({ length: 40 }, () => new Float64Array(2));
    const many: unknown[] = [...views, views[0], views[39]];
    many.push(many);
    expect(sizeOf(many)).toBe(16 + 40 * 16);
    const top: { list: unknown[]; again?: unknown } = { list: views };
    top.again = top;
    expect(sizeOf(top)).toBe(16 + 8 + 16 + 40 * 16 + 10);
  });

  it('extrapolates a huge array from a sample, reading only the sample', () => {
    const numbers = new Array(10_000_000).fill(1.5);
    expect(sizeOf(numbers)).toBe(16 + 8 * 10_000_000);
    const plain = Array.from({ length: 1_000_000 }, (_, i) => ({ id: i, name: 'n' }));
    let reads = 0;
    const records = new Proxy(plain, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const estimate = sizeOf(records);
    const exact = 16 + 1_000_000 * (16 + 4 + 8 + 8 + 18);
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.01);
    // The records past the sample are extrapolated, never read.
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(2_000);
  });

  it('extrapolates huge Maps and Sets too', () => {
    const map = new Map(Array.from({ length: 200_000 }, (_, i) => [i, i] as const));
    const set = new Set(Array.from({ length: 200_000 }, (_, i) => i));
    expect(sizeOf(map)).toBe(16 + 16 * 200_000);
    expect(sizeOf(set)).toBe(16 + 8 * 200_000);
  });

  it('stops at a depth limit instead of overflowing the stack', () => {
    let list: unknown = null;
    for (let i = 0; i < 100_000; i++) list = { next: list };
    const size = sizeOf(list);
    expect(size).toBeGreaterThan(0);
    expect(Number.isFinite(size)).toBe(true);
  });

  it('does not throw on a throwing getter', () => {
    const hostile = {
      get boom(): number {
        throw new Error('no');
      },
    };
    expect(sizeOf(hostile)).toBe(16);
  });

  it('reads each part of a small value once', () => {
    let reads = 0;
    const value = new Proxy(
      { id: 1, name: 'task', args: [1, 2, 3] },
      {
        get(target, key, receiver) {
          reads++;
          return Reflect.get(target, key, receiver);
        },
      },
    );
    const size = sizeOf(value);
    expect(size).toBe(sizeOf({ id: 1, name: 'task', args: [1, 2, 3] }));
    expect(reads).toBeLessThanOrEqual(3);
  });
});
