// Class instances between processes: a class loaded with everywhere() arrives as an instance of
// that class, as an argument and as a result (from a worker to the scheduler and to another
// worker); an unregistered one is a typed error naming the class, never a silent plain object.
import {
  ArgumentError,
  type DTaskFailedError,
  everywhere,
  scope,
  UnsupportedError,
} from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';

type Shapes = typeof import('../../core/src/task/__fixtures__/shapes.mjs');

class Local {
  constructor(readonly v: number) {}
}

describe('cluster: class instances', () => {
  it('registered classes travel as instances; unregistered ones are typed errors', async () => {
    await using r = await clusterRig();
    await everywhere(
      new URL('../../core/src/task/__fixtures__/shapes.mjs', import.meta.url),
      r.ctx,
    );
    const shapes = (await import('../../core/src/task/__fixtures__/shapes.mjs')) as Shapes;
    const [a, b] = r.plugin.processWorkers().map((w) => ({ scope: scope({ worker: w.worker }) }));
    const p = new shapes.Point(3, 4);
    expect(await r.ctx.spawn(a!, shapes.describePoint, p)).toEqual([true, 5, 'Point']);
    const made = await r.ctx.spawn(a!, shapes.makePoint, 6, 8);
    expect(made).toBeInstanceOf(shapes.Point);
    const segs = r.ctx.spawn(a!, shapes.segmentsOf, [p, made]);
    const lengths = await r.ctx.spawn(
      b!,
      (s: InstanceType<Shapes['Segment']>[]) => s.map((x) => x.length()),
      segs,
    );
    expect(lengths).toEqual([5]);
    expect((await segs)[0]).toBeInstanceOf(shapes.Segment);

    const arg = await r.ctx.spawn(a!, (x: unknown) => x, new Local(1)).catch((e: unknown) => e);
    expect(ArgumentError.isInstance((arg as DTaskFailedError).cause)).toBe(true);
    expect(String((arg as DTaskFailedError).cause)).toMatch(/is an instance of class Local/);
    const result = await r.ctx.spawn(a!, () => new (class Hidden {})()).catch((e: unknown) => e);
    expect(UnsupportedError.isInstance((result as DTaskFailedError).cause)).toBe(true);
    expect(String((result as DTaskFailedError).cause)).toMatch(/class Hidden/);
  });
});
