import { describe, expect, it } from 'vitest';
import { OSProc } from '../processor/os-proc.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { topology } from '../processor/topology.js';
import { expectArgumentError, FakeGpu, Untyped } from './__fixtures__/fixtures.js';
import {
  AnyScope,
  DefaultScope,
  ExactScope,
  IntersectionScope,
  InvalidScope,
  isScope,
  NodeScope,
  ProcessorTypeScope,
  ProcessScope,
  UnionScope,
} from './index.js';
import { fromScopeSpec } from './scope-spec.js';

const t21 = new ThreadProc(2, 1);
const t31 = new ThreadProc(3, 1);
const gpu = new FakeGpu(2, 0);

describe('AnyScope and DefaultScope', () => {
  it('AnyScope contains everything and all instances are equal', () => {
    expect(new AnyScope().contains(t21)).toBe(true);
    expect(new AnyScope().contains(gpu)).toBe(true);
    expect(new AnyScope().equals(new AnyScope())).toBe(true);
    expect(new AnyScope().equals(new DefaultScope())).toBe(false);
    expect(String(new AnyScope())).toBe('AnyScope');
  });

  it('DefaultScope contains the default-enabled processors only', () => {
    expect(new DefaultScope().contains(t21)).toBe(true);
    expect(new DefaultScope().contains(gpu)).toBe(false);
    expect(new DefaultScope().equals(new DefaultScope())).toBe(true);
    expect(String(new DefaultScope())).toBe('DefaultScope');
  });
});

describe('ProcessScope and NodeScope', () => {
  it('ProcessScope contains every processor of its worker', () => {
    const p = new ProcessScope(2);
    expect(p.contains(t21)).toBe(true);
    expect(p.contains(gpu)).toBe(true);
    expect(p.contains(new OSProc(2, 'h'))).toBe(true);
    expect(p.contains(t31)).toBe(false);
    expect(p.equals(new ProcessScope(2))).toBe(true);
    expect(p.equals(new ProcessScope(3))).toBe(false);
    expect(String(p)).toBe('ProcessScope(2)');
  });

  it('ProcessScope rejects ids that are not positive integers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '2']) {
      expectArgumentError(() => new ProcessScope(bad as number), /positive integer/);
    }
  });

  it("NodeScope contains the processors whose worker's OSProc.node matches", () => {
    topology().setNode(801, 'node-a');
    topology().setNode(802, 'node-b');
    const n = new NodeScope('node-a');
    expect(n.contains(new ThreadProc(801, 1))).toBe(true);
    expect(n.contains(new ThreadProc(802, 1))).toBe(false);
    expect(n.contains(new OSProc(5, 'node-a'))).toBe(true);
    expect(new NodeScope(new OSProc(1).node).contains(new ThreadProc(1, 1))).toBe(true);
    expect(n.equals(new NodeScope('node-a'))).toBe(true);
    expect(n.equals(new NodeScope('node-b'))).toBe(false);
    expect(String(n)).toBe('NodeScope(node-a)');
    expectArgumentError(() => new NodeScope(''), /non-empty host name/);
  });
});

describe('ExactScope', () => {
  it('contains exactly one processor, compared by id', () => {
    const e = new ExactScope(t21);
    expect(e.contains(new ThreadProc(2, 1))).toBe(true);
    expect(e.contains(new ThreadProc(2, 2))).toBe(false);
    expect(e.processor).toBe(t21);
    expect(e.equals(new ExactScope('thread:2:1'))).toBe(true);
    expect(e.equals(new ExactScope(t31))).toBe(false);
    expect(String(e)).toBe('ExactScope(thread:2:1)');
  });

  it('recreates a ThreadProc from a thread id', () => {
    const e = new ExactScope('thread:4:2');
    expect(e.processor).toBeInstanceOf(ThreadProc);
    expect(e.processor?.id).toBe('thread:4:2');
    expect(e.worker).toBe(4);
  });

  it('uses the topology for other ids, else keeps the bare id', () => {
    const g = new FakeGpu(6, 1);
    topology().add(g);
    try {
      expect(new ExactScope('fake-gpu:6:1').processor).toBe(g);
      expect(new ExactScope('fake-gpu:6:1').resolve()).toBe(g);
    } finally {
      topology().remove(g);
    }
    const bare = new ExactScope('fake-gpu:6:1');
    expect(bare.processor).toBeUndefined();
    expect(bare.worker).toBeUndefined();
    expect(bare.contains(g)).toBe(true);
    expect(new ExactScope('fake-gpu:6:1', 6).worker).toBe(6);
  });

  it('rejects what is neither a processor nor an id', () => {
    expectArgumentError(() => new ExactScope(''), /Processor or a processor id/);
    expectArgumentError(
      () => new ExactScope(3 as unknown as string),
      /Processor or a processor id/,
    );
    expectArgumentError(() => new ExactScope('x', 0), /positive integer/);
  });
});

