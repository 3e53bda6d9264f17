/**
 * The name logs give a task spawned without a `name` option: its function's own name
 * (`function square`, `const inc = (x) => …`, a method), as Dask derives key prefixes from
 * function names; undefined when it has none (an inline arrow, a function compiled from
 * source with `new Function`, a `Chunk` holding the function), and the views then show `?`.
 * A bound function is named after its target (`bound f` → `f`). Called by the scheduler and
 * the worker runtimes, only while logging is on.
 */
export function functionName(fn: unknown): string | undefined {
  if (typeof fn !== 'function') return undefined;
  let own: unknown;
  try {
    own = fn.name;
  } catch {
    return undefined; // a throwing `name` getter
  }
  if (typeof own !== 'string') return undefined;
  let name = own;
  while (name.startsWith('bound ')) name = name.slice(6);
  return name === '' || name === 'anonymous' ? undefined : name;
}
