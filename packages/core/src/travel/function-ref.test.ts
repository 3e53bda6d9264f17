// A task function that travels as source text is compiled under a name of its own, so the
// stack of an error it throws points at the function (its name, its own lines), not at the
// code that compiled it (`eval at compileFunction (.../chunk-XXXX.js)`).
import { describe, expect, it } from 'vitest';
import { Context, ExactScope, ThreadProc } from '../index.js';
import type { Plugin } from '../plugin.js';
import { inMemoryTransportPair } from '../protocol/in-memory-transport.js';
import { startWorkerRuntime } from '../runtime/worker-runtime.js';
import { compileFunction, taskSourceName } from './function-ref.js';

function stackOf(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    return String((error as Error).stack);
  }
  throw new Error('expected a throw');
}

describe('compileFunction names the function in stacks', () => {
  it('a named function: dtask:task/<name>.js with lines counted in its own source', () => {
    const source = 'function explode(x) {\n  if (x) throw new Error("boom");\n}';
    const f = compileFunction(source, 'explode') as (x: number) => void;
    const stack = stackOf(() => f(1));
    expect(stack).toMatch(/at explode \(dtask:task\/explode\.js:2:\d+\)/);
    expect(stack).not.toMatch(/eval at/);
  });

  it('an arrow, a method shorthand, and names that need making safe', () => {
    const arrow = compileFunction('(x) => {\n  throw new Error("a");\n}', 'double') as () => void;
    expect(stackOf(arrow)).toMatch(/dtask:task\/double\.js:2:\d+/);
    const method = compileFunction('run(x) {\n\n  throw new Error("m");\n}', 'run') as () => void;
    expect(stackOf(method)).toMatch(/at run \(dtask:task\/run\.js:3:\d+\)/);
    const anonymous = compileFunction('() => { throw new Error("n"); }') as () => void;
    expect(stackOf(anonymous)).toMatch(/dtask:task\/anonymous\.js:1:\d+/);
    expect(taskSourceName('a b/c')).toBe('dtask:task/a_b_c.js');
  });
});

describe('a task function run on another runtime', () => {
  it("its error's stack names the function, as the caller receives it", async () => {
    const proc = new ThreadProc(1, 2);
    const [mainEnd, workerEnd] = inMemoryTransportPair();
    startWorkerRuntime(workerEnd, { worker: 1, thread: 2 });
    const plugin: Plugin = {
      name: 'one-in-memory-worker',
      setup(host) {
        host.addProcessor(proc, host.connectWorker(mainEnd, { processor: proc }));
      },
    };
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    function checkPositive(x: number) {
      if (x < 0) throw new RangeError(`negative: ${x}`);
      return x;
    }
    const error: any = await ctx
      .spawn({ scope: new ExactScope(proc) }, checkPositive, -1)
      .catch((e: unknown) => e);
    expect(error.cause.message).toBe('negative: -1');
    expect(error.cause.stack).toMatch(/at checkPositive \(dtask:task\/checkPositive\.js:2:\d+\)/);
    expect(error.cause.stack).not.toMatch(/eval at compileFunction/);
  });
});
