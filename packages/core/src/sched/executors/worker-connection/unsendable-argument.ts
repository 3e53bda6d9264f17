import { isChunk } from '../../../chunk/chunk.js';
import { describeValue } from '../../../errors/describe-value.js';
import { ArgumentError } from '../../../errors/errors.js';
import { messageOf } from '../../../errors/message-of.js';
import { serializeError } from '../../../errors/serialize-error.js';
import { forEachRun } from '../../../protocol/packs.js';
import { RUNS, type RunPack, type ToWorker } from '../../../protocol/protocol.js';
import { isDTask } from '../../../task/dtask.js';

/** How deep `nestedHandle` looks into an argument. */
const MAX_DEPTH = 16;

/**
 * The first `DTask` or `Chunk` inside `value` (arrays, plain objects, Maps and Sets), as the
 * path to it and what it is; `undefined` when there is none.
 */
function nestedHandle(
  value: unknown,
  path = '',
  depth = 0,
  seen = new Set<unknown>(),
): { path: string; what: string } | undefined {
  if (typeof value !== 'object' || value === null || seen.has(value) || depth > MAX_DEPTH) {
    return undefined;
  }
  if (depth > 0 && isDTask(value)) return { path, what: `a DTask (task #${value.id})` };
  if (depth > 0 && isChunk(value)) return { path, what: 'a Chunk' };
  seen.add(value);
  const inner = (v: unknown, p: string) => nestedHandle(v, p, depth + 1, seen);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = inner(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value instanceof Map) {
    for (const [k, v] of value) {
      const found = inner(k, `${path}.keys()`) ?? inner(v, `${path}.get(${describeValue(k)})`);
      if (found) return found;
    }
    return undefined;
  }
  if (value instanceof Set) {
    for (const v of value) {
      const found = inner(v, `${path}.values()`);
      if (found) return found;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = inner(v, `${path}.${k}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * Why a task could not be sent to another thread or process: an `ArgumentError` naming the
 * argument that cannot be copied there and what to pass instead, or `error` itself when every
 * argument copies (the options or the function were the problem). A `DTask` or `Chunk` nested
 * inside an argument is named as such: it is passed as it is, not as a dependency, and a
 * handle does not copy. Called only once sending failed, so the per-argument copies and the
 * search cost nothing on the normal path.
 */
export function unsendableArgument(
  taskId: number,
  args: readonly unknown[],
  holder: string,
  error: unknown,
): unknown {
  for (let i = 0; i < args.length; i++) {
    // Looking inside can throw too (a getter, a proxy's trap, a revoked proxy): then the copy
    // below fails and says why.
    let handle: ReturnType<typeof nestedHandle>;
    try {
      handle = nestedHandle(args[i]);
    } catch {
      handle = undefined;
    }
    if (handle) {
      return new ArgumentError(
        `Argument ${i} of task #${taskId} (${describeValue(args[i])}) holds ${handle.what} at ` +
          `${handle.path}: a DTask or Chunk nested inside an array or object is not a dependency ` +
          `(it is passed as it is) and cannot be copied to ${holder}. To use its value, pass it ` +
          'as an argument of its own: spawn((...xs) => f(xs), ...tasks) instead of ' +
          'spawn(f, tasks); or await it before spawning.',
        { cause: error },
      );
    }
    try {
      structuredClone(args[i]);
    } catch (cause) {
      return new ArgumentError(
        `Argument ${i} of task #${taskId} (${describeValue(args[i])}) cannot be copied to ${holder}: ` +
          `${messageOf(cause).replace(/\.+$/, '')}. A task that runs on another ` +
          'thread or process gets copies of its arguments, so they must be plain data (numbers, ' +
          'strings, arrays, plain objects, typed arrays, Maps, Sets). Pass a function as the ' +
          "task's own function (spawn(f, ...)), or export it from a module loaded with " +
          'everywhere(); or scope the task to the main thread.',
        { cause },
      );
    }
  }
  return error;
}

/**
 * The scheduler's `Batcher.onUnsendable` for messages to a runtime: each task of a message that
 * cannot be cloned fails through `fail(id, error)` with `unsendableArgument`; a reply becomes
 * a rejection; anything else is dropped. Returns what to send instead, if anything.
 */
export function unsendableToWorker(
  m: ToWorker,
  error: unknown,
  holder: string,
  fail: (id: number, error: unknown) => void,
): ToWorker | undefined {
  if (Array.isArray(m) && m[0] === RUNS) {
    // Not expected (a pack holds primitives and function references only): fail its tasks.
    forEachRun(m as RunPack, (id, _fn, args) =>
      fail(id, unsendableArgument(id, args, holder, error)),
    );
  } else if (Array.isArray(m)) fail(m[1], unsendableArgument(m[1], m[3], holder, error));
  else if (m.op === 'reply') return { op: 'reject', req: m.req, error: serializeError(error) };
  return undefined;
}
