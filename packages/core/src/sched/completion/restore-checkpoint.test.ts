import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';

describe('the restore task option', () => {
  it('a saved result skips running the task', async () => {
    await using ctx = new Context();
    let ran = false;
    const t = ctx.spawn({ restore: () => 41 }, () => {
      ran = true;
      return 1;
    });
    expect(await t).toBe(41);
    expect(ran).toBe(false);
  });

  it('a restore that throws runs the task and warns (regression: it failed the task)', async () => {
    await using ctx = new Context();
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const t = ctx.spawn(
      {
        restore: () => {
          throw new Error('disk gone');
        },
      },
      () => 7,
    );
    expect(await t).toBe(7);
    expect((await warned).message).toMatch(/restore of task #\d+ failed.*disk gone/);
  });

  it('a restore that rejects runs the task and warns', async () => {
    await using ctx = new Context();
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const t = ctx.spawn({ restore: () => Promise.reject(new Error('late')) }, () => 8);
    expect(await t).toBe(8);
    expect((await warned).message).toMatch(/restore of task #\d+ failed.*late/);
  });
});
