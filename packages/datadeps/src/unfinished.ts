import type { DTask } from '@dtask/core';
import { finishedWell } from '@dtask/core/plugin';

/**
 * Those of `deps` not finished well (tasks that finished with a value order nothing any more),
 * in a list made at its size (pushed onto `[]`, it would reserve room for 16); undefined when
 * none is left. `deps` is emptied.
 */
export function unfinished(deps: Set<DTask<unknown>>): DTask<unknown>[] | undefined {
  let waits = 0;
  for (const d of deps) if (!finishedWell(d)) waits++;
  let extra: DTask<unknown>[] | undefined;
  if (waits > 0) {
    extra = new Array<DTask<unknown>>(waits);
    let j = 0;
    for (const d of deps) if (!finishedWell(d)) extra[j++] = d;
  }
  deps.clear();
  return extra;
}
