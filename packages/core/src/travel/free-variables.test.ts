import { describe, expect, it } from 'vitest';
import { analyzeFunctionSource, freeVariables } from './free-variables.js';

// Sources are strings: functions written here would be rewritten by vite before toString.
const cases: [string, string, string[]][] = [
  // Function forms.
  ['arrow, expression body', '(a) => a + b', ['b']],
  ['arrow, bare parameter', 'a => a * k', ['k']],
  ['async arrow', 'async (a) => await f(a)', ['f']],
  ['async arrow, bare parameter', 'async a => a', []],
  ['anonymous function', 'function (a) { return a + c; }', ['c']],
  ['named function sees its own name', 'function fact(n) { return n ? n * fact(n - 1) : 1; }', []],
  ['async generator', 'async function* g(x) { yield* other(x); }', ['other']],
  ['generator', 'function* () { yield y; }', ['y']],
  ['new Function output', 'function anonymous(a,b\n) {\nreturn a+b+z\n}', ['z']],
  ['trailing line comment', '(a) => a // done', []],
  ['method shorthand', 'm(x) { return x + q; }', ['q']],
  ['method name is not bound inside', 'm(x) { return m(x); }', ['m']],
  ['async method', 'async m() { await w; }', ['w']],
  ['generator method', '*gen() { yield v; }', ['v']],
  ['async generator method', 'async *gen() { yield v; }', ['v']],
  ['getter', 'get size() { return n; }', ['n']],
  ['setter', 'set size(v) { store(v); }', ['store']],
  ['string-keyed method', '"s t"(a) { return a; }', []],
  ['computed method key is evaluated', '[key](a) { return a; }', ['key']],
  ['method named async', 'async() { return r; }', ['r']],
  // Parameters.
  ['default parameter', '(a, b = a + d) => b', ['d']],
  [
    'destructured parameters',
    '({ a, b: [c, ...rest] }, ...more) => a + c + rest + more + e',
    ['e'],
  ],
  ['computed key in a parameter pattern', '({ [k]: v }) => v', ['k']],
  ['default inside a pattern', '({ a = dflt }) => a', ['dflt']],
  ['arguments of a function', 'function () { return arguments[0]; }', []],
  ['arguments of an outermost arrow', '() => arguments[0]', ['arguments']],
  ['arguments through a nested arrow', 'function () { return () => arguments; }', []],
  // Declarations and hoisting.
  ['var hoists from a nested block', '() => { x = 1; if (t) { var x; } return x; }', ['t']],
  ['var in a for head', '() => { for (var i = 0; i < n; i++); return i; }', ['n']],
  ['var in for-in and for-of', '(o) => { for (var k in o); for (var v of o); return k + v; }', []],
  ['let is block scoped', '() => { { let a = 1; } return a; }', ['a']],
  ['const before its declaration is bound', '() => { f(); const f = () => 1; }', []],
  ['function declaration hoists', '() => { return g(); function g() { return 1; } }', []],
  ['block function is block scoped', '() => { { function h() {} } return h; }', ['h']],
  ['class declaration', '() => { const c = new C(); class C extends Base {} }', ['Base']],
  ['class expression name is inner', '() => [class K { m() { return K; } }, K]', ['K']],
  ['let in a for head', '() => { for (let i = 0; i < 3; i++) g(i); return i; }', ['g', 'i']],
  ['const in for-of', '(xs) => { for (const [a, b] of xs) h(a, b); }', ['h']],
  ['for-of over an outer iterable', '() => { for (const x of items) x; }', ['items']],
  ['assignment target in a for-in head', '(o) => { for (k in o); }', ['k']],
  ['using declarations', '() => { using r = open(); return r; }', ['open']],
  [
    'await using in a for-of head',
    'async () => { for (await using x of xs) x; return x; }',
    ['xs', 'x'],
  ],
  ['defaults do not see body vars', 'function (a = v) { var v = 1; return v; }', ['v']],
  ['class heritage sees the class name', '() => class K extends mixin(K) {}', ['mixin']],
  ['with body names stay free', 'function (o) { with (o) { return w; } }', ['w']],
  ['catch parameter', '() => { try { f(); } catch ({ message }) { log(message); } }', ['f', 'log']],
  ['catch parameter is scoped', '() => { try {} catch (e) {} return e; }', ['e']],
  ['optional catch binding', '() => { try {} catch { z; } }', ['z']],
  [
    'switch cases share a scope',
    '(v) => { switch (v) { case 1: let a; case 2: return a + c; } }',
    ['c'],
  ],
  ['labels are not references', '() => { outer: for (;;) { continue outer; break outer; } }', []],
  ['labelled function declaration', '() => { l: function f() {} return f; }', []],
  ['nested function scopes', '(a) => { const f = (b) => a + b + c; return f; }', ['c']],
  ['static block', '() => class { static { var s = 1; x = s; } }', ['x']],
  // References.
  ['member names are not references', '(o) => o.a.b + p.c', ['p']],
  ['computed members are', '(o) => o[k] + o?.[j]', ['k', 'j']],
  ['property keys are not references', '() => ({ a: 1, "b": 2, 3: 3, c: d })', ['d']],
  ['shorthand properties are', '() => ({ a, b })', ['a', 'b']],
  ['computed property keys are', '() => ({ [key]: 1 })', ['key']],
  ['spread', '(...xs) => ({ ...obj, list: [...xs, ...more] })', ['obj', 'more']],
  [
    'class members',
    '() => class extends B { [k] = v; #p = 1; static s = w; m() { return this.#p; } }',
    ['B', 'k', 'v', 'w'],
  ],
  ['this, super and new.target', 'function () { return [this, new.target]; }', []],
  ['super in a method', 'm() { return super.m(); }', []],
  ['import()', 'async () => await import(spec)', ['spec']],
  ['typeof still counts', '() => typeof maybe === "undefined"', ['maybe']],
  ['assignment to an outer name', '() => { counter += 1; counter++; }', ['counter']],
  ['destructuring assignment', '(o) => { ({ a, b: c.d, e: [f] } = o); }', ['a', 'c', 'f']],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal.
  ['template literals and tags', '(x) => tag`${x} ${y}`', ['tag', 'y']],
  ['globals are still listed', '(x) => Math.max(x, 1)', ['Math']],
  ['first-use order, no duplicates', '() => b + a + b', ['b', 'a']],
  ['esbuild keepNames helper', '() => { const f = __name(() => 1, "f"); return f; }', ['__name']],
];

