import { expect, it } from 'vitest';
import { describeOnRigs } from './__fixtures__/rig.js';
import { Blocks, randn } from './index.js';

describeOnRigs('on %s', (rig) => {
  it('randn', async () => {
    const X = randn([40, 40], new Blocks(10, 10), { context: rig.context });
    const x = Array.from((await X.collect()).data);
    expect(x.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * x.length);
    expect(x.every((v) => v !== 0 && Number.isFinite(v))).toBe(true);
    const n = 120_000;
    const big = Array.from(
      (await randn([300, 400], new Blocks(97, 130), { context: rig.context, seed: 5 }).collect())
        .data,
    );
    const mean = big.reduce((a, b) => a + b, 0) / n;
    const variance = big.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
    const within = big.filter((v) => Math.abs(v) < 1).length / n;
    // Standard errors at n = 120 000: mean 0.003, variance 0.004, share 0.0013.
    expect(Math.abs(mean)).toBeLessThan(0.015);
    expect(Math.abs(variance - 1)).toBeLessThan(0.02);
    expect(Math.abs(within - 0.682689)).toBeLessThan(0.007);
    const again = Array.from(
      (await randn([300, 400], new Blocks(97, 130), { context: rig.context, seed: 5 }).collect())
        .data,
    );
    expect(again).toEqual(big);
    const fresh = Array.from(
      (await randn([40, 40], new Blocks(10, 10), { context: rig.context }).collect()).data,
    );
    expect(fresh).not.toEqual(x);
    const single = await randn([33, 7], new Blocks(8, 7), {
      context: rig.context,
      dtype: 'float32',
    }).collect();
    expect(single.data).toBeInstanceOf(Float32Array);
    for (const dtype of ['int32', 'uint8'] as const) {
      expect(() => randn([4], new Blocks(2), { context: rig.context, dtype })).toThrow(
        expect.objectContaining({ code: 'DTASK_DTYPE', op: 'randn', dtype }),
      );
    }
  });
});
