import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { ExactScope } from './exact-scope.js';
import { IntersectionScope } from './intersection-scope.js';
import { NodeScope, workerNode } from './node-scope.js';
import { ProcessScope } from './process-scope.js';
import { type ProcessorClass, ProcessorTypeScope } from './processor-type-scope.js';
import { type AbstractScope, AnyScope, InvalidScope, isScope } from './scope.js';
import { UnionScope } from './union-scope.js';

/**
 * The intersection of scopes (Dagger's `constrain`), simplified to the simplest class: e.g.
 * `ProcessScope(2) ∩ UnionScope(ExactScope(thread:2:1), ExactScope(thread:3:1))` is
 * `ExactScope(thread:2:1)`. Called by the scheduler to combine a task's compute scope,
 * result scope and its Chunk arguments' scopes. Guarantees: the result contains exactly the
 * processors every argument contains; it is an `InvalidScope` (naming the clashing scopes)
 * whenever emptiness is provable from structure; what cannot be decided structurally (e.g.
 * `DefaultScope ∩ ProcessScope(2)`) becomes an `IntersectionScope`. Throws `ArgumentError`
 * for a non-scope argument.
 */
export function constrain(
  a: AbstractScope,
  b: AbstractScope,
  ...more: AbstractScope[]
): AbstractScope {
  const all = [a, b, ...more];
  for (const [i, s] of all.entries()) {
    if (!isScope(s)) {
      throw new ArgumentError(`constrain: argument ${i + 1} is not a scope (${describeValue(s)})`);
    }
  }
  let result = intersect(a, b);
  for (const c of more) {
    if (result instanceof InvalidScope) return result;
    result = intersect(result, c);
  }
  return result;
}

/** True for a scope that provably contains nothing: an `InvalidScope` or an empty union. */
export function isEmptyScope(scope: AbstractScope): boolean {
  return (
    scope instanceof InvalidScope || (scope instanceof UnionScope && scope.scopes.length === 0)
  );
}

/**
 * Whether every processor in `a` is also in `b` (a ⊆ b). Conservative: true only when provable
 * from structure, false when unsure (e.g. `ProcessScope(2) ⊆ UnionScope(ExactScope(...), ...)`).
 * Called by the scheduler and plugins to skip needless intersections and moves. Throws
 * `ArgumentError` for a non-scope argument.
 */
export function isSubset(a: AbstractScope, b: AbstractScope): boolean {
  if (!isScope(a) || !isScope(b)) {
    throw new ArgumentError(
      `isSubset(a, b) needs two scopes, got ${describeValue(a)} and ${describeValue(b)}`,
    );
  }
  return subset(a, b);
}

function subset(a: AbstractScope, b: AbstractScope): boolean {
  if (b instanceof AnyScope || isEmptyScope(a)) return true;
  if (a instanceof UnionScope) return a.scopes.every((p) => subset(p, b));
  if (a.equals(b)) return true;
  if (b instanceof UnionScope) return b.scopes.some((p) => subset(a, p));
  if (b instanceof IntersectionScope) return b.scopes.every((p) => subset(a, p));
  if (a instanceof IntersectionScope) return a.scopes.some((p) => subset(p, b));
  if (a instanceof ExactScope) {
    const proc = a.resolve();
    if (proc) return b.contains(proc);
    if (a.worker === undefined) return false;
    if (b instanceof ProcessScope) return a.worker === b.worker;
    if (b instanceof NodeScope) return workerNode(a.worker) === b.node;
    return false;
  }
  if (a instanceof ProcessScope && b instanceof NodeScope) return workerNode(a.worker) === b.node;
  if (a instanceof ProcessorTypeScope && b instanceof ProcessorTypeScope) {
    const ca = a.processorClass;
    const cb = b.processorClass;
    return !!ca && !!cb && extendsClass(ca, cb);
  }
  return false;
}

function intersect(a: AbstractScope, b: AbstractScope): AbstractScope {
  if (a instanceof InvalidScope) return a;
  if (b instanceof InvalidScope) return b;
  if (isEmptyScope(a) || isEmptyScope(b)) {
    return new InvalidScope(a, b, 'an empty union contains no processor');
  }
  if (a instanceof AnyScope) return b;
  if (b instanceof AnyScope) return a;
  if (a.equals(b)) return a;
  if (a instanceof UnionScope || b instanceof UnionScope) return distribute(a, b);
  if (a instanceof IntersectionScope || b instanceof IntersectionScope) return fold(a, b);
  return pair(a, b);
}

