import { TaskFunctionError } from '../errors/errors.js';
import { analyzeFunctionSource } from './free-variables.js';
import { moduleRefOf } from './function-ref.js';

/** Why a function cannot travel as source text. */
export type TravelFailure = 'native' | 'bound' | 'free-variables' | 'unparseable';

/** Whether a function can be sent to another thread or process as its source text. */
export type TravelVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly reason: TravelFailure;
      /** The identifiers it uses from its enclosing scope (empty unless `free-variables`). */
      readonly freeVariables: readonly string[];
      /** What is wrong and what to do, naming the function; without a destination. */
      readonly message: string;
    };

/**
 * Globals that every runtime a task may run in has: ECMAScript built-ins, the Node and web
 * APIs workers share, `dtask` (set by the worker runtime) and `__name` (the keepNames helper
 * of esbuild and tsx, which `compileFunction` installs).
 */
const WORKER_GLOBALS: ReadonlySet<string> = new Set([
  ...['globalThis', 'undefined', 'NaN', 'Infinity', 'eval', 'isNaN', 'isFinite'],
  ...['parseInt', 'parseFloat', 'encodeURI', 'encodeURIComponent', 'decodeURI'],
  ...['decodeURIComponent', 'escape', 'unescape'],
  ...['Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt'],
  ...['Math', 'JSON', 'Reflect', 'Proxy', 'Intl', 'Atomics', 'WebAssembly', 'Date'],
  ...['RegExp', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'Iterator'],
  ...['FinalizationRegistry', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView'],
  ...['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array'],
  ...['Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array'],
  ...['BigUint64Array', 'Error', 'EvalError', 'RangeError', 'ReferenceError'],
  ...['SyntaxError', 'TypeError', 'URIError', 'AggregateError'],
  ...['console', 'queueMicrotask', 'structuredClone', 'setTimeout', 'clearTimeout'],
  ...['setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'performance'],
  ...['crypto', 'fetch', 'atob', 'btoa', 'TextEncoder', 'TextDecoder', 'URL'],
  ...['URLSearchParams', 'AbortController', 'AbortSignal', 'Event', 'EventTarget'],
  ...['MessageChannel', 'MessagePort', 'BroadcastChannel', 'Blob', 'DOMException'],
  ...['ReadableStream', 'WritableStream', 'TransformStream', 'Headers', 'Request'],
  ...['Response', 'FormData', 'process', 'Buffer'],
  ...['dtask', '__name'],
]);

/**
 * Module-local names of CommonJS, never globals in the ES-module workers even where the
 * main thread (a REPL, say) has them on `globalThis`.
 */
const NEVER_GLOBAL: ReadonlySet<string> = new Set([
  'require',
  'module',
  'exports',
  '__filename',
  '__dirname',
]);

function isWorkerGlobal(name: string): boolean {
  if (NEVER_GLOBAL.has(name)) return false;
  return WORKER_GLOBALS.has(name) || name in globalThis;
}

const REMEDY = 'export the function from a module and load it with everywhere(module)';
const OK: TravelVerdict = Object.freeze({ ok: true });

function fail(reason: TravelFailure, message: string, free: string[] = []): TravelVerdict {
  return Object.freeze({
    ok: false,
    reason,
    freeVariables: Object.freeze(free),
    message,
  });
}

/** Names `fn`; an anonymous one by the start of its source text, so a warning can point at it. */
function describe(fn: Function, source?: string): string {
  if (fn.name) return `Task function '${fn.name}'`;
  if (source === undefined) return 'The task function';
  const flat = source.replace(/\s+/g, ' ');
  return `The task function \`${flat.length > 48 ? `${flat.slice(0, 45)}...` : flat}\``;
}

const analyses = new Map<string, ReturnType<typeof analyzeFunctionSource> | Error>();

/**
 * `analyzeFunctionSource` by source text: a loop that spawns `(x) => x + 1` makes a new
 * function object each time, but parses it once.
 */
function analyzeCached(source: string): ReturnType<typeof analyzeFunctionSource> {
  let result = analyses.get(source);
  if (result === undefined) {
    try {
      result = analyzeFunctionSource(source);
    } catch (error) {
      result = error as Error;
    }
    if (analyses.size >= 10_000) analyses.clear();
    analyses.set(source, result);
  }
  if (result instanceof Error) throw result;
  return result;
}

function judge(fn: Function, known?: string): TravelVerdict {
  let source: string;
  try {
    source = known ?? Function.prototype.toString.call(fn);
  } catch (error) {
    return fail(
      'unparseable',
      `${describe(fn)} has no readable source text (${String(error)}); ${REMEDY}.`,
    );
  }
  const label = describe(fn, source);
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) {
    if (fn.name.startsWith('bound ')) {
      return fail(
        'bound',
        `${label} is a bound function, whose bound this and arguments cannot be sent as source ` +
          `text; spawn the unbound function and pass them as arguments, or ${REMEDY}.`,
      );
    }
    return fail(
      'native',
      `${label} is a native function, which has no source text to send; wrap it in a plain ` +
        `function (for example (...xs) => Math.max(...xs)), or ${REMEDY}.`,
    );
  }
  let analysis: ReturnType<typeof analyzeFunctionSource>;
  try {
    analysis = analyzeCached(source);
  } catch (error) {
    return fail(
      'unparseable',
      `${label} could not be parsed from its source text (${(error as Error).message}); ${REMEDY}.`,
    );
  }
  if (analysis.kind === 'class') {
    return fail(
      'unparseable',
      `${label} is a class, not a callable function; spawn a function that constructs it, ` +
        `or ${REMEDY}.`,
    );
  }
  const free = analysis.freeVariables.filter((name) => !isWorkerGlobal(name));
  if (free.length === 0) return OK;
  // vite and vitest rewrite a module's imports to __vite_ssr_import_N__.name.
  const viteNote = free.some((name) => name.startsWith('__vite_ssr_'))
    ? ' (names starting with __vite_ssr_ are imports of its module, as vite rewrote them)'
    : '';
  return fail(
    'free-variables',
    `${label} uses variables of its enclosing scope (${free.join(', ')})${viteNote}, so it ` +
      `can only run in the thread that defined it; pass them as arguments, or ${REMEDY}.`,
    free,
  );
}

/**
 * Decides whether `fn` can run in another thread or process: a function exported by a module
 * loaded with `everywhere` travels by reference (it may use its module's imports and state);
 * any other must travel as source text, so it must be a plain function, arrow or method that
 * uses only its parameters and globals of every runtime. The verdict is computed once per
 * source text and the same frozen object returned afterwards (a negative one is revisited once
 * the function's module is loaded with `everywhere`).
 */
export function checkFunctionTravel(fn: Function): TravelVerdict {
  // The last few functions first, then by object: a program that alternates between a few
  // functions (a stencil's block and halo-strip tasks) would otherwise read and hash each one's
  // source text at every spawn.
  for (let i = 0; i < RECENT; i++) {
    if (recentFns[i] === fn) {
      const known = recentVerdicts[i];
      if (known.ok || moduleRefOf(fn) === undefined) return known;
      break;
    }
  }
  const known = byFn.get(fn);
  if (known !== undefined && (known.ok || moduleRefOf(fn) === undefined)) {
    remember(fn, known);
    return known;
  }
  let verdict: TravelVerdict | undefined;
  if (moduleRefOf(fn) !== undefined) {
    verdict = OK;
    byFn.set(fn, verdict);
  } else {
    // By name and source rather than by object: loops make a new closure every turn. Only the
    // first function object of a source is kept by object; the closures a loop makes after it
    // are found by source (an entry per closure in a WeakMap cost more than reading the source
    // again, in the set and in the garbage collector). The last text judged is compared first:
    // a loop's closures then cost no key to build and hash at each spawn.
    const source = Function.prototype.toString.call(fn);
    if (source === lastSource && fn.name === lastName) verdict = lastVerdict;
    else {
      const key = `${fn.name}\u0000${source}`;
      verdict = bySource.get(key);
      if (verdict === undefined) {
        verdict = judge(fn, source);
        if (bySource.size >= 10_000) bySource.clear();
        bySource.set(key, verdict);
        byFn.set(fn, verdict);
      }
      lastSource = source;
      lastName = fn.name;
      lastVerdict = verdict;
    }
  }
  remember(fn, verdict);
  return verdict;
}

const byFn = new WeakMap<Function, TravelVerdict>();
const bySource = new Map<string, TravelVerdict>();
/** The source text and name judged last (not a module function), and their verdict. */
let lastSource: string | undefined;
let lastName = '';
let lastVerdict: TravelVerdict = OK;
/** The functions judged most recently, with their verdicts (a ring). */
const RECENT = 4;
const recentFns: (Function | undefined)[] = new Array(RECENT).fill(undefined);
const recentVerdicts: TravelVerdict[] = new Array(RECENT).fill(OK);
let recentNext = 0;

function remember(fn: Function, verdict: TravelVerdict): void {
  recentFns[recentNext] = fn;
  recentVerdicts[recentNext] = verdict;
  recentNext = (recentNext + 1) % RECENT;
}

/**
 * Throws `TaskFunctionError` when `fn` cannot travel as source text, naming `where` it was to
 * go (for example `'worker 2'`) and, for a closure, the variables it uses. Called by `spawn`
 * when the task's scope excludes the thread that defined `fn`.
 */
export function assertFunctionCanTravel(fn: Function, where: string): void {
  const verdict = checkFunctionTravel(fn);
  if (!verdict.ok) {
    throw new TaskFunctionError(`Cannot send a task function to ${where}: ${verdict.message}`);
  }
}