describe('ProcessorTypeScope', () => {
  it('matches by kind; a class with a static kind equals its kind string', () => {
    const s = new ProcessorTypeScope(ThreadProc);
    expect(s.kind).toBe('thread');
    expect(s.contains(t21)).toBe(true);
    expect(s.contains(gpu)).toBe(false);
    expect(s.equals(new ProcessorTypeScope('thread'))).toBe(true);
    expect(new ProcessorTypeScope(FakeGpu).contains(gpu)).toBe(true);
    expect(String(s)).toBe('ProcessorTypeScope(thread)');
  });

  it('falls back to instanceof for a class without a static kind; toSpec throws', () => {
    const s = new ProcessorTypeScope(Untyped);
    expect(s.kind).toBeUndefined();
    expect(s.contains(new Untyped())).toBe(true);
    expect(s.contains(t21)).toBe(false);
    expect(s.equals(new ProcessorTypeScope(Untyped))).toBe(true);
    expect(s.equals(new ProcessorTypeScope('untyped'))).toBe(false);
    expect(String(s)).toBe('ProcessorTypeScope(Untyped)');
    expectArgumentError(() => s.toSpec(), /static kind/);
  });

  it('rejects what is neither a kind nor a class', () => {
    expectArgumentError(() => new ProcessorTypeScope('' as string), /processor kind/);
    expectArgumentError(() => new ProcessorTypeScope(1 as unknown as string), /processor kind/);
  });
});

describe('UnionScope and IntersectionScope', () => {
  it('a union contains what any part contains; a union of nothing is refused (as Dagger does)', () => {
    const u = new UnionScope(new ProcessScope(2), new ExactScope(t31));
    expect(u.contains(gpu)).toBe(true);
    expect(u.contains(t31)).toBe(true);
    expect(u.contains(new ThreadProc(3, 2))).toBe(false);
    expectArgumentError(() => new UnionScope(), /a union of no scopes names no processor/);
    expectArgumentError(() => fromScopeSpec({ type: 'union', scopes: [] }), /UnionScope/);
    expect(String(u)).toBe('UnionScope(ProcessScope(2), ExactScope(thread:3:1))');
  });

  it('flattens nested unions, drops duplicates, and compares parts in any order', () => {
    const u = new UnionScope(
      new ProcessScope(2),
      new UnionScope(new ProcessScope(3), new ProcessScope(2)),
    );
    expect(u.scopes).toHaveLength(2);
    expect(u.equals(new UnionScope(new ProcessScope(3), new ProcessScope(2)))).toBe(true);
    expect(u.equals(new UnionScope(new ProcessScope(3)))).toBe(false);
    expectArgumentError(() => new UnionScope({} as ProcessScope), /not a scope/);
  });

  it('an intersection contains what every part contains', () => {
    const i = new IntersectionScope([new DefaultScope(), new ProcessScope(2)]);
    expect(i.contains(t21)).toBe(true);
    expect(i.contains(gpu)).toBe(false);
    expect(i.contains(t31)).toBe(false);
    expect(String(i)).toBe('IntersectionScope(DefaultScope, ProcessScope(2))');
    const nested = new IntersectionScope([i, new ProcessScope(2)]);
    expect(nested.scopes).toHaveLength(2);
    expect(nested.equals(new IntersectionScope([new ProcessScope(2), new DefaultScope()]))).toBe(
      true,
    );
    expectArgumentError(() => new IntersectionScope([1 as unknown as ProcessScope]), /not a scope/);
  });
});

describe('InvalidScope', () => {
  it('is empty, remembers the clashing scopes, and explains why', () => {
    const x = new ProcessScope(2);
    const y = new ProcessScope(3);
    const inv = new InvalidScope(x, y, 'workers 2 and 3 differ');
    expect(inv.contains(t21)).toBe(false);
    expect(inv.x).toBe(x);
    expect(inv.y).toBe(y);
    expect(String(inv)).toBe(
      'InvalidScope(ProcessScope(2) and ProcessScope(3) do not intersect (workers 2 and 3 differ))',
    );
    expect(inv.message('compute scope', 'result scope')).toBe(
      'compute scope ProcessScope(2) and result scope ProcessScope(3) do not intersect (workers 2 and 3 differ)',
    );
    expect(new InvalidScope(x, y).message()).toBe(
      'ProcessScope(2) and ProcessScope(3) do not intersect',
    );
    expect(inv.equals(new InvalidScope(new AnyScope(), new AnyScope()))).toBe(true);
  });
});

describe('isScope', () => {
  it('recognises scopes, including ones from another copy of core (by marker)', () => {
    expect(isScope(new AnyScope())).toBe(true);
    expect(isScope({ [Symbol.for('dtask.scope')]: true })).toBe(true);
    expect(isScope({ type: 'any' })).toBe(false);
    expect(isScope(null)).toBe(false);
  });
});
