// How stencilSteps' per-thread jobs are planned: each step's blocks that touch another
// thread's memory come first in their layout, counted in `early`.
import type { DTask, Processor } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import type { Block } from './kernels.js';
import { planJobs } from './stencil-groups.js';
import type { StencilPlan } from './stencil-plan.js';

describe('planJobs', () => {
  it('lists first the blocks reading another processor’s and those another processor reads', () => {
    const proc = (id: string) => ({ id }) as unknown as Processor;
    const [p, q] = [proc('p'), proc('q')];
    // A row of 6 blocks, 0–2 on p and 3–5 on q; each reads its left and right neighbours.
    const chunks = [p, p, p, q, q, q].map((at) => ({ processor: at }) as unknown as DTask<Block>);
    const plan = {} as StencilPlan;
    const planOf = (_s: number, k: number) => ({
      plan,
      args: [chunks[k - 1], chunks[k + 1]].filter((c) => c !== undefined) as unknown[],
    });
    const jobs = planJobs(chunks, [{ out: chunks, same: 0 }], planOf);
    const layouts = new Map(jobs.map(({ proc, job, own }) => [proc.id, { job, own }]));
    // The block each item writes, as a position in `chunks`.
    const writes = (id: string) => {
      const { job, own } = layouts.get(id) as typeof layouts extends Map<string, infer V>
        ? V
        : never;
      return job.layouts[0].map((item) => own[job.slots[item[1]]]);
    };
    // Block 2 reads block 3 (q's) and q's block 3 reads it: first; 0 and 1 after, in order.
    expect(writes('p')).toEqual([2, 0, 1]);
    expect(layouts.get('p')?.job.early).toEqual([1]);
    expect(writes('q')).toEqual([3, 4, 5]);
    expect(layouts.get('q')?.job.early).toEqual([1]);
  });

  it('a processor whose blocks touch no other’s arrives before sweeping any', () => {
    const p = { id: 'p' } as unknown as Processor;
    const chunks = [0, 1, 2].map(() => ({ processor: p }) as unknown as DTask<Block>);
    const plan = {} as StencilPlan;
    const jobs = planJobs(chunks, [{ out: chunks, same: 0 }], (_s, k) => ({
      plan,
      args: k > 0 ? [chunks[k - 1]] : [],
    }));
    expect(jobs[0].job.early).toEqual([0]);
    expect(jobs[0].job.layouts[0]).toHaveLength(3);
  });
});
