import type { Batcher } from '../../../protocol/batcher.js';
import type { ToWorker } from '../../../protocol/protocol.js';
import type { Requests } from '../../../protocol/requests.js';
import type { DTask } from '../../../task/dtask.js';
import type { IdTable } from '../../../task/id-table.js';

/**
 * Asks the worker behind `out` to hand back those of `tasks` (sent there, in `inFlight`) it has
 * not started (`Executor.giveBack`, for stealing): resolves to the tasks it dropped, taken out
 * of `inFlight`; to none when the worker is lost meanwhile (its tasks are handed back as lost).
 */
export async function takeBack(
  tasks: DTask<unknown>[],
  inFlight: IdTable<DTask<unknown>>,
  requests: Requests,
  out: Batcher<ToWorker>,
): Promise<DTask<unknown>[]> {
  const ids = tasks.filter((t) => inFlight.get(t.id) === t).map((t) => t.id);
  if (ids.length === 0) return [];
  let dropped: number[];
  try {
    dropped = (await requests.ask((req) => out.push({ op: 'giveBack', req, ids }))) as number[];
  } catch {
    return [];
  }
  const back: DTask<unknown>[] = [];
  for (const id of dropped) {
    const task = inFlight.get(id);
    if (task === undefined) continue; // cancelled meanwhile
    inFlight.delete(id);
    back.push(task);
  }
  return back;
}