describe('freeVariables', () => {
  for (const [name, source, expected] of cases) {
    it(name, () => {
      expect(freeVariables(source)).toEqual(expected);
    });
  }

  it('tells functions, methods and classes apart', () => {
    expect(analyzeFunctionSource('x => x').kind).toBe('function');
    expect(analyzeFunctionSource('get x() { return 1; }').kind).toBe('method');
    expect(analyzeFunctionSource('class A extends B {}')).toEqual({
      kind: 'class',
      freeVariables: ['B'],
    });
  });

  it('throws SyntaxError for text that is not one function', () => {
    expect(() => freeVariables('x')).toThrow(SyntaxError);
    expect(() => freeVariables('a, b')).toThrow(SyntaxError);
    expect(() => freeVariables('a() {}, b() {}')).toThrow(SyntaxError);
    expect(() => freeVariables('x: 1')).toThrow(SyntaxError);
    expect(() => freeVariables('function () { [native code] }')).toThrow(SyntaxError);
    expect(() => freeVariables('#p() { return 1; }')).toThrow(SyntaxError);
  });

  it('rejects import.meta, which only a module has, naming it', () => {
    // compileFunction builds functions with new Function, where import.meta is an error too.
    expect(() => freeVariables('() => import.meta.url')).toThrow(
      /Cannot use 'import.meta' outside a module/,
    );
    expect(() => freeVariables('m() { return import.meta.url; }')).toThrow(/import\.meta/);
  });
});
