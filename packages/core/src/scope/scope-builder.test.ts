import { afterEach, describe, expect, it } from 'vitest';
import { currentWorker } from '../processor/current-worker.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { topology } from '../processor/topology.js';
import { expectArgumentError, FakeGpu } from './__fixtures__/fixtures.js';
import {
  type AbstractScope,
  AnyScope,
  DefaultScope,
  ExactScope,
  ProcessScope,
  registerScopeKey,
  type ScopeSpecifier,
  scope,
  UnionScope,
} from './index.js';

// The keys the tests below register, declared as a plugin declares its keys.
declare module '../index.js' {
  interface ScopeSpecifierObject {
    gpu?: number | 'any';
    label?: string;
    tpu?: number;
    fpga?: number;
    broken?: number;
  }
}

const p = (w: number) => new ProcessScope(w);
const ex = (w: number, t: number) => new ExactScope(new ThreadProc(w, t));

function expectScope(actual: AbstractScope, expected: AbstractScope): void {
  expect(actual.constructor).toBe(expected.constructor);
  expect(actual.equals(expected), `${actual} should equal ${expected}`).toBe(true);
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function withThread(worker: number, thread: number): void {
  const proc = new ThreadProc(worker, thread);
  topology().add(proc);
  cleanups.push(() => topology().remove(proc));
}

describe('scope(): built-in specifiers', () => {
  it("'any' and 'default'", () => {
    expectScope(scope('any'), new AnyScope());
    expectScope(scope('default'), new DefaultScope());
  });

  it('worker → ProcessScope; workers → their union', () => {
    expectScope(scope({ worker: 2 }), p(2));
    expectScope(scope({ workers: [2, 3] }), new UnionScope(p(2), p(3)));
    expectScope(scope({ workers: [4] }), p(4));
    expectScope(scope({ workers: [2, 2] }), p(2));
  });

  it('worker + thread → ExactScope(ThreadProc(w, t))', () => {
    const s = scope({ worker: 2, thread: 3 });
    expectScope(s, ex(2, 3));
    expect((s as ExactScope).processor).toBeInstanceOf(ThreadProc);
  });

  it('workers × threads → the union of the cross product', () => {
    expectScope(
      scope({ workers: [2, 3], threads: [1, 2] }),
      new UnionScope(ex(2, 1), ex(2, 2), ex(3, 1), ex(3, 2)),
    );
    expectScope(
      scope({ worker: 3, threads: [1, 3, 4] }),
      new UnionScope(ex(3, 1), ex(3, 3), ex(3, 4)),
    );
  });

  it('thread alone → that thread on every worker known now', () => {
    expect(currentWorker()).toBe(1);
    expectScope(scope({ thread: 2 }), ex(1, 2));
    withThread(5, 1);
    withThread(7, 3);
    expectScope(scope({ thread: 2 }), new UnionScope(ex(1, 2), ex(5, 2), ex(7, 2)));
    expectScope(
      scope({ threads: [1, 2] }),
      new UnionScope(ex(1, 1), ex(1, 2), ex(5, 1), ex(5, 2), ex(7, 1), ex(7, 2)),
    );
  });

  it('several arguments → their union; none → ArgumentError, as an empty union is', () => {
    expectScope(
      scope({ worker: 1, thread: 2 }, { worker: 3, thread: 1 }),
      new UnionScope(ex(1, 2), ex(3, 1)),
    );
    expectArgumentError(
      () => scope(),
      /scope\(\): no specifiers name no processor.*scope\('any'\)/,
    );
  });

  it('an array is the union of its specifiers, like a Dagger tuple', () => {
    expectScope(scope([{ worker: 2 }, { worker: 3 }]), new UnionScope(p(2), p(3)));
  });

  it('passes a scope through unchanged', () => {
    const s = p(2);
    expect(scope(s)).toBe(s);
    expectScope(scope(s, 'default'), new UnionScope(s, new DefaultScope()));
  });

  it('ignores keys whose value is undefined', () => {
    expectScope(scope({ worker: 2, thread: undefined }), p(2));
  });
});

describe('scope(): bad specifiers throw ArgumentError', () => {
  it('an empty list (regression: scope([]) was an empty UnionScope)', () => {
    expectArgumentError(() => scope([]), /scope\(\[\]\): an empty list/);
    expectArgumentError(() => scope({ worker: 1 }, []), /an empty list/);
  });

  it('an unknown key, listing the known keys', () => {
    expectArgumentError(
      () => scope({ wroker: 2 } as ScopeSpecifier),
      /unknown key "wroker".*Known keys: thread, threads, worker, workers/,
    );
  });

  it('a known key mixed with an unknown key', () => {
    expectArgumentError(
      // @ts-expect-error 'colour' is no scope key: a compile error as well as an ArgumentError
      () => scope({ worker: 2, colour: 'red' }),
      /unknown key "colour" \(mixed with worker\)/,
    );
  });

  it("a string other than 'any' and 'default'", () => {
    expectArgumentError(
      () => scope('all' as ScopeSpecifier),
      /only string specifiers are 'any' and 'default'/,
    );
  });

  it('an empty list', () => {
    expectArgumentError(() => scope({ workers: [] }), /workers is an empty list/);
    expectArgumentError(() => scope({ threads: [] }), /threads is an empty list/);
  });

  it('ids that are not positive integers', () => {
    expectArgumentError(() => scope({ worker: 0 }), /worker must hold positive integers/);
    expectArgumentError(() => scope({ thread: 1.5 }), /thread must hold positive integers/);
    expectArgumentError(() => scope({ workers: [2, -1] }), /workers must hold positive integers/);
    expectArgumentError(
      () => scope({ worker: '2' } as unknown as ScopeSpecifier),
      /worker must hold positive integers.*got '2' \(a string\)/,
    );
    expectArgumentError(
      () => scope({ workers: 2 } as unknown as ScopeSpecifier),
      /workers must be an array/,
    );
  });

  it('worker together with workers (and thread with threads)', () => {
    expectArgumentError(
      () => scope({ worker: 2, workers: [3] }),
      /give either worker or workers, not both/,
    );
    expectArgumentError(
      () => scope({ thread: 2, threads: [3] }),
      /give either thread or threads, not both/,
    );
  });

  it('a specifier that is neither an object nor a string', () => {
    for (const bad of [42, null, undefined, true, () => 1]) {
      expectArgumentError(
        () => scope(bad as unknown as ScopeSpecifier),
        /a scope specifier is 'any', 'default', an object/,
      );
    }
  });

  it('an object with no keys', () => {
    expectArgumentError(() => scope({}), /has no keys\. Known keys/);
  });

  it('names the bad specifier among several', () => {
    expectArgumentError(() => scope({ worker: 2 }, { worker: -3 }), /\{"worker":-3\}/);
  });
});

describe('registerScopeKey', () => {
  it('a higher-precedence key decides and gets the whole specifier', () => {
    const seen: unknown[] = [];
    cleanups.push(
      registerScopeKey('gpu', {
        precedence: 1,
        toScope: (spec) => {
          seen.push(spec);
          return new ExactScope(new FakeGpu(spec.worker ?? 1, spec.gpu as number));
        },
      }),
    );
    const s = scope({ gpu: 1, worker: 2 });
    expectScope(s, new ExactScope('fake-gpu:2:1'));
    expect(seen).toEqual([{ gpu: 1, worker: 2 }]);
    expectScope(scope({ worker: 2 }), p(2));
    // @ts-expect-error 'gpus' is no scope key (misspelt 'gpu')
    expectArgumentError(() => scope({ gpus: 1 }), /Known keys: gpu, thread, threads, worker/);
  });

  it('built-in keys win over a lower-precedence key, which may annotate', () => {
    cleanups.push(registerScopeKey('label', { precedence: -1, toScope: () => new AnyScope() }));
    expectScope(scope({ worker: 2, label: 'x' }), p(2));
    expectScope(scope({ label: 'x' }), new AnyScope());
  });

  it('two different keys tied at the top precedence are ambiguous', () => {
    cleanups.push(registerScopeKey('tpu', { precedence: 0, toScope: () => new AnyScope() }));
    expectArgumentError(() => scope({ tpu: 1, worker: 2 }), /same precedence \(0\).*ambiguous/);
  });

  it('refuses to replace a key without { replace: true }', () => {
    expectArgumentError(
      () => registerScopeKey('worker', { precedence: 0, toScope: () => new AnyScope() }),
      /"worker"\): that key is already registered \(built in\); pass \{ replace: true \}/,
    );
    cleanups.push(registerScopeKey('npu', { precedence: 1, toScope: () => new AnyScope() }));
    expectArgumentError(
      () => registerScopeKey('npu', { precedence: 1, toScope: () => new DefaultScope() }),
      /already registered; pass \{ replace: true \}/,
    );
  });

  it('replaces with { replace: true }; unregistering restores the previous handler', () => {
    const undo = registerScopeKey('worker', {
      precedence: 0,
      replace: true,
      toScope: () => new AnyScope(),
    });
    expectScope(scope({ worker: 2 }), new AnyScope());
    undo();
    expectScope(scope({ worker: 2 }), p(2));
    undo();
    expectScope(scope({ worker: 2 }), p(2));
  });

  it('unregistering out of order keeps the newest registration', () => {
    const first = registerScopeKey('fpga', { precedence: 1, toScope: () => p(5) });
    const second = registerScopeKey('fpga', {
      precedence: 1,
      replace: true,
      toScope: () => p(6),
    });
    first();
    expectScope(scope({ fpga: 1 }), p(6));
    second();
    expectArgumentError(() => scope({ fpga: 1 }), /unknown key "fpga"/);
  });

  it('validates its arguments and what toScope returns', () => {
    expectArgumentError(
      () => registerScopeKey('', { precedence: 1, toScope: () => new AnyScope() }),
      /key must be a non-empty string/,
    );
    expectArgumentError(
      () => registerScopeKey('x', { precedence: 1 } as never),
      /definition must be \{ precedence, toScope\(spec\) \}/,
    );
    expectArgumentError(
      () => registerScopeKey('x', { precedence: Number.NaN, toScope: () => new AnyScope() }),
      /precedence must be a finite number/,
    );
    cleanups.push(registerScopeKey('broken', { precedence: 1, toScope: () => 42 as never }));
    expectArgumentError(
      () => scope({ broken: 1 }),
      /toScope returned 42 \(a number\); it must return a scope/,
    );
  });

  it('keeps the registry on globalThis under a Symbol.for key', () => {
    const registry = (globalThis as any)[Symbol.for('dtask.scopeKeys')] as Map<string, unknown>;
    expect(registry).toBeInstanceOf(Map);
    cleanups.push(registerScopeKey('shared', { precedence: 1, toScope: () => new AnyScope() }));
    expect(registry.has('shared')).toBe(true);
  });
});
