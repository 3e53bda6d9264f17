import { isChunk } from '../../chunk/chunk.js';
import { InputLostError } from '../../errors/errors.js';
import { move } from '../../processor/dispatch.js';
import { hasMoveRules } from '../../processor/move-registry.js';
import type { Processor } from '../../processor/processor.js';
import { type DTask, isDTask, type TaskOwner } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';

/**
 * Argument values for `task` on `proc`: task results and chunks are replaced by their
 * values (or by chunks under `meta: true`), moved with `move()` when a rule applies. Returns
 * an array at once when everything is local, else a promise.
 */
export function resolveArgs(
  s: TaskOwner,
  task: DTask<unknown>,
  proc: Processor,
): unknown[] | Promise<unknown[]> {
  const args = task.args;
  const meta = task.options.meta === true;
  // Copied on the first replacement: the task keeps its inputs (its lineage) until it ends.
  let out = args;
  let waits: Promise<unknown>[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null) continue;
    let value: unknown | Promise<unknown>;
    let from: Processor | undefined;
    if (isDTask(a)) {
      const v = a.value;
      if (meta) value = s.fetchChunk(a);
      else if (isRemoteResult(v) && a.owner !== s) {
        // Another context's result: its owner fetches it, and recomputes it if it was lost.
        from = v.processor;
        value = a.fetch();
      } else if (isRemoteResult(v)) {
        from = v.processor;
        value = v
          .fetch()
          .catch((error) =>
            Promise.reject(
              v.isLost()
                ? new InputLostError(`Input ${i} was lost with its worker`, { cause: error })
                : error,
            ),
          );
      } else {
        from = a.proc;
        value = v;
      }
    } else if (isChunk(a) && !meta) {
      from = a.processor;
      value = a.fetch();
    } else continue;
    if (out === args) out = args.slice();
    if (value instanceof Promise) {
      const target = out;
      (waits ??= []).push(value.then((x) => (target[i] = from ? moved(from, proc, x) : x)));
    } else out[i] = from ? moved(from, proc, value) : value;
  }
  if (typeof task.fn === 'object' && isChunk(task.fn)) {
    (waits ??= []).push(task.fn.fetch().then((f) => (task.fn = f)));
  }
  if (waits === undefined) return out;
  const ready = out;
  return Promise.all(waits).then(() => ready);
}

function moved(from: Processor, to: Processor, value: unknown): unknown {
  return hasMoveRules() ? move(from, to, value) : value;
}
