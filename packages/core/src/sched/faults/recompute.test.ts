import { describe, expect, it } from 'vitest';
import { NO_OPTIONS } from '../../task/options.js';
import { makeTask } from '../../task/spawn-task.js';
import { TaskState } from '../../task/task-state.js';
import { Scheduler } from '../scheduler.js';
import { waitForLostInputs } from './recompute.js';

describe('recovery after a worker loss', () => {
  it('a requeued sent-ahead task waits for each unfinished input once (regression: the chaos-test hang)', () => {
    const s = new Scheduler();
    const task = (id: number, args: unknown[]) =>
      makeTask(s, id, () => 0, args, NO_OPTIONS, NO_OPTIONS);
    // A diamond's join and both its inputs were sent ahead to one worker, which died: all three
    // are back in placement, the inputs not run yet, and the join's edges from its submit remain.
    const a = task(1, []);
    const b = task(2, []);
    const join = task(3, [a, b]);
    s.submit(a);
    s.submit(b);
    s.submit(join);
    expect(join.waiting).toBe(2);
    for (const t of [a, b]) t.state = TaskState.Running;
    join.state = TaskState.Ready;

    expect(waitForLostInputs(s, join)).toBe(true);
    expect(join.waiting).toBe(2);
    // One input finishing must not release the join: the other one does not exist yet.
    s.sink.complete(a, 1);
    expect(join.state).toBe(TaskState.Pending);
    expect(join.waiting).toBe(1);
    s.sink.complete(b, 2);
    expect(join.state).toBe(TaskState.Ready);
  });
});
