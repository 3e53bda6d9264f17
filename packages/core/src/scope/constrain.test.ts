import { describe, expect, it } from 'vitest';
import { OSProc } from '../processor/os-proc.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { topology } from '../processor/topology.js';
import { expectArgumentError, FakeGpu, OtherUntyped, Untyped } from './__fixtures__/fixtures.js';
import {
  type AbstractScope,
  AnyScope,
  constrain,
  DefaultScope,
  ExactScope,
  IntersectionScope,
  InvalidScope,
  isEmptyScope,
  isSubset,
  NodeScope,
  ProcessorTypeScope,
  ProcessScope,
  scope,
  UnionScope,
} from './index.js';

const any = new AnyScope();
const def = new DefaultScope();
const p = (w: number) => new ProcessScope(w);
const ex = (w: number, t: number) => new ExactScope(new ThreadProc(w, t));
const local = new OSProc(1).node;

function expectScope(actual: AbstractScope, expected: AbstractScope): void {
  expect(actual.constructor).toBe(expected.constructor);
  expect(actual.equals(expected), `${actual} should equal ${expected}`).toBe(true);
}

describe('constrain: general rules', () => {
  it('Any ∩ x = x (either side)', () => {
    const x = p(2);
    expect(constrain(any, x)).toBe(x);
    expect(constrain(x, any)).toBe(x);
    expectScope(constrain(any, any), any);
  });

  it('Invalid ∩ x = Invalid (either side, kept as is)', () => {
    const inv = new InvalidScope(p(2), p(3));
    expect(constrain(inv, any)).toBe(inv);
    expect(constrain(p(2), inv)).toBe(inv);
  });

  it('x ∩ x = x for equal scopes', () => {
    const x = p(2);
    expect(constrain(x, p(2))).toBe(x);
    expectScope(constrain(def, new DefaultScope()), def);
    expectScope(constrain(new NodeScope('n'), new NodeScope('n')), new NodeScope('n'));
    expectScope(constrain(ex(2, 1), new ExactScope('thread:2:1')), ex(2, 1));
  });

  it('takes more than two scopes and stops at the first clash', () => {
    expectScope(constrain(any, scope({ workers: [2, 3] }), p(3)), p(3));
    const r = constrain(p(2), p(3), p(4));
    expect(r).toBeInstanceOf(InvalidScope);
    expect(String(r)).toContain('ProcessScope(3)');
    expect(String(r)).not.toContain('ProcessScope(4)');
  });

  it('rejects non-scope arguments', () => {
    expectArgumentError(() => constrain(p(2), { worker: 2 } as never), /argument 2 is not a scope/);
    expectArgumentError(() => isSubset(p(2), 'any' as never), /needs two scopes/);
  });
});

