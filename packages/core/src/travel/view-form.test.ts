// Strided views in a run message's compact form: compacted, cloned as a message is and expanded,
// a view arrives as structured cloning would give it (same keys in the same order, same element
// type, the same shared memory); a value that would not arrive exactly so is not compacted.
import { describe, expect, it } from 'vitest';
import { compactView, expandView } from './view-form.js';

/** `value` as the receiver of a message gets it: compacted, structured-cloned, expanded. */
function overTheWire(value: object): unknown {
  const compact = compactView(value);
  if (compact === undefined) throw new Error('expected a compact form');
  return expandView(structuredClone(compact));
}

const shared = new Float64Array(new SharedArrayBuffer(8 * 64));

describe('compact strided views', () => {
  it('arrive as cloning gives them, over the same shared memory, for 0 to 8 dimensions', () => {
    const views = [
      { data: shared, shape: [4, 4], strides: [8, 1], offset: 9 },
      { data: shared, shape: [], strides: [], offset: 3 },
      { data: shared, shape: [5], strides: [-2], offset: 10 },
      { data: shared, shape: [2, 2, 2], strides: [16, 4, 1], offset: 0 },
      {
        data: shared,
        shape: [1, 1, 1, 1, 1, 1, 1, 2],
        strides: [0, 0, 0, 0, 0, 0, 0, 1],
        offset: 1,
      },
      { data: new Int8Array(6), shape: [2, 3], strides: [3, 1], offset: -0 },
    ];
    for (const view of views) {
      const got = overTheWire(view) as typeof view;
      expect(got).toEqual(structuredClone(view));
      expect(Object.keys(got)).toEqual(['data', 'shape', 'strides', 'offset']);
      expect(Object.is(got.offset, view.offset)).toBe(true);
      expect(got.data.constructor).toBe(view.data.constructor);
    }
    const got = overTheWire(views[0]) as (typeof views)[0];
    got.data[9] = 42;
    expect(shared[9]).toBe(42); // the same elements, not a copy
  });

  it('leaves alone what would not arrive exactly: other keys, order, kinds or sizes', () => {
    const inherited = Object.create({ extra: 1 });
    Object.assign(inherited, { data: shared, shape: [1], strides: [1], offset: 0 });
    class View {
      data = shared;
      shape = [1];
      strides = [1];
      offset = 0;
    }
    const notCompacted: object[] = [
      { data: shared, shape: [1], strides: [1], offset: 0, name: 'x' },
      { shape: [1], data: shared, strides: [1], offset: 0 },
      { data: shared, shape: [1], strides: [1] },
      inherited,
      new View(),
      { data: [1, 2], shape: [2], strides: [1], offset: 0 },
      { data: new DataView(new ArrayBuffer(8)), shape: [8], strides: [1], offset: 0 },
      { data: shared, shape: [2, 2], strides: [1], offset: 0 },
      {
        data: shared,
        shape: Object.assign(new Array(3), { 0: 1, 2: 1 }),
        strides: [1, 1, 1],
        offset: 0,
      },
      { data: shared, shape: ['2'], strides: [1], offset: 0 },
      { data: shared, shape: [1], strides: [1], offset: '0' },
      { data: shared, shape: new Array(9).fill(1), strides: new Array(9).fill(0), offset: 0 },
      [shared, [1], [1], 0],
    ];
    for (const value of notCompacted) expect(compactView(value)).toBeUndefined();
  });

  it('leaves alone, without throwing, what throws when looked at: getters, proxies, revoked proxies', () => {
    const boom = () => {
      throw new Error('boom');
    };
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const throwing: object[] = [
      {
        get data() {
          throw new Error('getter boom');
        },
        shape: [1],
        strides: [1],
        offset: 0,
      },
      new Proxy({ data: shared, shape: [1], strides: [1], offset: 0 }, { get: boom }),
      new Proxy({ a: 1 }, { ownKeys: boom }),
      new Proxy({ a: 1 }, { getPrototypeOf: boom }),
      revoked.proxy,
    ];
    for (const value of throwing) expect(compactView(value)).toBeUndefined();
  });

  it('expands only its own form: other arrays and values come back as they are', () => {
    const values = [[1, 2, 3], ['data', shared, 0, 1, 1], { data: shared }, 'x', 5, null];
    for (const value of values) expect(expandView(value)).toBe(value);
  });
});
