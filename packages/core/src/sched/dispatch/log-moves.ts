import { sizeOf } from '../../chunk/size-of.js';
import { logEvent, now } from '../../log/event-log.js';
import type { Processor } from '../../processor/processor.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';

/**
 * Logs a `move` for each input of `task` that is held on another processor than `proc`, where
 * the task starts: from its holder to `proc`, with its size (as its holder reported it, or
 * `sizeOf` for a value held here). Called only while logging is on; the runtimes then move the data (peer to
 * peer, or through the scheduler), so the event records what had to travel, once per task.
 */
export function logMoves(task: DTask<unknown>, proc: Processor): void {
  for (const a of task.args) {
    if (!isDTask(a)) continue;
    const v = a.value;
    const from = isRemoteResult(v) ? v.processor : a.proc;
    if (from === undefined || from.id === proc.id) continue;
    logEvent({
      kind: 'move',
      time: now(),
      task: task.id,
      input: a.id,
      name: a.options.name,
      from: from.id,
      to: proc.id,
      worker: proc.worker,
      bytes: isRemoteResult(v) ? v.bytes : sizeOf(v),
    });
  }
}