describe('constrain: processes, nodes, kinds', () => {
  it('ProcessScope(2) ∩ ProcessScope(3) is InvalidScope naming both', () => {
    const r = constrain(scope({ worker: 2 }), scope({ worker: 3 }));
    expect(r).toBeInstanceOf(InvalidScope);
    expect(String(r)).toContain('ProcessScope(2)');
    expect(String(r)).toContain('ProcessScope(3)');
    expect((r as InvalidScope).message('compute scope', 'result scope')).toBe(
      'compute scope ProcessScope(2) and result scope ProcessScope(3) do not intersect (workers 2 and 3 differ)',
    );
    expect(isEmptyScope(r)).toBe(true);
  });

  it('NodeScope ∩ NodeScope is equal or Invalid', () => {
    const r = constrain(new NodeScope('a'), new NodeScope('b'));
    expect(r).toBeInstanceOf(InvalidScope);
    expect(String(r)).toContain('nodes a and b differ');
  });

  it('Process(w) ∩ Node(n) is the process when w runs on n, else Invalid', () => {
    topology().setNode(811, 'node-x');
    expectScope(constrain(p(811), new NodeScope('node-x')), p(811));
    expectScope(constrain(new NodeScope('node-x'), p(811)), p(811));
    expect(constrain(p(811), new NodeScope('node-y'))).toBeInstanceOf(InvalidScope);
    // A worker with no recorded node runs on this host, like OSProc.node says.
    expectScope(constrain(p(812), new NodeScope(local)), p(812));
  });

  it('ProcessorType ∩ ProcessorType is equal or Invalid', () => {
    const threads = new ProcessorTypeScope(ThreadProc);
    expectScope(constrain(threads, new ProcessorTypeScope('thread')), threads);
    const r = constrain(threads, new ProcessorTypeScope(FakeGpu));
    expect(r).toBeInstanceOf(InvalidScope);
    expect(String(r)).toContain('processor kinds thread and fake-gpu differ');
  });

  it('class-based ProcessorTypeScopes: a subclass narrows, unrelated classes clash', () => {
    class SubUntyped extends Untyped {}
    const base = new ProcessorTypeScope(Untyped);
    const sub = new ProcessorTypeScope(SubUntyped);
    expect(constrain(base, sub)).toBe(sub);
    expect(constrain(sub, base)).toBe(sub);
    expect(constrain(base, new ProcessorTypeScope(OtherUntyped))).toBeInstanceOf(InvalidScope);
    expect(constrain(base, new ProcessorTypeScope('thread'))).toBeInstanceOf(IntersectionScope);
  });
});

describe('constrain: ExactScope', () => {
  it('Exact(p) ∩ Process: Exact on the same worker, Invalid on another', () => {
    expectScope(constrain(ex(2, 1), p(2)), ex(2, 1));
    expectScope(constrain(p(2), ex(2, 1)), ex(2, 1));
    const r = constrain(ex(2, 1), p(3));
    expect(r).toBeInstanceOf(InvalidScope);
    expect(String(r)).toContain('thread:2:1 is not in ProcessScope(3)');
  });

  it('Exact ∩ Exact of different processors is Invalid', () => {
    expect(constrain(ex(2, 1), ex(2, 2))).toBeInstanceOf(InvalidScope);
  });

  it('Exact(p) ∩ S follows S.contains(p) for Default, ProcessorType, Node', () => {
    const g = new ExactScope(new FakeGpu(2, 0));
    expectScope(constrain(ex(2, 1), def), ex(2, 1));
    expect(constrain(g, def)).toBeInstanceOf(InvalidScope);
    expectScope(constrain(g, new ProcessorTypeScope(FakeGpu)), g);
    expect(constrain(ex(2, 1), new ProcessorTypeScope(FakeGpu))).toBeInstanceOf(InvalidScope);
    expectScope(constrain(ex(1, 1), new NodeScope(local)), ex(1, 1));
  });

  it('judges by the processor registered under the id when there is one', () => {
    class OptOutThread extends ThreadProc {
      override get defaultEnabled(): boolean {
        return false;
      }
    }
    const registered = new OptOutThread(821, 1);
    topology().add(registered);
    try {
      expect(constrain(ex(821, 1), def)).toBeInstanceOf(InvalidScope);
    } finally {
      topology().remove(registered);
    }
    expectScope(constrain(ex(821, 1), def), ex(821, 1));
  });

  it('a bare unknown id: decided by its worker when known, else an IntersectionScope', () => {
    const bare = new ExactScope('fake-gpu:9:0');
    expect(constrain(bare, def)).toBeInstanceOf(IntersectionScope);
    expect(constrain(bare, new ProcessorTypeScope('fake-gpu'))).toBeInstanceOf(IntersectionScope);
    expect(constrain(bare, p(9))).toBeInstanceOf(IntersectionScope);
    const hinted = new ExactScope('fake-gpu:9:0', 9);
    expectScope(constrain(hinted, p(9)), hinted);
    expect(constrain(hinted, p(8))).toBeInstanceOf(InvalidScope);
    expectScope(constrain(hinted, new NodeScope(local)), hinted);
    expect(constrain(hinted, new NodeScope('elsewhere'))).toBeInstanceOf(InvalidScope);
    expect(constrain(bare, new ExactScope('fake-gpu:9:1'))).toBeInstanceOf(InvalidScope);
  });
});

