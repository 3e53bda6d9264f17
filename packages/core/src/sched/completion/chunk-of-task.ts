import { Chunk } from '../../chunk/chunk.js';
import { AnyScope } from '../../scope/index.js';
import type { DTask } from '../../task/dtask.js';
import { RemoteResult } from '../dispatch/executor.js';

const ANY = new AnyScope();

/** A `Chunk` for a finished task's result, scoped by its result scope. */
export function chunkOfTask(task: DTask<unknown>): Chunk<unknown> {
  const v = task.value;
  const proc = task.proc!;
  if (v instanceof RemoteResult) {
    return new Chunk(
      { processor: v.processor, fetch: () => v.fetch(), bytes: v.bytes },
      task.options.resultScope ?? ANY,
    );
  }
  return new Chunk(
    { processor: proc, fetch: () => Promise.resolve(v) },
    task.options.resultScope ?? ANY,
  );
}
