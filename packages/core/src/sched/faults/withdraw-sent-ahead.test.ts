import { describe, expect, it } from 'vitest';
import { InputLostError } from '../../errors/errors.js';
import { ThreadProc } from '../../processor/thread-proc.js';
import type { DTask } from '../../task/dtask.js';
import { NO_OPTIONS } from '../../task/options.js';
import { makeTask } from '../../task/spawn-task.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { Executor } from '../dispatch/executor.js';
import { Scheduler } from '../scheduler.js';

/** A worker executor that takes tasks sent ahead and records what it is told. */
function fakeWorker() {
  const sent: number[] = [];
  const withdrawn: number[] = [];
  const executor: Executor = {
    inline: false,
    acceptsPending: true,
    capacity: 100,
    run: (task) => {
      sent.push(task.id);
    },
    withdraw: (task) => {
      withdrawn.push(task.id);
    },
  };
  return { executor, sent, withdrawn };
}

describe('tasks handed back by a live worker', () => {
  it('take their dependents sent ahead with them (regression: the chaos-test hang)', async () => {
    const s = new Scheduler();
    const worker = fakeWorker();
    s.addProcessor(new ThreadProc(1, 2), worker.executor);
    const task = (id: number, args: unknown[]) =>
      makeTask(s, id, (...xs: unknown[]) => xs, args, NO_OPTIONS, NO_OPTIONS);
    const root = task(1, []);
    const next = task(2, [root]);
    const last = task(3, [next]);
    for (const t of [root, next, last]) s.submit(t);
    await Promise.resolve(); // the scheduler places them: the chain goes out in one cascade
    expect(worker.sent).toEqual([1, 2, 3]);
    expect(last.flags & TaskFlags.SentAhead).toBe(TaskFlags.SentAhead);

    // The root's input fetch failed there: it is placed again, maybe on another worker. Its
    // dependents must not stay on this one, waiting for a local result that may never exist.
    s.sink.lost([root], new InputLostError('a peer died'), true);
    expect(worker.withdrawn).toEqual([2, 3]);
    const states = (ts: DTask<unknown>[]) => ts.map((t) => t.state);
    expect(states([next, last])).not.toContain(TaskState.Running);
    // Taken back, they wait in the scheduler for their inputs (never ready before those exist).
    expect(states([next, last])).toEqual([TaskState.Pending, TaskState.Pending]);
    await Promise.resolve();
    // Placed again: the root goes out, and the chain waiting for it goes ahead behind it again.
    expect(worker.sent).toEqual([1, 2, 3, 1, 2, 3]);
    expect(states([next, last])).toEqual([TaskState.Running, TaskState.Running]);
  });
});
