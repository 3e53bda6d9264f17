import { describe, expect, it } from 'vitest';
import type { Processor } from '../../processor/processor.js';
import { NO_OPTIONS } from '../../task/options.js';
import { RemoteResult } from '../../task/remote-result.js';
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

  it('a task given one lost input twice waits for both and starts once it is made again (regression: stencil steps on worker processes hung after one died)', () => {
    const s = new Scheduler();
    let lost = false;
    const elsewhere = { id: 'elsewhere' } as unknown as Processor;
    const input = makeTask(s, 1, () => 0, [], NO_OPTIONS, NO_OPTIONS);
    s.submit(input);
    input.state = TaskState.Running;
    s.sink.completeRemote(
      input,
      new RemoteResult(
        elsewhere,
        () => Promise.resolve(0),
        8,
        undefined,
        () => lost,
      ),
    );
    // A stencil block's task takes its block and reads the same block for a halo: one input,
    // two arguments. Its holder dies before the task is placed.
    const reader = makeTask(
      s,
      2,
      (a: number, b: number) => a + b,
      [input, input],
      NO_OPTIONS,
      NO_OPTIONS,
    );
    s.submit(reader);
    expect(reader.waiting).toBe(0);
    reader.state = TaskState.Ready;
    lost = true;

    expect(waitForLostInputs(s, reader)).toBe(true);
    expect(input.state).not.toBe(TaskState.Done); // being made again
    expect(reader.waiting).toBe(2);
    input.state = TaskState.Running;
    s.sink.complete(input, 1);
    expect(reader.waiting).toBe(0);
    expect(reader.state).toBe(TaskState.Ready);
  });
});
