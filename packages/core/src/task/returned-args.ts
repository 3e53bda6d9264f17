import type { TaskOptions } from './options.js';

/**
 * Copy-in/copy-out of arguments (the `returnArgs` task option). A task that runs in another
 * thread or process receives copies of its arguments; when it writes into some of them in
 * place (a datadeps `Out`/`InOut` of data that is not in a `SharedArrayBuffer`), the runtime
 * that ran it sends the final values of those arguments back with its completion, and the
 * scheduler hands them to the option's `apply` before the task's dependents are released.
 *
 * Worker side: the values to send back for a task that finished, or undefined when the task
 * has no `returnArgs` option (then nothing extra travels).
 */
export function returnedArgs(
  options: TaskOptions,
  args: readonly unknown[],
): unknown[] | undefined {
  const indices = options.returnArgs?.indices;
  if (indices === undefined || indices.length === 0) return undefined;
  const out = new Array<unknown>(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = args[indices[i]];
  return out;
}
