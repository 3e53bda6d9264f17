import type { DTask } from '@dtask/core';
import { finishedWell } from '@dtask/core/plugin';

/**
 * Waits for the tasks of a region that had not finished well when it ended: resolves once each
 * has settled, having pushed onto `errors` the error of each that failed (its raw fetch's
 * rejection, a `DTaskFailedError`), in the order they settle. One listener object for all of
 * them, told by the scheduler as each settles, instead of a raw fetch per task (a promise for
 * the wait, one for the fetch, one for its handlers, and a chunk: allocations the garbage
 * collector paid for on every task). A task owned elsewhere (spawned in a worker, whose
 * scheduler is on another thread) is waited for by its raw fetch, as before.
 */
export function regionSettled(tasks: readonly DTask<unknown>[], errors: unknown[]): Promise<void> {
  return new Promise<void>((resolve) => {
    let left = 1;
    const done = (): void => {
      if (--left === 0) resolve();
    };
    const failed = (e: unknown): void => {
      errors.push(e);
      done();
    };
    const listener = {
      onTaskSettled(t: DTask<unknown>): void {
        if (finishedWell(t)) done();
        else t.fetch({ raw: true }).then(done, failed);
      },
    };
    for (const t of tasks) {
      if (finishedWell(t)) continue;
      left++;
      if (t.owner.remote === true) {
        t.fetch({ raw: true }).then(done, failed);
      } else t.onSettled(listener);
    }
    done();
  });
}
