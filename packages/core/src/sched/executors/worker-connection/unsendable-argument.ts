import { isChunk } from '../../../chunk/chunk.js';
import { describeValue } from '../../../errors/describe-value.js';
import { ArgumentError } from '../../../errors/errors.js';
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
    const handle = nestedHandle(args[i]);
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
          `${cause instanceof Error ? cause.message : String(cause)}. A task that runs on another ` +
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