describe('constrain: unions', () => {
  it('distributes, dropping empty parts', () => {
    const u = scope({ workers: [2, 3, 4] });
    expectScope(constrain(u, scope({ workers: [3, 4, 5] })), new UnionScope(p(3), p(4)));
    expectScope(constrain(p(3), u), p(3));
  });

  it('one part left → that part; none left → InvalidScope of the two arguments', () => {
    const u = scope({ workers: [2, 3] });
    expectScope(constrain(u, p(2)), p(2));
    const r = constrain(u, p(4));
    expect(r).toBeInstanceOf(InvalidScope);
    expect((r as InvalidScope).x).toBe(u);
    expect(String(r)).toContain('UnionScope(ProcessScope(2), ProcessScope(3))');
    expect(String(r)).toContain('ProcessScope(4)');
  });

  it('a union of one part reports that part’s reason', () => {
    const r = constrain(new UnionScope(p(2)), p(3));
    expect(String(r)).toContain('workers 2 and 3 differ');
  });
});

describe('constrain: intersections that stay undecided', () => {
  it('Default ∩ Process is an IntersectionScope, in either order', () => {
    const r = constrain(def, p(2));
    expectScope(r, new IntersectionScope([def, p(2)]));
    expectScope(constrain(p(2), def), r);
  });

  it('Process ∩ ProcessorType and Node ∩ Default are IntersectionScopes', () => {
    const gpus = new ProcessorTypeScope(FakeGpu);
    expectScope(constrain(p(2), gpus), new IntersectionScope([p(2), gpus]));
    expect(constrain(new NodeScope('n'), def)).toBeInstanceOf(IntersectionScope);
  });

  it('an IntersectionScope absorbs what simplifies with its parts', () => {
    const i = constrain(def, p(2));
    expectScope(constrain(i, p(2)), i);
    const clash = constrain(i, p(3));
    expect(clash).toBeInstanceOf(InvalidScope);
    expect(String(clash)).toContain('workers 2 and 3 differ');
    expectScope(constrain(i, ex(2, 1)), ex(2, 1));
    expect(constrain(i, new ExactScope(new FakeGpu(2, 0)))).toBeInstanceOf(InvalidScope);
    const gpus = new ProcessorTypeScope(FakeGpu);
    const three = constrain(i, gpus);
    expectScope(three, new IntersectionScope([def, p(2), gpus]));
    expectScope(constrain(constrain(p(2), gpus), constrain(def, p(2))), three);
  });

  it('intersections of unions stay unions of simplified parts', () => {
    const r = constrain(scope({ workers: [2, 3] }), def);
    expectScope(
      r,
      new UnionScope(new IntersectionScope([p(2), def]), new IntersectionScope([p(3), def])),
    );
    expectScope(constrain(r, p(3)), new IntersectionScope([p(3), def]));
  });
});

describe('constrain: seed 004 examples', () => {
  it('scope(worker 3, thread 2) vs scope(worker 2) do not intersect', () => {
    const r = constrain(scope({ worker: 3, thread: 2 }), scope({ worker: 2 }));
    expect(r).toBeInstanceOf(InvalidScope);
  });

  it('scope((1, 2), (3, 1)) ∩ scope(worker 3) = Exact(3, 1)', () => {
    const compute = scope({ worker: 1, thread: 2 }, { worker: 3, thread: 1 });
    expectScope(constrain(compute, scope({ worker: 3 })), ex(3, 1));
  });

  it('compute scope(worker 2) ∩ result scope((2, 2), (4, 2)) = Exact(2, 2)', () => {
    const result = scope({ worker: 2, thread: 2 }, { worker: 4, thread: 2 });
    expectScope(constrain(scope({ worker: 2 }), result), ex(2, 2));
  });

  it('result scope(worker 3, threads [1, 3, 4]) ∩ Default is those threads', () => {
    const rs = scope({ worker: 3, threads: [1, 3, 4] });
    expectScope(constrain(def, rs), rs);
  });

  it('chunk scope(worker 3) ∩ compute scope((1, 2), (3, 1)) ∩ any = Exact(3, 1)', () => {
    const compute = scope({ worker: 1, thread: 2 }, { worker: 3, thread: 1 });
    expectScope(constrain(scope({ worker: 3 }), compute, any), ex(3, 1));
  });

  it('arg scope(worker 2) ∩ compute ((1, 2), (2, 1)) = Exact(2, 1)', () => {
    const compute = scope({ worker: 1, thread: 2 }, { worker: 2, thread: 1 });
    expectScope(constrain(compute, scope({ worker: 2 })), ex(2, 1));
  });
});

