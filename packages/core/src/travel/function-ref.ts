import { TaskFunctionError } from '../errors/errors.js';

/**
 * How a function travels: by source text (compiled once per runtime and cached), by a name in
 * a module every worker loaded (`everywhere`), or by a number the receiver already knows.
 */
export type FnRef =
  | { kind: 'source'; id: number; source: string; name?: string }
  | { kind: 'module'; id: number; module: string; name: string }
  | { kind: 'known'; id: number };

const MODULE_KEY = Symbol.for('dtask.moduleFunctions');

interface ModuleName {
  module: string;
  name: string;
}

function moduleFunctions(): WeakMap<Function, ModuleName> {
  const g = globalThis as unknown as { [MODULE_KEY]?: WeakMap<Function, ModuleName> };
  g[MODULE_KEY] ??= new WeakMap();
  return g[MODULE_KEY];
}

/**
 * Records the exported functions of a module loaded in every runtime (`everywhere`), so they
 * travel by reference (module specifier + export name) rather than as source text.
 */
export function registerModuleFunctions(module: string, namespace: Record<string, unknown>): void {
  const known = moduleFunctions();
  const byName = moduleExports();
  for (const [name, value] of Object.entries(namespace)) {
    if (typeof value === 'function' && !known.has(value)) {
      known.set(value, { module, name });
      byName.set(`${module}\u0000${name}`, value);
    }
  }
}

const EXPORTS_KEY = Symbol.for('dtask.moduleExports');

function moduleExports(): Map<string, Function> {
  const g = globalThis as unknown as { [EXPORTS_KEY]?: Map<string, Function> };
  g[EXPORTS_KEY] ??= new Map();
  return g[EXPORTS_KEY];
}

/** The function (or class) `name` exported by `module`, a module loaded with `everywhere` here. */
export function moduleExport(module: string, name: string): Function | undefined {
  return moduleExports().get(`${module}\u0000${name}`);
}

/** The module reference of `fn`, if it was exported by a module loaded with `everywhere`. */
export function moduleRefOf(fn: Function): ModuleName | undefined {
  return moduleFunctions().get(fn);
}

let nextFnId = 1;
const fnIds = new WeakMap<Function, number>();
/** Ids by source text: new closures with the same (self-contained) source share one id. */
const sourceIds = new Map<string, number>();

/**
 * The source text read last, and its id: a loop that spawns `(x) => x + 1` makes a new closure
 * each turn, whose text is then compared with the last one's rather than hashed for the map.
 */
let lastSource: string | undefined;
let lastSourceId = 0;

/** The functions named most recently, with their ids: a DAG of a few kernels hits here. */
const RECENT = 8;
const recentFns: (Function | undefined)[] = new Array(RECENT).fill(undefined);
const recentIds: number[] = new Array(RECENT).fill(0);
let recentNext = 0;

/**
 * A number naming `fn` program-wide: per object for module functions, per source text for the
 * rest (so the closures a loop makes each turn, identical and self-contained, are one
 * function to the cost model and to the receivers' compile caches). No per-closure entry is
 * kept, which would burden the garbage collector; the last few functions are remembered, so
 * that their source text is not read and hashed again for every task.
 */
export function functionId(fn: Function): number {
  for (let i = 0; i < RECENT; i++) if (recentFns[i] === fn) return recentIds[i];
  let id = fnIds.get(fn);
  if (id === undefined) {
    if (moduleRefOf(fn) !== undefined) fnIds.set(fn, (id = nextFnId++));
    else {
      const source = Function.prototype.toString.call(fn);
      if (source === lastSource) id = lastSourceId;
      else {
        id = sourceIds.get(source);
        if (id === undefined) {
          id = nextFnId++;
          if (sourceIds.size >= 10_000) sourceIds.clear();
          sourceIds.set(source, id);
        }
        lastSource = source;
        lastSourceId = id;
      }
    }
  }
  recentFns[recentNext] = fn;
  recentIds[recentNext] = id;
  recentNext = (recentNext + 1) % RECENT;
  return id;
}

/**
 * Turns functions into `FnRef`s for one receiver: the first time by source or module name,
 * afterwards by a number the receiver has cached. One encoder per connection.
 */
export class FunctionEncoder {
  private readonly sent = new Set<number>();

  private lastFn: Function | undefined;
  private lastId = 0;

