// The sweeps' runner on one thread: a thread arrives at a step's barrier once the blocks listed
// first (those touching another thread's memory) are done, before it sweeps the rest.
import { describe, expect, it } from 'vitest';
import type { Block } from './kernels.js';
import type { StencilPlan } from './stencil-plan.js';
import { type SweepArgs, sweepsRunner } from './stencil-sweeps-runner.js';

describe('sweepsRunner', () => {
  it('arrives at each step’s barrier after the step’s early blocks and before its other blocks', async () => {
    const sync = new Int32Array(new SharedArrayBuffer(8));
    const seen: string[] = [];
    // Each item is named by its block's offset; the kernel notes the barrier's count.
    const kernel = (_plan: StencilPlan, out: Block) => {
      seen.push(`${out.offset}@${Atomics.load(sync, 0)}`);
      return null;
    };
    const item = (k: number): SweepArgs => [
      {} as StencilPlan,
      { data: new Float64Array(1), shape: [1], strides: [1], offset: k },
    ];
    const layouts = [[item(0), item(1), item(2)], [item(3)]];
    const runner = sweepsRunner(kernel);
    // Layout 0 has two early blocks, layout 1 none: it arrives before its only block.
    const done = runner({ sync, parties: 1, steps: [0, 1, 0], argsOf: layouts, early: [2, 0] });
    expect(done).toBeNull();
    expect(seen).toEqual(['0@0', '1@0', '2@1', '3@2', '0@2', '1@2', '2@3']);
    expect(Atomics.load(sync, 0)).toBe(3);
  });

  it('a block kernel giving a promise in either part arrives once and goes on in order', async () => {
    const sync = new Int32Array(new SharedArrayBuffer(8));
    const seen: string[] = [];
    const kernel = (_plan: StencilPlan, out: Block) => {
      seen.push(`${out.offset}@${Atomics.load(sync, 0)}`);
      return out.offset % 2 === 0 ? Promise.resolve(null) : null;
    };
    const item = (k: number): SweepArgs => [
      {} as StencilPlan,
      { data: new Float64Array(1), shape: [1], strides: [1], offset: k },
    ];
    const runner = sweepsRunner(kernel);
    const done = runner({
      sync,
      parties: 1,
      steps: [0, 0],
      argsOf: [[item(0), item(1), item(2), item(3)]],
      early: [2],
    });
    expect(done).not.toBeNull();
    await done;
    expect(seen).toEqual(['0@0', '1@0', '2@1', '3@1', '0@1', '1@1', '2@2', '3@2']);
    expect(Atomics.load(sync, 0)).toBe(2);
  });

  it('a block that throws after the thread arrived marks the barrier failed', () => {
    const sync = new Int32Array(new SharedArrayBuffer(8));
    const kernel = (_plan: StencilPlan, out: Block) => {
      if (out.offset === 1) throw new Error('late block failed');
      return null;
    };
    const item = (k: number): SweepArgs => [
      {} as StencilPlan,
      { data: new Float64Array(1), shape: [1], strides: [1], offset: k },
    ];
    const runner = sweepsRunner(kernel);
    expect(() =>
      runner({ sync, parties: 2, steps: [0, 0], argsOf: [[item(0), item(1)]], early: [1] }),
    ).toThrow('late block failed');
    expect(Atomics.load(sync, 1)).toBe(1);
  });
});