describe('isSubset', () => {
  it('anything ⊆ Any; Invalid ⊆ anything', () => {
    expect(isSubset(def, any)).toBe(true);
    expect(isSubset(new InvalidScope(p(2), p(3)), p(4))).toBe(true);
    expect(isSubset(any, def)).toBe(false);
  });

  it('unions: a ⊆ b iff every part ⊆ b; a ⊆ union iff a ⊆ some part', () => {
    expect(isSubset(scope({ workers: [2, 3] }), scope({ workers: [3, 4, 2] }))).toBe(true);
    expect(isSubset(scope({ workers: [2, 5] }), scope({ workers: [3, 4, 2] }))).toBe(false);
    expect(isSubset(ex(2, 1), scope({ workers: [2, 3] }))).toBe(true);
  });

  it('Exact(p) ⊆ b iff b contains p', () => {
    expect(isSubset(ex(2, 1), p(2))).toBe(true);
    expect(isSubset(ex(2, 1), p(3))).toBe(false);
    expect(isSubset(ex(2, 1), def)).toBe(true);
    expect(isSubset(new ExactScope(new FakeGpu(2, 0)), def)).toBe(false);
    expect(isSubset(new ExactScope('fake-gpu:9:0', 9), p(9))).toBe(true);
    expect(isSubset(new ExactScope('fake-gpu:9:0'), p(9))).toBe(false);
  });

  it('Process(w) ⊆ Process(w) and ⊆ Node(node of w); equal scopes', () => {
    topology().setNode(831, 'node-z');
    expect(isSubset(p(2), p(2))).toBe(true);
    expect(isSubset(p(2), p(3))).toBe(false);
    expect(isSubset(p(831), new NodeScope('node-z'))).toBe(true);
    expect(isSubset(p(831), new NodeScope('node-q'))).toBe(false);
    expect(isSubset(def, def)).toBe(true);
    expect(isSubset(new NodeScope('a'), new NodeScope('a'))).toBe(true);
  });

  it('intersections: ⊆ b if some part ⊆ b; a ⊆ intersection if a ⊆ every part', () => {
    const i = constrain(def, p(2));
    expect(isSubset(i, p(2))).toBe(true);
    expect(isSubset(i, def)).toBe(true);
    expect(isSubset(i, p(3))).toBe(false);
    expect(isSubset(ex(2, 1), i)).toBe(true);
    expect(isSubset(new ExactScope(new FakeGpu(2, 0)), i)).toBe(false);
  });

  it('is conservative when unsure', () => {
    expect(isSubset(p(2), scope({ worker: 2, threads: [1, 2] }))).toBe(false);
    expect(isSubset(def, p(1))).toBe(false);
    expect(isSubset(p(1), def)).toBe(false);
  });

  it('class-based ProcessorTypeScope: subclass ⊆ base', () => {
    class SubUntyped extends Untyped {}
    const base = new ProcessorTypeScope(Untyped);
    expect(isSubset(new ProcessorTypeScope(SubUntyped), base)).toBe(true);
    expect(isSubset(base, new ProcessorTypeScope(SubUntyped))).toBe(false);
  });
});
