// DTask.fetch validates its options as spawn does: a misspelt key or a non-boolean raw is
// an ArgumentError naming what to pass, not silently a plain fetch.
import { describe, expect, it } from 'vitest';
import { ArgumentError, Chunk, spawn } from '../index.js';

describe('DTask.fetch(options)', () => {
  it('refuses an unknown option, naming the known one', async () => {
    const t = spawn(() => 1);
    await expect(t.fetch({ rwa: true } as never)).rejects.toThrow(ArgumentError);
    await expect(t.fetch({ rwa: true } as never)).rejects.toThrow(
      /unknown option 'rwa'; known: raw/,
    );
  });

  it('refuses a raw that is not a boolean, and options that are not an object', async () => {
    const t = spawn(() => 1);
    await expect(t.fetch({ raw: 'yes' } as never)).rejects.toThrow(
      /raw must be true or false; got 'yes' \(a string\)/,
    );
    await expect(t.fetch(true as never)).rejects.toThrow(/options must be \{ raw\?: boolean \}/);
    await expect(t.fetch([] as never)).rejects.toThrow(ArgumentError);
  });

  it('accepts {}, { raw: false } and { raw: true }', async () => {
    const t = spawn(() => 5);
    expect(await t.fetch({})).toBe(5);
    expect(await t.fetch({ raw: false })).toBe(5);
    const chunk = await t.fetch({ raw: true });
    expect(chunk).toBeInstanceOf(Chunk);
    expect(await chunk.fetch()).toBe(5);
  });
});
