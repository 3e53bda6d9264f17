// The default context: configure() with no argument keeps it; spawn after shutdown() is refused.
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ArgumentError, configure, everywhere, shutdown, spawn, toChunk } from '../index.js';

afterEach(async () => {
  await shutdown();
  configure();
});

describe('configure() with no argument', () => {
  it('returns the default context the program configured, open, not a new empty one', async () => {
    const configured = configure({ localClosures: 'allow' });
    const again = configure();
    expect(again).toBe(configured);
    expect(configured.isClosed).toBe(false);
    expect(await spawn((x: number) => x + 1, 1)).toBe(2);
  });

  it('makes an in-process default context when there is none', async () => {
    await shutdown();
    const ctx = configure();
    expect(ctx.isClosed).toBe(false);
    expect(configure()).toBe(ctx);
    expect(await spawn(() => 3)).toBe(3);
  });
});

describe('spawn after shutdown()', () => {
  it('throws ArgumentError saying to call configure, until configure is called', async () => {
    configure({ localClosures: 'allow' });
    await shutdown();
    expect(() => spawn(() => 1)).toThrow(ArgumentError);
    expect(() => spawn(() => 1)).toThrow(/shut down.*call configure\(\{ plugins \}\)/);
    expect(() => toChunk(1)).toThrow(ArgumentError);
    const fresh = configure();
    expect(fresh.isClosed).toBe(false);
    expect(await spawn(() => 4)).toBe(4);
  });

  it('is refused even when shutdown() came before any default context was made', async () => {
    await shutdown();
    await shutdown();
    expect(() => spawn(() => 1)).toThrow(/shut down/);
  });

  it('everywhere between shutdown() and configure() loads the module for the next context', async () => {
    await shutdown();
    const url = pathToFileURL(`${import.meta.dirname}/__fixtures__/plain-module.ts`);
    await everywhere(url);
    const next = configure({ localClosures: 'allow' });
    expect(next.modules.has(url.href)).toBe(true);
  });
});
