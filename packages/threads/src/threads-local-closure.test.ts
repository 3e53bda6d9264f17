// A task function kept on the main thread (it closes over a local variable)
// while worker threads exist is reported once per context, naming the variables and the two
// fixes; `localClosures: 'error'` makes it an error.
import { Context, TaskFunctionError } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { threads } from './index.js';

const open: Context[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function context(localClosures?: 'warn' | 'error' | 'allow'): Promise<Context> {
  const ctx = new Context({
    plugins: [threads({ count: 1 })],
    ...(localClosures ? { localClosures } : {}),
  });
  open.push(ctx);
  await ctx.ready();
  return ctx;
}

/** Warnings with `code` emitted while `f` runs (and the ticks after it). */
async function warningsDuring(code: string, f: () => Promise<void>): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (w: Error & { code?: string }) => {
    if (w.code === code) seen.push(w);
  };
  process.on('warning', listener);
  try {
    await f();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

describe('a closure kept on the main thread while threads exist', () => {
  it('warns once, naming the free variables and both fixes', async () => {
    const ctx = await context();
    const factor = 3;
    const warnings = await warningsDuring('DTASK_LOCAL_CLOSURE', async () => {
      expect(await ctx.spawn((x: number) => x * factor, 2)).toBe(6);
      expect(await ctx.spawn((x: number) => x + factor, 2)).toBe(5);
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/uses factor/);
    expect(warnings[0]!.message).toMatch(/pass them as arguments/);
    expect(warnings[0]!.message).toMatch(/everywhere/);
    expect(warnings[0]!.message).toMatch(/localClosures: 'error'/);
  });

  it("localClosures: 'error' makes spawn throw TaskFunctionError", async () => {
    const ctx = await context('error');
    const factor = 3;
    expect(() => ctx.spawn((x: number) => x * factor, 2)).toThrow(TaskFunctionError);
    expect(() => ctx.spawn((x: number) => x * factor, 2)).toThrow(/factor.*localClosures/s);
    expect(await ctx.spawn((x: number, f: number) => x * f, 2, factor)).toBe(6);
  });

  it("'allow' is silent; a context without threads never warns", async () => {
    const factor = 3;
    const allowed = await context('allow');
    const plain = new Context();
    open.push(plain);
    const warnings = await warningsDuring('DTASK_LOCAL_CLOSURE', async () => {
      expect(await allowed.spawn((x: number) => x * factor, 2)).toBe(6);
      expect(await plain.spawn((x: number) => x * factor, 2)).toBe(6);
    });
    expect(warnings).toHaveLength(0);
    expect(() => new Context({ localClosures: 'loud' as never })).toThrow(
      /'warn', 'error', 'allow'/,
    );
  });
});
