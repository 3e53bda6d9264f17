import { describe, expect, it } from 'vitest';
import { ThreadProc } from '../processor/thread-proc.js';
import { expectArgumentError, FakeGpu, Untyped } from './__fixtures__/fixtures.js';
import {
  type AbstractScope,
  AnyScope,
  constrain,
  DefaultScope,
  ExactScope,
  fromScopeSpec,
  IntersectionScope,
  InvalidScope,
  NodeScope,
  ProcessorTypeScope,
  ProcessScope,
  type ScopeSpec,
  scope,
  toScopeSpec,
  UnionScope,
} from './index.js';

const samples: AbstractScope[] = [
  new AnyScope(),
  new DefaultScope(),
  new UnionScope(new ProcessScope(4)),
  scope({ workers: [2, 3] }),
  new IntersectionScope([new DefaultScope(), new ProcessScope(2)]),
  new NodeScope('host-a'),
  new ProcessScope(2),
  new ExactScope(new ThreadProc(2, 3)),
  new ExactScope(new FakeGpu(4, 1)),
  new ExactScope('mystery:1'),
  new ProcessorTypeScope(ThreadProc),
  new ProcessorTypeScope('fake-gpu'),
  new InvalidScope(new ProcessScope(2), new ProcessScope(3), 'workers 2 and 3 differ'),
  new InvalidScope(new AnyScope(), new UnionScope(new NodeScope('host-b'))),
  scope({ worker: 1, thread: 2 }, { worker: 3, thread: 1 }),
];

describe('scope specs', () => {
  it('round-trips every class through structuredClone and JSON', () => {
    for (const s of samples) {
      const spec = toScopeSpec(s);
      expect(spec).toEqual(s.toSpec());
      for (const copy of [structuredClone(spec), JSON.parse(JSON.stringify(spec)) as ScopeSpec]) {
        const back = fromScopeSpec(copy);
        expect(back.constructor, String(s)).toBe(s.constructor);
        expect(back.equals(s), `${back} should equal ${s}`).toBe(true);
        expect(String(back)).toBe(String(s));
      }
    }
  });

  it('uses plain shapes such as { type: "process", worker: 2 }', () => {
    expect(toScopeSpec(new ProcessScope(2))).toEqual({ type: 'process', worker: 2 });
    expect(toScopeSpec(new ExactScope(new ThreadProc(2, 3)))).toEqual({
      type: 'exact',
      id: 'thread:2:3',
      worker: 2,
    });
    expect(toScopeSpec(new ExactScope('mystery:1'))).toEqual({ type: 'exact', id: 'mystery:1' });
    expect(toScopeSpec(new ProcessorTypeScope(ThreadProc))).toEqual({
      type: 'processor-type',
      kind: 'thread',
    });
  });

  it('an Exact spec of an unseen processor keeps its worker, so placement still works', () => {
    const back = fromScopeSpec(toScopeSpec(new ExactScope(new FakeGpu(4, 1)))) as ExactScope;
    expect(back.processor).toBeUndefined();
    expect(back.worker).toBe(4);
    expect(constrain(back, new ProcessScope(5))).toBeInstanceOf(InvalidScope);
    expect(fromScopeSpec({ type: 'exact', id: 'thread:2:3' })).toBeInstanceOf(ExactScope);
    expect((fromScopeSpec({ type: 'exact', id: 'thread:2:3' }) as ExactScope).processor).toEqual(
      new ThreadProc(2, 3),
    );
  });

  it('an InvalidScope keeps its scopes and reason across the trip', () => {
    const inv = constrain(new ProcessScope(2), new ProcessScope(3)) as InvalidScope;
    const back = fromScopeSpec(structuredClone(toScopeSpec(inv))) as InvalidScope;
    expect(back.message('compute scope', 'result scope')).toBe(
      inv.message('compute scope', 'result scope'),
    );
  });

  it('a class-based ProcessorTypeScope cannot travel', () => {
    expectArgumentError(
      () => toScopeSpec(new UnionScope(new ProcessorTypeScope(Untyped))),
      /cannot be sent to another thread or process: give the class a static kind/,
    );
  });

  it('rejects malformed specs and non-scopes', () => {
    expectArgumentError(() => fromScopeSpec(null as never), /expected a scope spec object/);
    expectArgumentError(
      () => fromScopeSpec({ type: 'galaxy' } as never),
      /unknown scope spec type "galaxy"/,
    );
    expectArgumentError(
      () => fromScopeSpec({ type: 'union' } as never),
      /union spec needs a scopes array/,
    );
    expectArgumentError(
      () => fromScopeSpec({ type: 'process', worker: 0 }),
      /ProcessScope\(worker\) must be a positive integer/,
    );
    expectArgumentError(() => fromScopeSpec({ type: 'exact', id: '' }), /processor id/);
    expectArgumentError(() => toScopeSpec({} as never), /needs a scope/);
  });
});
