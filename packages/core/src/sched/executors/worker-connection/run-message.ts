import { transferablesOf } from '../../../protocol/hand-over.js';
import type { DTask } from '../../../task/dtask.js';
import { isDetached, movedAway } from '../../../task/transfer-option.js';
import { boxArgs } from './box-args.js';

/** Why a task's run message cannot be made: the error the task fails with. */
export class SendRefused {
  constructor(readonly error: unknown) {}
}

/**
 * The arguments of `task`'s run message to the worker `holder`: what copy-in (the `sendArgs`
 * option) sends in place of `args`, else `args` with class instances boxed to travel as
 * instances (box-args.ts; copy-in/copy-out sends its own form of them and writes them back).
 */
export function runArgs(
  task: DTask<unknown>,
  args: unknown[],
  holder: string,
): unknown[] | SendRefused {
  const pack = task.options.sendArgs;
  if (pack !== undefined) {
    try {
      return pack(args);
    } catch (error) {
      return new SendRefused(error);
    }
  }
  const boxed = boxArgs(task.id, args, holder, task.options.returnArgs?.indices);
  return boxed instanceof Error ? new SendRefused(boxed) : boxed;
}

/**
 * The buffers that move with `task`'s run message instead of being copied (call only when it
 * has `sendArgs` or `transfer`): those of the values copy-in made for the message (`sent` in
 * place of `args`), and those the `transfer` option lists (a copy to a process).
 */
export function runTransfer(
  task: DTask<unknown>,
  args: unknown[],
  sent: unknown[],
): ArrayBuffer[] | undefined | SendRefused {
  let transfer: ArrayBuffer[] | undefined;
  if (task.options.sendArgs !== undefined) {
    transfer = transferablesOf(
      sent.filter((x, i) => x !== args[i]),
      [],
    );
  }
  const moves = task.options.transfer;
  if (moves !== undefined) {
    if (moves.some(isDetached)) return new SendRefused(movedAway(task));
    transfer = transfer === undefined ? [...moves] : [...transfer, ...moves];
  }
  return transfer;
}
