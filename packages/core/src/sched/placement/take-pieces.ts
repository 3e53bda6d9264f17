import { isChunk } from '../../chunk/chunk.js';
import { SchedulingError } from '../../errors/errors.js';
import { describeTask } from '../../errors/task-failed-error.js';
import type { Processor } from '../../processor/processor.js';
import { type DTask, taskExtra } from '../../task/dtask.js';
import { TaskFlags } from '../../task/task-state.js';
import { pendingTaskOf } from '../ready/pending-task-of.js';

/**
 * Called by the scheduler once it has chosen `proc` for a task flagged `PieceArgs`: replaces
 * each argument that is a chunk of one piece per processor (a shard) by the piece `proc`
 * holds, and marks the task `inPlace` (it may mutate that piece). When some of those pieces
 * are still being made, it changes nothing and returns the tasks making them: the task waits
 * for them and is then placed again (with the pieces that exist by then, and the processors'
 * loads of then). Throws `SchedulingError` when `proc` holds no piece (the chunk's scope was
 * too wide).
 */
export function takePieces(task: DTask<unknown>, proc: Processor): DTask<unknown>[] | undefined {
  const before = task.args;
  const args = before.slice();
  let making: DTask<unknown>[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!isChunk(a) || typeof a.handle.pieceFor !== 'function') continue;
    const piece = a.handle.pieceFor(proc);
    if (piece === undefined) {
      throw new SchedulingError(
        `Task ${describeTask(task)} was placed on ${proc.id}, which holds no piece of argument ${i} (${a}); ` +
          'the chunk scope must cover only the processors holding pieces',
      );
    }
    args[i] = piece;
    const upstream = pendingTaskOf(piece);
    if (upstream !== undefined) (making ??= []).push(upstream);
  }
  if (making !== undefined) return making;
  task.flags &= ~TaskFlags.PieceArgs;
  taskExtra(task).beforePieces = before;
  task.args = args;
  task.options = Object.assign({}, task.options, { inPlace: true }); // not a spread: see mergeOptions
  return undefined;
}

/**
 * Puts back the arguments a task had before `takePieces` (it is placed again, maybe elsewhere:
 * its pieces are chosen again, and a piece lost meanwhile is rebuilt by its chunk).
 */
export function restorePieces(task: DTask<unknown>): void {
  const before = task.extra?.beforePieces;
  if (before === undefined) return;
  task.args = before;
  task.extra!.beforePieces = undefined;
  task.flags |= TaskFlags.PieceArgs;
}
