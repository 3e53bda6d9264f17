import { ArgumentError } from '../../errors/errors.js';
import { DTask } from '../../task/dtask.js';
import { groupOutput, type StoredParts } from '../../task/group-parts.js';
import { NO_OPTIONS } from '../../task/options.js';
import { RemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { WorkerConnection } from '../executors/worker-connection/worker-connection.js';
import type { ProcSlot } from '../placement/proc-slot.js';

const NO_ARGS: unknown[] = [];

/**
 * A finished group task's outputs (its function returned `groupParts`) as finished tasks, one
 * per output, in order, each naming its output on the group's worker under its own key; once
 * per group (a second call throws `ArgumentError`). They are made without the scheduler: no
 * placement, message, promise or `FinalizationRegistry` cell per output. Each can be fetched
 * and passed to other tasks; the outputs are released on the worker together, once no handle
 * of the group is reachable. A handle whose worker is lost fails with `WorkerLostError` (its
 * output is not made again: spawn the group again).
 */
export function groupPartHandles<T>(group: DTask<unknown>): DTask<T>[] {
  const owner = group.owner as unknown as { slotOf?(id: string): ProcSlot | undefined };
  const proc = group.proc;
  const connection = proc === undefined ? undefined : owner.slotOf?.(proc.id)?.executor;
  const stored = group.value as StoredParts | undefined;
  if (
    group.state !== TaskState.Done ||
    !(connection instanceof WorkerConnection) ||
    typeof stored?.base !== 'number' ||
    !Array.isArray(stored.sizes) ||
    stored.handed === true
  ) {
    throw new ArgumentError(
      `groupPartHandles: ${group} has not finished on a worker with groupParts' outputs, or its ` +
        'outputs were handed out already (once per group: keep those handles); await the group ' +
        'task first, and return groupParts(base, values) from its function',
    );
  }
  stored.handed = true;
  const { base, sizes } = stored;
  // Held by each handle's result (its fetch functions): collected once no handle is reachable.
  const holder = { connection };
  const keys = new Array<number>(sizes.length);
  const parts = new Array<DTask<T>>(sizes.length);
  const { isLost } = connection;
  const isInHost = connection.held.isInHost;
  for (let i = 0; i < sizes.length; i++) {
    const key = base + i;
    keys[i] = key;
    const result = new RemoteResult(
      proc!,
      () => holder.connection.fetch(key),
      sizes[i],
      { connection, key },
      isLost,
      () => holder.connection.fetch(key, true),
      isInHost,
    );
    const part = new DTask<T>(group.owner, key, groupOutput, NO_ARGS, group.options, NO_OPTIONS);
    part.state = TaskState.Done;
    part.proc = proc;
    part.value = result;
    parts[i] = part;
  }
  connection.held.releaseAllWith(holder, keys);
  return parts;
}
