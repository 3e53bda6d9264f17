import { TaskFunctionError } from '../../errors/errors.js';
import type { AbstractScope } from '../../scope/index.js';
import type { TaskOptions } from '../../task/options.js';
import { TaskFlags } from '../../task/task-state.js';
import { checkFunctionTravel } from '../../travel/function-travel.js';
import type { SlotTable } from '../scheduler-state.js';
import { keptOnMainThread, type LocalClosurePolicy } from './local-closure.js';

/**
 * See `TaskSink.admit`: a function that cannot travel (it closes over local variables, or is
 * native or bound) runs on this thread; if its scope excludes this thread, `spawn` throws
 * `TaskFunctionError` naming what it closes over and what to do. Kept on this thread, it
 * meets the context's `localClosures` policy (a warning once per function by default).
 */
export function admitFunction(
  s: SlotTable & LocalClosurePolicy,
  fn: unknown,
  options: TaskOptions,
): number {
  if (s.shippingSlots === 0 || typeof fn !== 'function') return 0;
  const verdict = checkFunctionTravel(fn);
  if (verdict.ok) return 0;
  const local = s.slots.find((s) => s.executor.inline);
  const scope = options.computeScope ?? options.scope;
  const excluded = (s: AbstractScope | undefined) =>
    s !== undefined && !!local && !s.contains(local.proc);
  if (!local || excluded(scope) || excluded(options.resultScope)) {
    throw new TaskFunctionError(
      `${verdict.message} Its scope (${scope ?? options.resultScope ?? 'default'}) does not include the main thread, where it could run as it is.`,
    );
  }
  keptOnMainThread(s, verdict, local.proc.id);
  return TaskFlags.LocalOnly;
}
