// Scope specifiers are an exact type: a misspelt key fails to compile under --strict, while a
// key a plugin declares by declaration merging compiles with its own type. The
// `@ts-expect-error` lines are the test: `tsc -p tsconfig.json --noEmit` (the test command)
// fails if any of them compiles; the run-time checks say the same at the call.
import { describe, expect, it } from 'vitest';
import { AnyScope, ArgumentError, type ScopeSpecifierObject, scope } from '../index.js';
import { registerScopeKey } from '../plugin.js';

// What a plugin's types say, through the package entry (as `declare module '@dtask/core'`).
declare module '../index.js' {
  interface ScopeSpecifierObject {
    typesTestDevice?: number | 'any';
  }
}

describe('ScopeSpecifierObject', () => {
  it('a misspelt key fails to compile, and is refused at run time', () => {
    // @ts-expect-error 'wroker' is no scope key (misspelt 'worker')
    expect(() => scope({ wroker: 2 })).toThrow(ArgumentError);
    // @ts-expect-error 'worker' is a number
    expect(() => scope({ worker: '2' })).toThrow(ArgumentError);
    // @ts-expect-error a misspelt key beside a good one
    const mixed: ScopeSpecifierObject = { worker: 1, thraed: 2 };
    expect(mixed).toBeDefined();
    expect(String(scope({ worker: 1, thread: 1 }))).toMatch(/thread:1:1/);
  });

  it("a plugin's declared key compiles with its own type", () => {
    const undo = registerScopeKey('typesTestDevice', {
      precedence: 1,
      toScope: () => new AnyScope(),
    });
    try {
      expect(scope({ typesTestDevice: 0 })).toBeInstanceOf(AnyScope);
      expect(scope({ typesTestDevice: 'any', worker: 1 })).toBeInstanceOf(AnyScope);
      // @ts-expect-error the plugin declared a device index or 'any'
      const wrong: ScopeSpecifierObject = { typesTestDevice: 'first' };
      expect(wrong).toBeDefined();
    } finally {
      undo();
    }
  });
});
