import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../errors/errors.js';
import { DTaskFailedError } from '../../errors/task-failed-error.js';
import { Context } from '../../registry/context.js';

const gc = (globalThis as { gc?: () => void }).gc;

describe('the device task option (results made on the main thread)', () => {
  it('keeps the result on the named device; fetch and dependents read it from there', async () => {
    await using ctx = new Context();
    const device = ctx.storageDevice('ram')!; // each context has a RAM device of its own
    const t = ctx.spawn({ device: 'ram' }, () => new Float64Array(100).fill(7));
    await t.wait();
    expect(device.usage().entries).toBe(1);
    expect((await t)[99]).toBe(7);
    const sum = ctx.spawn((xs: Float64Array) => xs.reduce((a, b) => a + b, 0), t);
    expect(await sum).toBe(700);
    expect(((await t.fetch({ raw: true })) as { bytes?: number }).bytes).toBe(800);
  });

  it('a device name the context does not have fails the task with an ArgumentError', async () => {
    await using ctx = new Context();
    const t = ctx.spawn({ device: 'nowhere' }, () => 1);
    const error = await t.fetch().then(
      () => expect.fail('should fail'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect((error as DTaskFailedError).cause).toBeInstanceOf(ArgumentError);
    expect(String((error as DTaskFailedError).cause)).toMatch(/no storage device named 'nowhere'/);
  });

  it('a device that refuses the value leaves it in memory, readable, with a warning', async () => {
    await using ctx = new Context();
    const device = ctx.storageDevice('ram')!;
    device.put = () => Promise.reject(new Error('full'));
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const t = ctx.spawn({ device: 'ram' }, () => ({ kept: true }));
    expect(await t).toEqual({ kept: true });
    expect((await warned).message).toMatch(/stays in memory/);
  });

  it.runIf(gc)('the entry is deleted once the task is collected', async () => {
    await using ctx = new Context();
    const device = ctx.storageDevice('ram')!; // each context has a RAM device of its own
    await (async () => {
      const t = ctx.spawn({ device: 'ram' }, () => new Float64Array(10));
      await t;
      expect(device.usage().entries).toBe(1);
    })();
    for (let i = 0; i < 50 && device.usage().entries > 0; i++) {
      gc?.();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(device.usage().entries).toBe(0);
  });
});
