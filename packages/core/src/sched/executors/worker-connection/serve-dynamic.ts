import { ArgumentError } from '../../../errors/errors.js';
import { serializeError } from '../../../errors/serialize-error.js';
import type { Batcher } from '../../../protocol/batcher.js';
import type { DynamicRequest, ToWorker } from '../../../protocol/protocol.js';
import { writeAnswer } from '../../../protocol/sync-answer.js';
import type { DTask } from '../../../task/dtask.js';
import type { FunctionDecoder } from '../../../travel/function-ref.js';
import { LocalSchedulerHandle } from '../../dynamic/local-sch-handle.js';
import type { SchedulerState } from '../../scheduler-state.js';

/**
 * The scheduler's side of `schHandle()` in a worker task: acts for `caller` (the task running
 * there) through a local handle, so the checks and the graph are the scheduler's own, and
 * sends the outcome back. `known` finds the tasks that worker spawned (a thunk another of its
 * tasks added, finished or not), which its tasks may fetch by id too.
 */
export function serveDynamic(
  m: DynamicRequest,
  caller: DTask<unknown> | undefined,
  scheduler: SchedulerState,
  decoder: FunctionDecoder,
  out: Batcher<ToWorker>,
  known?: (id: number) => DTask<unknown> | undefined,
): void {
  const handle = caller && new LocalSchedulerHandle(scheduler, caller, known);
  const missing = () =>
    new ArgumentError(`Task #${m.task} is not running on this worker, so it has no handle`);
  if (m.verb === 'dagIds') {
    writeAnswer(m.answer, () => {
      if (!handle) throw missing();
      return [...handle.dagIds()].map(([id, dependents]) => [id, [...dependents]]);
    });
    return;
  }
  if (m.verb === 'halt') {
    handle?.halt();
    return;
  }
  const req = m.req;
  let answer: Promise<unknown>;
  try {
    if (!handle) throw missing();
    if (m.verb === 'exec')
      answer = handle.exec(decoder.decode(m.fn) as (s: SchedulerState) => unknown);
    else answer = m.verb === 'fetch' ? handle.fetch(m.id) : handle.wait(m.id);
  } catch (error) {
    answer = Promise.reject(error);
  }
  answer.then(
    (value) => out.push({ op: 'reply', req, value }),
    (error) => out.push({ op: 'reject', req, error: serializeError(error) }),
  );
}
