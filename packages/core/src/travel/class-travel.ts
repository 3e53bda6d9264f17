import { moduleExport, moduleRefOf } from './function-ref.js';

/**
 * Class instances across threads and processes. Structured cloning keeps an instance's own
 * fields but not its class: it would arrive as a plain object without its methods. So a value
 * leaving for another runtime is searched (arrays, plain objects, Maps, Sets, as deep as
 * `MAX_DEPTH`) for instances: one of a class exported by a module loaded with `everywhere` (a
 * class the receiver knows by the same module and name) travels as its class's name and its
 * own enumerable fields, and is rebuilt there as an instance of that class (its prototype set,
 * its constructor not called, as a deserializer does); any other is refused with
 * `UnregisteredClassError`, never turned silently into a plain object. Values with no
 * instance travel as they are, at the cost of the search.
 */

/** The key marking a value that holds class instances (`boxClasses`); never a user's key. */
const BOXED = '\u0000dtask.classes';
/** The key of an instance's class (`[module, name]`) in its travelling form. */
const CLASS = '\u0000dtask.class';
const MAX_DEPTH = 64;

/** A value holding class instances, as it travels. */
interface Boxed {
  [BOXED]: 1;
  v: unknown;
}

/** A class instance found where no registered class can rebuild it. */
export interface UnregisteredInstance {
  /** The class's name (`constructor.name`), or `'an anonymous class'`. */
  className: string;
  /** Where in the value it was (`''` for the value itself, `.a[2]`, `.get("k")`). */
  path: string;
}

/** Thrown by `boxClasses` for an instance of a class not loaded with `everywhere`. */
export class UnregisteredClassFound extends Error {
  constructor(readonly found: UnregisteredInstance) {
    super(`an instance of class ${found.className}`);
  }
}

const PLAIN_PROTOS = new Set<unknown>([Object.prototype, null, Array.prototype]);

/** Objects structured cloning copies with their kind (or refuses): not class instances here. */
function isBuiltin(x: object): boolean {
  return (
    ArrayBuffer.isView(x) ||
    x instanceof Map ||
    x instanceof Set ||
    x instanceof Date ||
    x instanceof RegExp ||
    x instanceof Error ||
    x instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && x instanceof SharedArrayBuffer) ||
    x instanceof Boolean ||
    x instanceof Number ||
    x instanceof String ||
    x instanceof Promise ||
    x instanceof WeakMap ||
    x instanceof WeakSet ||
    (typeof Blob !== 'undefined' && x instanceof Blob)
  );
}

/**
 * `value` ready to leave for another runtime: itself when it holds no class instance (the
 * common case, no copy), else a boxed copy in which each instance is its travelling form.
 * `skip` leaves objects of the runtime's own (task handles, chunks) as they are. Throws
 * `UnregisteredClassFound` for an instance whose class was not loaded with `everywhere`.
 */
export function boxClasses(value: unknown, skip?: (x: object) => boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // Most values hold no instance: a typed array, a strided view, an array of numbers. A scan
  // with no copy, no path and no memo says so; the full encoding runs only where it finds one.
  const budget = { left: QUICK_SCAN_NODES };
  if (!mayHoldInstance(value, 0, skip, budget)) return value;
  const out = encode(value, '', 0, new Map(), skip);
  return out === value ? value : ({ [BOXED]: 1, v: out } satisfies Boxed);
}

/** The value `boxClasses` boxed, with its instances rebuilt; any other value as it is. */
export function unboxClasses(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || (value as Boxed)[BOXED] !== 1) return value;
  return decode((value as Boxed).v, new Map());
}

/**
 * Arrays and plain objects the quick scan of `boxClasses` looks into before it hands over to
 * the full encoding (typed arrays and other leaves do not count). A tiled algorithm's message
 * (a job holding a few dozen strided views, each an object, its data and two short arrays)
 * stays within it: the encoding, with its paths and its memo, costs several times the scan
 * for each object it visits.
 */
const QUICK_SCAN_NODES = 256;

/**
 * False when `x` surely holds no class instance that `encode` would box or refuse (arrays and
 * plain objects looked into, builtins and `skip`ped objects not); true when it may (an
 * instance seen, a Map or Set to look into, or more than the budget's arrays and plain objects,
 * or deeper than `MAX_DEPTH`: shared parts and cycles are left to `encode`, which remembers
 * what it saw).
 */
function mayHoldInstance(
  x: object,
  depth: number,
  skip: ((x: object) => boolean) | undefined,
  budget: { left: number },
): boolean {
  if (Array.isArray(x)) {
    if (--budget.left < 0 || depth > MAX_DEPTH) return true;
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (typeof v === 'object' && v !== null && mayHoldInstance(v, depth + 1, skip, budget))
        return true;
    }
    return false;
  }
  const proto = Object.getPrototypeOf(x);
  if (PLAIN_PROTOS.has(proto)) {
    if (--budget.left < 0 || depth > MAX_DEPTH) return true;
    // `for…in`, not `Object.keys`: no array of the keys is made (a strided view in every
    // message of a tiled algorithm). An enumerable key inherited from a polluted
    // `Object.prototype` is looked at too, which can only send the value to `encode`.
    for (const key in x) {
      const v = (x as Record<string, unknown>)[key];
      if (typeof v === 'object' && v !== null && mayHoldInstance(v, depth + 1, skip, budget))
        return true;
    }
    return false;
  }
  if (ArrayBuffer.isView(x)) return false;
  if (skip?.(x) || isBuiltin(x)) return x instanceof Map || x instanceof Set;
  return true;
}

