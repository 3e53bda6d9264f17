// A thrown value that is not an Error reads as what it holds, never `[object Object]`.
import { describe, expect, it } from 'vitest';
import { Context } from '../index.js';
import { serializeError } from './serialize-error.js';
import { showThrown } from './show-thrown.js';

describe('showThrown', () => {
  it('shows plain objects and arrays as JSON, other values as strings, and never throws', () => {
    expect(showThrown({ code: 42, why: 'no' })).toBe('{"code":42,"why":"no"}');
    expect(showThrown([1, 'a'])).toBe('[1,"a"]');
    expect(showThrown('text')).toBe('text');
    expect(showThrown(7)).toBe('7');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(showThrown(cyclic)).toBe('[object Object]');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(showThrown(proxy)).toBe('a thrown value that cannot be shown');
    expect(showThrown({ long: 'x'.repeat(300) })).toMatch(/^\{"long":"x+…$/);
    expect(serializeError({ code: 42 }).message).toBe('{"code":42}');
  });

  it('a task that throws a plain object fails with a message that shows it', async () => {
    const ctx = new Context();
    const task = ctx.spawn(() => {
      throw { code: 'E_BAD', detail: 3 };
    });
    const error = await task.catch((e: unknown) => e);
    expect((error as Error).message).toBe(`Task #${task.id} failed: {"code":"E_BAD","detail":3}`);
    await ctx.close();
  });
});
