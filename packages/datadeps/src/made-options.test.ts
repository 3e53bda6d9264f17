import { currentTaskQueue, type DTask } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig, sharedF64 } from './__fixtures__/harness.js';
import type { DatadepsRegion } from './datadeps-region.js';
import { In, InOut, spawnDatadeps } from './index.js';
import { MadeOptions } from './made-options.js';

type Options = DTask<unknown>['options'];

describe('MadeOptions', () => {
  it('gives options holding the same values the same slots, whatever their object', () => {
    const cache = new MadeOptions();
    const scope = {};
    const a = cache.slots({ priority: 3, scope } as Options);
    expect(cache.slots({ priority: 3, scope } as Options)).toBe(a);
    expect(cache.slots({ priority: 4, scope } as Options)).not.toBe(a);
    expect(cache.slots({ priority: 3, scope: {} } as Options)).not.toBe(a);
    expect(cache.slots({ priority: 3 } as Options)).not.toBe(a);
    expect(cache.slots({} as Options)).toBe(cache.slots({} as Options));
  });

  it('does not cache a -0 (a map cannot tell it from 0)', () => {
    const cache = new MadeOptions();
    expect(cache.slots({ priority: -0 } as Options)).toBeUndefined();
    expect(cache.slots({ priority: 0 } as Options)).toBeDefined();
  });

  it('keeps at most its limit of entries, then caches nothing more', () => {
    const cache = new MadeOptions(100);
    for (let i = 0; i < 1000; i++) cache.slots({ priority: i } as Options);
    expect(cache.size).toBe(100);
    expect(cache.slots({ priority: 5 } as Options)).toBeDefined();
    expect(cache.slots({ priority: 500 } as Options)).toBeUndefined();
  });
});

describe('a region of tasks each spawned with an options object of its own', () => {
  it('shares one options object among tasks with equal options; its cache stays bounded', async () => {
    const { ctx, k } = await rig();
    const chains = 8;
    const xs = Array.from({ length: chains }, () => sharedF64(4));
    const one = sharedF64(4, () => 1);
    const tasks: DTask<unknown>[] = [];
    let cached = -1;
    await spawnDatadeps(() => {
      for (let i = 0; i < 400; i++) {
        tasks.push(ctx.spawn({ priority: i % 4 }, k.addInto, InOut(xs[i % chains]), In(one)));
      }
      cached = (currentTaskQueue() as DatadepsRegion).optionsCached;
    });
    // One entry per priority value, not one per task.
    expect(cached).toBe(4);
    for (let i = 4; i < tasks.length; i++) expect(tasks[i].options).toBe(tasks[i - 4].options);
    for (const x of xs) expect([...x]).toEqual([50, 50, 50, 50]);
  });

  it('keeps a bounded cache when every task has options of different values', async () => {
    const { ctx, k } = await rig();
    const x = sharedF64(4);
    const one = sharedF64(4, () => 1);
    let cached = -1;
    await spawnDatadeps(() => {
      for (let i = 0; i < 1100; i++) ctx.spawn({ priority: i }, k.addInto, InOut(x), In(one));
      cached = (currentTaskQueue() as DatadepsRegion).optionsCached;
    });
    expect(cached).toBe(1024);
    expect([...x]).toEqual([1100, 1100, 1100, 1100]);
  });
});
