// A task function that travels as source may load modules with import(), on a worker thread as
// on the main thread: node's own, and packages by bare name (resolved from @dtask/core's place).
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

describe('dynamic import in a task function sent as source', () => {
  it("loads node's modules and packages by name on a worker thread", async () => {
    const { ctx } = await rig();
    // Made from text: vitest rewrites import() in this file's own functions.
    const task = new Function(`return async () => {
      const path = await import('node:path');
      const core = await import('@dtask/core');
      return [path.sep, typeof core.spawn, core.taskProcessor().id];
    }`)() as () => Promise<[string, string, string]>;
    const [sep, spawnType, where] = await ctx.spawn(task);
    expect(sep).toBe('/');
    expect(spawnType).toBe('function');
    expect(where).toMatch(/^thread:1:[23]$/);
  });
});
