// Task options are checked at compile time; plugins add theirs by
// declaration merging into `TaskOptionsRegistry`. The `@ts-expect-error` lines below are the
// test: `tsc -p tsconfig.json --noEmit` (the test command) fails if any of them compiles.
import { describe, expect, it } from 'vitest';
import { ArgumentError, Context, type TaskOptionsInput } from '../index.js';
import { registerOption } from '../plugin.js';

// What a plugin's types say, through the package entry (as `declare module '@dtask/core'`).
declare module '../index.js' {
  interface TaskOptionsRegistry {
    registryTestLanes?: number;
  }
}

describe('TaskOptionsRegistry', () => {
  it('a misspelt option fails to compile, and is refused at run time', async () => {
    await using ctx = new Context();
    // @ts-expect-error 'nmae' is not an option (misspelt 'name')
    expect(() => ctx.spawn({ nmae: 'x' }, () => 1)).toThrow(ArgumentError);
    // @ts-expect-error 'occupancy' is a number
    const wrongType: TaskOptionsInput = { occupancy: 'all' };
    expect(wrongType).toBeDefined();
    expect(await ctx.spawn({ name: 'fine', occupancy: 0.5 }, () => 2)).toBe(2);
  });

  it("a plugin's declared option compiles with its own type", async () => {
    const undo = registerOption('registryTestLanes', (v) => v);
    try {
      await using ctx = new Context();
      expect(await ctx.spawn({ registryTestLanes: 4 }, () => 3)).toBe(3);
      // @ts-expect-error the plugin declared a number
      const wrong: TaskOptionsInput = { registryTestLanes: 'four' };
      expect(wrong).toBeDefined();
    } finally {
      undo();
    }
  });
});
