import { describe, expect, it } from 'vitest';
import { execute, isCompatible } from '../processor/dispatch.js';
import { Context } from '../registry/context.js';
import { FakeProcessor, fakeProcessorPlugin } from './fake-processor.js';

describe('FakeProcessor', () => {
  it('has id fake:<worker>:<n>, numbering unnamed ones per worker', () => {
    const a = new FakeProcessor({ worker: 4, index: 2 });
    const b = new FakeProcessor({ worker: 4 });
    const c = new FakeProcessor();
    expect(a.id).toBe('fake:4:2');
    expect(b.id).toBe('fake:4:3');
    expect(c.id).toMatch(/^fake:1:\d+$/);
    expect(a.getParent()?.id).toBe('os:4');
    expect(a.defaultEnabled).toBe(false);
    expect(new FakeProcessor({ defaultEnabled: true }).defaultEnabled).toBe(true);
  });

  it('is compatible only with the functions it was told about', () => {
    const f = () => 1;
    const g = () => 2;
    const bySet = new FakeProcessor({ worker: 5, compatible: [f] });
    expect(isCompatible(bySet, {}, f, [])).toBe(true);
    expect(isCompatible(bySet, {}, g, [])).toBe(false);
    bySet.allow(g);
    expect(isCompatible(bySet, {}, g, [])).toBe(true);
    const byPredicate = new FakeProcessor({
      worker: 5,
      compatible: (_f, types) => types[0] === 'number',
    });
    expect(byPredicate.isCompatible({}, f, ['number'])).toBe(true);
    expect(byPredicate.isCompatible({}, f, ['string'])).toBe(false);
    expect(new FakeProcessor({ worker: 5 }).isCompatible({}, f, [])).toBe(false);
  });

  it('really runs f, async, after a delay from its injectable timer', async () => {
    const waits: number[] = [];
    const fake = new FakeProcessor({
      worker: 6,
      delayMs: 25,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(await execute(fake, (a: number, b: number) => a * b, [6, 7])).toBe(42);
    await expect(
      execute(fake, () => {
        throw new Error('inside');
      }, []),
    ).rejects.toThrow('inside');
    expect(waits).toEqual([25, 25]);
    expect(fake.executions).toBe(2);
    expect(fake.active).toBe(0);
    expect(fake.ran).toEqual([]); // called outside any task
  });

  it('fakeProcessorPlugin adds its processors; the scheduler records which tasks ran there', async () => {
    const fake = new FakeProcessor({ worker: 7, index: 1, compatible: () => true });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake], 'fakes')] });
    expect(ctx.pluginList()[0].name).toBe('fakes');
    expect(ctx.processors().map((p) => p.id)).toContain(fake.id);
    const t = ctx.spawn({ scope: { worker: 7 } }, () => 'ran');
    expect(await t).toBe('ran');
    expect(fake.ran).toEqual([t.id]);
  });
});
