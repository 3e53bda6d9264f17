import { describe, expect, it } from 'vitest';
import { WorkerLostError } from '../../errors/errors.js';
import { type DTask, taskExtra } from '../../task/dtask.js';
import { NO_OPTIONS, type TaskOptions } from '../../task/options.js';
import { makeTask } from '../../task/spawn-task.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { Scheduler } from '../scheduler.js';
import { type FaultSink, recoverLostTasks } from './worker-lost.js';

/** Records what `recoverLostTasks` does with each task. */
function recorder() {
  const requeued: number[] = [];
  const failed = new Map<number, unknown>();
  const sink: FaultSink = {
    requeue: (t) => requeued.push(t.id),
    fail: (t, e) => failed.set(t.id, e),
  };
  return { sink, requeued, failed };
}

function tasks(count: number, options: TaskOptions = NO_OPTIONS): DTask<unknown>[] {
  const s = new Scheduler();
  return Array.from({ length: count }, (_, i) => {
    const t = makeTask(s, i + 1, () => i, [], options, NO_OPTIONS);
    t.state = TaskState.Running;
    return t;
  });
}

describe('a lost worker’s suspects', () => {
  it('a task that dies alone three times fails with WorkerLostError saying so', () => {
    const [killer] = tasks(1);
    const r = recorder();
    for (let death = 0; death < 3; death++) recoverLostTasks(r.sink, [killer!], 'exit 1');
    expect(r.requeued).toEqual([1, 1]);
    const error = r.failed.get(1);
    expect(WorkerLostError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/running on 3 workers that died, alone each time/);
    // Placed nowhere known: the advice names both plugins' own options.
    expect((error as Error).message).toMatch(/threads\(\{ resourceLimits.*cluster\(\{ execArgv/);
  });

  it('share each death: three tasks running beside three kills from outside all run again', () => {
    const list = tasks(3);
    const r = recorder();
    for (let death = 0; death < 3; death++) recoverLostTasks(r.sink, list, 'SIGKILL');
    expect(r.failed.size).toBe(0);
    expect(r.requeued).toHaveLength(9);
  });

  it('a killer running beside others still fails once its shares add up to three deaths', () => {
    const [killer, other] = tasks(2);
    const r = recorder();
    for (let death = 0; death < 3; death++) recoverLostTasks(r.sink, [killer!], 'exit 1');
    expect(r.failed.has(1)).toBe(true);
    const [again] = tasks(1);
    const s = recorder();
    recoverLostTasks(s.sink, [again!, other!], 'exit 1');
    recoverLostTasks(s.sink, [again!], 'exit 1');
    recoverLostTasks(s.sink, [again!], 'exit 1');
    recoverLostTasks(s.sink, [again!, other!], 'exit 1');
    expect(s.requeued.filter((id) => id === 1)).toHaveLength(3);
    expect((s.failed.get(1) as Error).message).toMatch(/4 workers that died, some beside other/);
  });

  it('kills by the scheduler itself are not counted', () => {
    const [task] = tasks(1);
    const r = recorder();
    for (let death = 0; death < 5; death++) recoverLostTasks(r.sink, [task!], 'cancel', true);
    expect(r.failed.size).toBe(0);
  });

  it('an in-place task fails when it alone could have been running, or said it began', () => {
    const [alone, beside, other] = tasks(3, { inPlace: true });
    const r = recorder();
    recoverLostTasks(r.sink, [alone!], 'exit 1');
    recoverLostTasks(r.sink, [beside!, other!], 'SIGKILL');
    expect([...r.failed.keys()]).toEqual([1]);
    expect(r.requeued).toEqual([2, 3]);
  });

  it('a streaming task that may have begun fails, even handed back uncharged; one still waiting is placed again', () => {
    // Sent ahead with its input made, a streaming task had begun streaming: run again, it
    // would repeat values downstream. One whose input is still being made never began.
    const [made, making, begun, waiting] = tasks(4);
    made!.state = TaskState.Done;
    for (const [t, input] of [
      [begun!, made!],
      [waiting!, making!],
    ] as const) {
      t.args.push(input);
      t.flags |= TaskFlags.SentAhead;
      taskExtra(t).notRerun = 'a streaming task is not run twice';
    }
    const r = recorder();
    recoverLostTasks(r.sink, [begun!, waiting!], 'another task ended the thread', true);
    expect([...r.failed.keys()]).toEqual([3]);
    expect(r.requeued).toEqual([4]);
  });
});