  /** The reference to send for `fn`: a number once the receiver has it cached. */
  encode(fn: Function): FnRef | number {
    if (fn === this.lastFn) return this.lastId;
    const id = functionId(fn);
    if (this.sent.has(id)) {
      this.lastFn = fn;
      this.lastId = id;
      return id;
    }
    this.sent.add(id);
    const mod = moduleRefOf(fn);
    if (mod) return { kind: 'module', id, module: mod.module, name: mod.name };
    const source = Function.prototype.toString.call(fn);
    // Its name, which the source of an arrow or a function expression bound to a variable
    // lacks (`const inc = (x) => …`): logs of the tasks spawned there name them after it.
    return fn.name ? { kind: 'source', id, source, name: fn.name } : { kind: 'source', id, source };
  }

  /** Forgets what the receiver knows (after it restarted). */
  reset(): void {
    this.sent.clear();
    this.lastFn = undefined;
  }
}

function installNameShim(): void {
  // Transpilers (tsx, esbuild keepNames) wrap functions in __name(fn, "name"); give shipped
  // source the helper it expects.
  const g = globalThis as { __name?: unknown };
  g.__name ??= (fn: Function, name: string) =>
    Object.defineProperty(fn, 'name', { value: name, configurable: true });
}

/**
 * The file name stacks show for a task function compiled from its source text:
 * `dtask:task/<name>.js` (its name made safe for a URL; `anonymous` when it has none).
 */
export function taskSourceName(name?: string): string {
  const safe = (name ?? '').replace(/[^\w$.-]/g, '_').slice(0, 80);
  return `dtask:task/${safe || 'anonymous'}.js`;
}

/**
 * Evaluates the expression `code` in the global scope, named `file` in stacks (`sourceURL`).
 * Indirect `eval`, not `node:vm`: a dynamic `import()` in the task resolves as it does in this
 * module (vm scripts need an experimental loader for it), and unlike `new Function` it adds no
 * lines, so a stack's line numbers are the function's own.
 */
function runNamed(code: string, file: string): unknown {
  return globalEval(`${code}\n//# sourceURL=${file}`);
}

/** `eval` called through a name: an indirect eval, which runs in the global scope. */
// biome-ignore lint/security/noGlobalEval: compiling a task function's own source is the point.
const globalEval: (code: string) => unknown = eval;

/**
 * Compiles a function's source text in this runtime (global scope only). Errors thrown in it
 * name the function's own file in their stacks (`at double (dtask:task/double.js:2:9)`, lines
 * and columns counted in the function's source text), not the compiling code's.
 */
export function compileFunction(source: string, name?: string): Function {
  installNameShim();
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) {
    throw new TaskFunctionError(
      'A native or bound function cannot travel to another thread; wrap it in a plain function or load it with everywhere()',
    );
  }
  let fn: unknown;
  const file = taskSourceName(name);
  try {
    fn = runNamed(`(${source}\n)`, file);
  } catch {
    try {
      // Method shorthand (`name(x) { ... }`) is not an expression on its own.
      const holder = runNamed(`({${source}\n })`, file) as Record<string, unknown>;
      fn = Object.values(holder)[0];
    } catch (error) {
      throw new TaskFunctionError(
        `Cannot compile the task function's source here: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
  }
  if (typeof fn !== 'function') {
    throw new TaskFunctionError('The task function did not compile to a function');
  }
  return fn;
}

/** Turns `FnRef`s back into functions, caching by id. One decoder per sender. */
export class FunctionDecoder {
  private readonly byId = new Map<number, Function>();

  constructor(
    private readonly loadModule: (module: string) => Record<string, unknown> | undefined,
  ) {}

  /** The function for `ref`; throws `TaskFunctionError` when it cannot be made here. */
  decode(ref: FnRef | number): Function {
    const cached = this.byId.get(typeof ref === 'number' ? ref : ref.id);
    if (cached) return cached;
    if (typeof ref === 'number') {
      throw new TaskFunctionError(
        `Unknown function #${ref}: the sender assumed it was cached here`,
      );
    }
    let fn: Function;
    if (ref.kind === 'source') {
      fn = compileFunction(ref.source, ref.name);
      if (ref.name && fn.name !== ref.name) {
        Object.defineProperty(fn, 'name', { value: ref.name, configurable: true });
      }
    } else if (ref.kind === 'module') {
      const ns = this.loadModule(ref.module);
      const value = ns?.[ref.name];
      if (typeof value !== 'function') {
        throw new TaskFunctionError(
          `Function '${ref.name}' of module '${ref.module}' is not loaded here; call everywhere('${ref.module}') first`,
        );
      }
      fn = value;
    } else {
      throw new TaskFunctionError(
        `Unknown function #${ref.id}: the sender assumed it was cached here`,
      );
    }
    this.byId.set(ref.id, fn);
    return fn;
  }
}
