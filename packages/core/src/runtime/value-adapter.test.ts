// The worker runtime's value adapter (what @dtask/gpu-tfjs installs to keep tensors on its
// processor): a wrapped function sees converted arguments, a result the adapter sizes stays in
// the runtime even when small, and values leave converted, whether fetched by the scheduler or
// by a peer.
import { afterEach, describe, expect, it } from 'vitest';
import { ExactScope } from '../index.js';
import { type InMemoryRig, inMemoryRig } from '../testing/in-memory-rig.js';
import type { ValueAdapter } from './value-adapter.js';

/** A stand-in for a device value: a box that cannot leave its runtime as it is. */
class Box {
  constructor(readonly xs: number[]) {}
}

function boxAdapter(): ValueAdapter {
  return {
    wrap:
      (fn) =>
      (...args) =>
        fn(...args.map((a) => (Array.isArray(a) ? new Box(a) : a))),
    toWire: (v) => (v instanceof Box ? { unboxed: v.xs } : v),
    keptBytes: (v) => (v instanceof Box ? 8 * v.xs.length : undefined),
  };
}

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

describe('worker runtime value adapter', () => {
  it('converts arguments, keeps sized results in the runtime and converts values leaving it', async () => {
    const rig = (current = inMemoryRig(2, { adapter: boxAdapter }));
    const [a, b] = rig.procs.map((p) => ({ scope: new ExactScope(p) }));
    const boxed = rig.ctx.spawn(a, (x: any) => [x.constructor.name, x.xs.length], [1, 2, 3]);
    expect(await boxed).toEqual(['Box', 3]);
    const kept = rig.ctx.spawn(a, (x: any) => x, [4, 5]); // a Box: small, but kept there
    await kept.wait();
    expect([...rig.runtimes[0].store.values()].some((v) => v instanceof Box)).toBe(true);
    // A peer fetches it: it arrives converted (a plain object, not an array: no second Box).
    const seen = rig.ctx.spawn(b, (x: any) => [x.constructor.name, x.unboxed], kept);
    expect(await seen).toEqual(['Object', [4, 5]]);
    expect(await kept).toEqual({ unboxed: [4, 5] });
  });
});