/** (a1 ∪ a2 ...) ∩ (b1 ∪ b2 ...) = ∪ (ai ∩ bj), dropping the empty pieces. */
function distribute(a: AbstractScope, b: AbstractScope): AbstractScope {
  const aParts = a instanceof UnionScope ? a.scopes : [a];
  const bParts = b instanceof UnionScope ? b.scopes : [b];
  const pieces: AbstractScope[] = [];
  let clash: InvalidScope | undefined;
  for (const x of aParts) {
    for (const y of bParts) {
      const r = intersect(x, y);
      if (!isEmptyScope(r)) pieces.push(r);
      else if (r instanceof InvalidScope) clash = r;
    }
  }
  if (pieces.length === 0) {
    const single = aParts.length * bParts.length === 1 && clash;
    return new InvalidScope(a, b, single ? reasonOf(single) : 'no part of the union intersects');
  }
  const union = new UnionScope(...pieces);
  return union.scopes.length === 1 ? union.scopes[0] : union;
}

/**
 * Intersects two scopes at least one of which is an `IntersectionScope`: each incoming part is
 * merged into the first part it simplifies with (repeating while merges happen), else added.
 */
function fold(a: AbstractScope, b: AbstractScope): AbstractScope {
  let parts: AbstractScope[] = a instanceof IntersectionScope ? [...a.scopes] : [a];
  for (const s of b instanceof IntersectionScope ? b.scopes : [b]) {
    const next = absorb(parts, s);
    if (next instanceof InvalidScope) return new InvalidScope(a, b, reasonOf(next));
    parts = next;
  }
  return parts.length === 1 ? parts[0] : new IntersectionScope(parts);
}

function absorb(parts: AbstractScope[], s: AbstractScope): AbstractScope[] | InvalidScope {
  for (const [i, p] of parts.entries()) {
    const r = intersect(p, s);
    if (r instanceof InvalidScope) return r;
    if (!(r instanceof IntersectionScope)) {
      return absorb(
        parts.filter((_, j) => j !== i),
        r,
      );
    }
  }
  return [...parts, s];
}

/** Two scopes that are neither Any, Invalid, equal, unions nor intersections. */
function pair(a: AbstractScope, b: AbstractScope): AbstractScope {
  if (a instanceof ExactScope) return exact(a, b, a, b);
  if (b instanceof ExactScope) return exact(b, a, a, b);
  if (a instanceof ProcessScope && b instanceof ProcessScope) {
    return new InvalidScope(a, b, `workers ${a.worker} and ${b.worker} differ`);
  }
  if (a instanceof NodeScope && b instanceof NodeScope) {
    return new InvalidScope(a, b, `nodes ${a.node} and ${b.node} differ`);
  }
  if (a instanceof ProcessScope && b instanceof NodeScope) return processOnNode(a, b, a, b);
  if (a instanceof NodeScope && b instanceof ProcessScope) return processOnNode(b, a, a, b);
  if (a instanceof ProcessorTypeScope && b instanceof ProcessorTypeScope) return types(a, b);
  return new IntersectionScope([a, b]);
}

function exact(e: ExactScope, o: AbstractScope, a: AbstractScope, b: AbstractScope) {
  if (o instanceof ExactScope) {
    return new InvalidScope(a, b, `processors ${e.id} and ${o.id} differ`);
  }
  const proc = e.resolve();
  if (proc) return o.contains(proc) ? e : new InvalidScope(a, b, `${proc.id} is not in ${o}`);
  // A bare id of a processor this process has not seen: only its worker (if known) is usable.
  if (e.worker !== undefined && o instanceof ProcessScope) {
    return e.worker === o.worker
      ? e
      : new InvalidScope(a, b, `${e.id} belongs to worker ${e.worker}, not ${o.worker}`);
  }
  if (e.worker !== undefined && o instanceof NodeScope) {
    const node = workerNode(e.worker);
    return node === o.node ? e : new InvalidScope(a, b, `${e.id} runs on ${node}, not ${o.node}`);
  }
  return new IntersectionScope([a, b]);
}

function processOnNode(p: ProcessScope, n: NodeScope, a: AbstractScope, b: AbstractScope) {
  const node = workerNode(p.worker);
  return node === n.node
    ? p
    : new InvalidScope(a, b, `worker ${p.worker} runs on ${node}, not ${n.node}`);
}

function types(a: ProcessorTypeScope, b: ProcessorTypeScope): AbstractScope {
  if (a.kind !== undefined && b.kind !== undefined) {
    return new InvalidScope(a, b, `processor kinds ${a.kind} and ${b.kind} differ`);
  }
  const ca = a.processorClass;
  const cb = b.processorClass;
  if (ca && cb) {
    // A prototype chain is linear: an object is an instance of both only via a subclass.
    if (extendsClass(cb, ca)) return b;
    if (extendsClass(ca, cb)) return a;
    return new InvalidScope(a, b, `classes ${ca.name} and ${cb.name} are unrelated`);
  }
  return new IntersectionScope([a, b]);
}

/** `sub` is `base` or a subclass of it. */
function extendsClass(sub: ProcessorClass, base: ProcessorClass): boolean {
  return sub === base || sub.prototype instanceof base;
}

function reasonOf(invalid: InvalidScope): string {
  return invalid.reason ?? invalid.message();
}
