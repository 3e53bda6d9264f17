// A task function kept on the main thread (it closes over a local variable)
// while worker threads exist is reported once per function (not once per context), naming the
// function, the variables, the thread it ran on and the fixes; `map` warns the same way, and
// `localClosures: 'error'` makes it an error.
import { Context, map, TaskFunctionError } from '@dtask/core';
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
  it('warns once per function, naming it, the variables, where it ran and the fixes', async () => {
    const ctx = await context();
    const factor = 3;
    const warnings = await warningsDuring('DTASK_LOCAL_CLOSURE', async () => {
      for (let i = 0; i < 3; i++) {
        // A new closure object each turn: still one function.
        expect(await ctx.spawn((x: number) => x * factor, 2)).toBe(6);
      }
      const addFactor = (x: number) => x + factor;
      expect(await ctx.spawn(addFactor, 2)).toBe(5);
      expect(await ctx.spawn(addFactor, 3)).toBe(6);
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]!.message).toMatch(
      /`\(x\) => x \* factor` uses variables of its enclosing scope \(factor\)/,
    );
    expect(warnings[0]!.message).toMatch(/main thread \(thread:1:1\)/);
    expect(warnings[0]!.message).toMatch(/pass them as arguments/);
    expect(warnings[0]!.message).toMatch(/everywhere/);
    expect(warnings[0]!.message).toMatch(/localClosures: 'error'/);
    expect(warnings[1]!.message).toMatch(/Task function 'addFactor'/);
  });

  it('a closure given to map warns too, also after another function warned in its context', async () => {
    const ctx = await context();
    const offset = 10;
    const warnings = await warningsDuring('DTASK_LOCAL_CLOSURE', async () => {
      expect(await ctx.spawn((x: number) => x - offset, 20)).toBe(10);
      const plusOffset = (x: number) => x + offset;
      const out: number[] = [];
      for await (const y of map(plusOffset, [1, 2, 3], { context: ctx })) out.push(y);
      expect(out).toEqual([11, 12, 13]);
    });
    expect(warnings.map((w) => /'plusOffset'/.test(w.message))).toEqual([false, true]);
  });

  it("localClosures: 'error' makes spawn throw TaskFunctionError", async () => {
    const ctx = await context('error');
    const factor = 3;
    expect(() => ctx.spawn((x: number) => x * factor, 2)).toThrow(TaskFunctionError);
    expect(() => ctx.spawn((x: number) => x * factor, 2)).toThrow(/factor.*localClosures/s);
    expect(await ctx.spawn((x: number, f: number) => x * f, 2, factor)).toBe(6);
    const read = async () => {
      for await (const _ of map((x: number) => x * factor, [1], { context: ctx })) void _;
    };
    await expect(read()).rejects.toThrow(/thread:1:1.*localClosures/s);
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
