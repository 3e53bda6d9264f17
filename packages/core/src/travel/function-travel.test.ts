import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskFunctionError } from '../errors/errors.js';
import { assertFunctionCanTravel, checkFunctionTravel } from './function-travel.js';

// Functions are made with new Function so that vite's rewriting of this file cannot change
// their source text.
function make(source: string): Function {
  return new Function(`return (${source}\n);`)() as Function;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkFunctionTravel', () => {
  it('accepts functions that use only their parameters and globals', () => {
    for (const source of [
      '(a, b) => a + b',
      'function sum(xs) { return xs.reduce((s, x) => s + x, 0); }',
      'async (url) => { const r = await fetch(url); return JSON.parse(await r.text()); }',
      '(n) => { const out = new Float64Array(n); for (let i = 0; i < n; i++) out[i] = Math.sqrt(i); return out; }',
      '() => [dtask, console, structuredClone, setTimeout, process, Buffer]',
      '({ m(x) { return Math.abs(x); } }).m',
      'Object.getOwnPropertyDescriptor({ get g() { return 1; } }, "g").get',
    ]) {
      expect(checkFunctionTravel(make(source)), source).toEqual({ ok: true });
    }
  });

  it('accepts functions wrapped by the esbuild/tsx keepNames helper', () => {
    const fn = make(
      'function task(x) { const inner = __name((y) => y * 2, "inner"); return inner(x); }',
    );
    expect(checkFunctionTravel(fn)).toEqual({ ok: true });
  });

  it('accepts names on globalThis at check time', () => {
    const g = globalThis as { dtaskTestGlobal?: number };
    g.dtaskTestGlobal = 1;
    try {
      expect(checkFunctionTravel(make('() => dtaskTestGlobal')).ok).toBe(true);
    } finally {
      delete g.dtaskTestGlobal;
    }
    // Verdicts are cached by source text, so a different source is judged afresh.
    expect(checkFunctionTravel(make('() => dtaskTestGlobal + 0')).ok).toBe(false);
  });

  it('rejects a closure, naming the variables it captures', () => {
    const makeAdder = make(
      'function makeAdder(step) { const scale = 2; return (x) => x * scale + step; }',
    );
    const verdict = checkFunctionTravel(makeAdder(1));
    expect(verdict).toMatchObject({
      ok: false,
      reason: 'free-variables',
      freeVariables: ['scale', 'step'],
    });
    expect(verdict.ok || verdict.message).toBe(
      'The task function `(x) => x * scale + step` uses variables of its enclosing scope (scale, step), so it can only ' +
        'run in the thread that defined it; pass them as arguments, or export the function ' +
        'from a module and load it with everywhere(module).',
    );
  });

  it('names the function and leaves globals out of the list', () => {
    const verdict = checkFunctionTravel(make('function work(x) { return Math.max(x, limit); }'));
    expect(verdict).toMatchObject({ ok: false, freeVariables: ['limit'] });
    expect(verdict.ok || verdict.message).toMatch(/^Task function 'work' uses .*\(limit\)/);
  });

  it('explains the import references vite writes into functions of this file', () => {
    const verdict = checkFunctionTravel(() => new TaskFunctionError('x'));
    expect(verdict).toMatchObject({ ok: false, reason: 'free-variables' });
    expect(verdict.ok || verdict.message).toMatch(
      /\(__vite_ssr_import_\d+__\) \(names starting with __vite_ssr_ are imports of its module/,
    );
  });

  it('treats CommonJS module names as free even where they are globals', () => {
    const g = globalThis as { require?: unknown };
    const had = 'require' in g;
    g.require ??= () => undefined;
    try {
      const verdict = checkFunctionTravel(make('() => [require("fs"), module, __dirname]'));
      expect(verdict).toMatchObject({ freeVariables: ['require', 'module', '__dirname'] });
    } finally {
      if (!had) delete g.require;
    }
  });

  it('rejects an outermost arrow that uses its enclosing function’s arguments', () => {
    const outer = make('function outer() { return () => arguments[0]; }');
    expect(checkFunctionTravel(outer(1))).toMatchObject({ freeVariables: ['arguments'] });
  });

  it('rejects native functions', () => {
    const verdict = checkFunctionTravel(Math.max);
    expect(verdict).toMatchObject({ ok: false, reason: 'native', freeVariables: [] });
    expect(verdict.ok || verdict.message).toMatch(/^Task function 'max' is a native function/);
  });

  it('rejects bound functions, native or not', () => {
    const bound = make('function f(a, b) { return a + b; }').bind(null, 1);
    expect(checkFunctionTravel(bound)).toMatchObject({ ok: false, reason: 'bound' });
    expect(checkFunctionTravel(Math.max.bind(Math))).toMatchObject({ reason: 'bound' });
    const verdict = checkFunctionTravel(bound);
    expect(verdict.ok || verdict.message).toMatch(/^Task function 'bound f' is a bound function/);
  });

  it('rejects classes', () => {
    const verdict = checkFunctionTravel(make('class Point { constructor(x) { this.x = x; } }'));
    expect(verdict).toMatchObject({ ok: false, reason: 'unparseable', freeVariables: [] });
    expect(verdict.ok || verdict.message).toMatch(/^Task function 'Point' is a class/);
  });

  it('rejects private methods, which cannot be compiled elsewhere', () => {
    const p = make('class { #p() { return 1; } static get(o) { return o.#p; } }') as unknown as {
      new (): object;
      get(o: object): Function;
    };
    const verdict = checkFunctionTravel(p.get(new p()));
    expect(verdict).toMatchObject({ ok: false, reason: 'unparseable' });
    expect(verdict.ok || verdict.message).toMatch(/could not be parsed/);
  });

  it('decides once per function and returns the same verdict object', () => {
    const fn = make('(x) => x + y');
    const readSource = vi.spyOn(Function.prototype, 'toString');
    const first = checkFunctionTravel(fn);
    expect(checkFunctionTravel(fn)).toBe(first);
    expect(readSource.mock.contexts.filter((c) => c === fn)).toHaveLength(1);
    expect(Object.isFrozen(first)).toBe(true);
    // Cached by name and source text: the closures a loop makes each turn are judged once.
    const twin = make('(x) => x + y');
    expect(checkFunctionTravel(twin)).toBe(first);
  });
});

describe('assertFunctionCanTravel', () => {
  it('passes a self-contained function', () => {
    expect(() => assertFunctionCanTravel(make('(x) => x * 2'), 'worker 2')).not.toThrow();
  });

  it('throws TaskFunctionError naming the destination and the free variables', () => {
    const fn = make(
      'function outer() { const table = {}; return function lookup(k) { return table[k]; }; }',
    )();
    let caught: unknown;
    try {
      assertFunctionCanTravel(fn, 'worker 2');
    } catch (error) {
      caught = error;
    }
    expect(TaskFunctionError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      "Cannot send a task function to worker 2: Task function 'lookup' uses variables of its " +
        'enclosing scope (table), so it can only run in the thread that defined it; pass them ' +
        'as arguments, or export the function from a module and load it with everywhere(module).',
    );
  });
});
