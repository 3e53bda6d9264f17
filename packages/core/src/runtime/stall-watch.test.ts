// The runtime's answer to StallWatch: stalled only when every task it holds has started or
// waits for a result made here, never while one waits on the runtime (a peer's input). And
// StallWatch itself: a worker that holds no task and has said nothing looks at nothing.
import { describe, expect, it } from 'vitest';
import type { Processor } from '../processor/processor.js';
import { IdTable } from '../task/id-table.js';
import { NO_OPTIONS } from '../task/options.js';
import { holdsOnlyWaitingTasks, StallWatch } from './stall-watch.js';
import { WorkerTask } from './worker-task.js';

/** The tasks a runtime holds, by id. */
function held(...tasks: WorkerTask[]): IdTable<WorkerTask> {
  const table = new IdTable<WorkerTask>();
  for (const t of tasks) table.set(t.id, t);
  return table;
}

function task(id: number, state: Partial<WorkerTask>): WorkerTask {
  const t = new WorkerTask(id, () => {}, [], NO_OPTIONS, NO_OPTIONS, {} as Processor, undefined);
  return Object.assign(t, state);
}

describe('holdsOnlyWaitingTasks', () => {
  it('is false with no tasks, true when each has started or waits for a local result', () => {
    expect(holdsOnlyWaitingTasks(held())).toBe(false);
    const running = held(task(1, { startedAt: 5 }), task(2, { missing: 1 }));
    expect(holdsOnlyWaitingTasks(running)).toBe(true);
  });

  it('is false while a task waits for a peer input or is ready to run', () => {
    expect(holdsOnlyWaitingTasks(held(task(1, { missing: 1, pendingFetches: 1 })))).toBe(false);
    expect(holdsOnlyWaitingTasks(held(task(1, {})))).toBe(false);
  });
});

/** One turn of the event loop: what `soon` scheduled has run. */
const turn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('StallWatch', () => {
  it('looks after a turn while tasks are held, and says when they are all waiting', async () => {
    let looks = 0;
    const said: boolean[] = [];
    const watch = new StallWatch(
      () => {
        looks++;
        return true;
      },
      (stalled) => said.push(stalled),
      () => false,
      () => false,
    );
    watch.soon();
    await turn();
    watch.stop();
    expect(looks).toBe(1);
    expect(said).toEqual([true]);
  });

  it('holding no task, looks at nothing until it has said it is stalled', async () => {
    let looks = 0;
    let held = false;
    const said: boolean[] = [];
    const watch = new StallWatch(
      () => {
        looks++;
        return held;
      },
      (stalled) => said.push(stalled),
      () => false,
      () => !held,
    );
    watch.heard();
    watch.soon();
    await turn();
    expect(looks).toBe(0);
    // Tasks held and waiting: it says so; when they are gone, it says it is no longer stalled.
    held = true;
    watch.heard();
    await turn();
    expect(said).toEqual([true]);
    held = false;
    watch.soon();
    await turn();
    watch.stop();
    expect(said).toEqual([true, false]);
  });
});
