import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../index.js';

/** How a self-contained function (one that travels as source) reaches the API. */
declare const dtask: typeof api;

describe('the dtask global', () => {
  it('is set on the main thread when @dtask/core loads', () => {
    expect((globalThis as { dtask?: unknown }).dtask).toBeDefined();
    expect(dtask.spawn).toBe(api.spawn);
    expect(dtask.taskProcessor).toBe(api.taskProcessor);
  });

  it('a self-contained task function that uses it runs on the main thread', async () => {
    const selfContained = (x: number) => [dtask.taskProcessor().id, x + 1];
    expect(await api.spawn(selfContained, 1)).toEqual(['thread:1:1', 2]);
    const nested = async () => await dtask.spawn((y: number) => y * 2, 21);
    expect(await api.spawn(nested)).toBe(42);
  });

  it('package.json tells bundlers that the entry setting it has a side effect', () => {
    // With "sideEffects": false a bundler may skip index.ts when a program imports only some
    // names, and the global would be missing on the main thread of a bundled program.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.sideEffects).toEqual(
      expect.arrayContaining(['./src/index.ts', './dist/index.js', './dist/index.cjs']),
    );
  });
});