function encode(
  x: unknown,
  path: string,
  depth: number,
  memo: Map<object, unknown>,
  skip: ((x: object) => boolean) | undefined,
): unknown {
  if (typeof x !== 'object' || x === null || depth > MAX_DEPTH) return x;
  const done = memo.get(x);
  if (done !== undefined) return done;
  memo.set(x, x); // a cycle back to `x` keeps `x` until its copy is known
  const proto = Object.getPrototypeOf(x);
  const inner = (v: unknown, p: string) => encode(v, p, depth + 1, memo, skip);
  let out: unknown = x;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (typeof v !== 'object' || v === null) continue;
      const e = inner(v, `${path}[${i}]`);
      if (e !== v) {
        if (out === x) out = x.slice();
        (out as unknown[])[i] = e;
      }
    }
  } else if (PLAIN_PROTOS.has(proto)) {
    out = encodeFields(x as Record<string, unknown>, path, inner);
  } else if (skip?.(x) || isBuiltin(x)) {
    if (x instanceof Map) {
      let changed = false;
      const entries: [unknown, unknown][] = [];
      for (const [k, v] of x) {
        const label = typeof k === 'string' ? JSON.stringify(k) : String(k);
        const ek = inner(k, `${path}.keys()`);
        const ev = inner(v, `${path}.get(${label})`);
        changed ||= ek !== k || ev !== v;
        entries.push([ek, ev]);
      }
      if (changed) out = new Map(entries);
    } else if (x instanceof Set) {
      let changed = false;
      const items: unknown[] = [];
      for (const v of x) {
        const e = inner(v, `${path}.values()`);
        changed ||= e !== v;
        items.push(e);
      }
      if (changed) out = new Set(items);
    }
  } else {
    const ctor = (proto as { constructor?: unknown }).constructor;
    const ref = typeof ctor === 'function' ? moduleRefOf(ctor) : undefined;
    if (ref === undefined) {
      const name = typeof ctor === 'function' && ctor.name ? ctor.name : 'an anonymous class';
      throw new UnregisteredClassFound({ className: name, path });
    }
    const box: Record<string, unknown> = { [CLASS]: [ref.module, ref.name] };
    memo.set(x, box);
    const fields = encodeFields(x as Record<string, unknown>, path, inner);
    box.f = fields === x ? { ...(x as object) } : fields;
    return box;
  }
  memo.set(x, out);
  return out;
}

/** `x`'s own enumerable fields encoded: `x` itself when none changed, else a plain copy. */
function encodeFields(
  x: Record<string, unknown>,
  path: string,
  inner: (v: unknown, p: string) => unknown,
): unknown {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(x)) {
    const v = x[key];
    if (typeof v !== 'object' || v === null) continue;
    const e = inner(v, `${path}.${key}`);
    if (e !== v) {
      out ??= { ...x };
      out[key] = e;
    }
  }
  return out ?? x;
}

function decode(x: unknown, memo: Map<object, unknown>): unknown {
  if (typeof x !== 'object' || x === null) return x;
  const done = memo.get(x);
  if (done !== undefined) return done;
  const proto = Object.getPrototypeOf(x);
  if (Array.isArray(x)) {
    memo.set(x, x);
    for (let i = 0; i < x.length; i++) x[i] = decode(x[i], memo);
    return x;
  }
  if (x instanceof Map) {
    memo.set(x, x);
    const entries = [...x].map(([k, v]) => [decode(k, memo), decode(v, memo)] as const);
    x.clear();
    for (const [k, v] of entries) x.set(k, v);
    return x;
  }
  if (x instanceof Set) {
    memo.set(x, x);
    const items = [...x].map((v) => decode(v, memo));
    x.clear();
    for (const v of items) x.add(v);
    return x;
  }
  if (proto !== Object.prototype && proto !== null) return x;
  const tag = (x as Record<string, unknown>)[CLASS];
  if (Array.isArray(tag)) {
    const [module, name] = tag as [string, string];
    const ctor = moduleExport(module, name);
    if (ctor === undefined) {
      throw new Error(
        `class ${name} of ${module} is not loaded in this runtime; load its module with everywhere(module) before sending its instances`,
      );
    }
    const instance = Object.create(ctor.prototype as object) as Record<string, unknown>;
    memo.set(x, instance);
    const fields = (x as { f: Record<string, unknown> }).f;
    for (const key of Object.keys(fields)) instance[key] = decode(fields[key], memo);
    return instance;
  }
  memo.set(x, x);
  for (const key of Object.keys(x)) {
    (x as Record<string, unknown>)[key] = decode((x as Record<string, unknown>)[key], memo);
  }
  return x;
}

/**
 * What to tell the user about `found`: `what` names the value (`Argument 0 of task #3`, `The
 * result of task #3`) and `where` where it was going.
 */
export function unregisteredClassMessage(
  what: string,
  where: string,
  found: UnregisteredInstance,
): string {
  const at = found.path === '' ? 'is' : `holds at ${found.path}`;
  const name = found.className;
  return (
    `${what} ${at} an instance of class ${name}, which cannot go to ${where} as it is: ` +
    'structured cloning would make it a plain object without its methods. Export the class ' +
    `from a module and load that module with everywhere(module), so that it arrives as a ${name}; ` +
    'or pass plain data (an object of its fields) and build the instance in the task.'
  );
}
