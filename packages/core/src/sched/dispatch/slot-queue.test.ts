import { describe, expect, it } from 'vitest';
import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';
import type { Executor } from './executor.js';
import {
  AHEAD_MS,
  COALESCE_FROM_TASKS,
  COALESCE_MS,
  isFull,
  LONG_MS,
  releaseSlot,
} from './slot-queue.js';
import { startTask } from './start-task.js';

/** A task record with what the queue functions read: state, estimate, options, flags. */
function task(id: number, estimate: number): DTask<unknown> {
  return { id, estimate, state: TaskState.Ready, options: {}, flags: 0 } as DTask<unknown>;
}

/** A worker slot whose executor only counts what it is sent. */
function slot(name: string): ProcSlot & { sent: number[] } {
  const sent: number[] = [];
  const executor = {
    inline: false,
    capacity: 1000,
    run: (t: DTask<unknown>) => sent.push(t.id),
  } as unknown as Executor;
  const s = new ProcSlot({ id: name } as ProcSlot['proc'], executor) as ProcSlot & {
    sent: number[];
  };
  s.sent = sent;
  return s;
}

/** The part of the scheduler the queue functions use: its slots (each task may run on all). */
function scheduler(slots: (ProcSlot & { sent: number[] })[]): SchedulerState {
  const s = {
    slots,
    slotById: new Map(slots.map((x) => [x.proc.id, x])),
    candidateSlots: { of: () => slots },
    running: new Map<number, DTask<unknown>>(),
    woke: undefined,
  };
  return s as unknown as SchedulerState;
}

/** Parks `t` on `target` as placement does: its estimate counts in `load`, not `sentLoad`. */
function park(target: ProcSlot, t: DTask<unknown>): void {
  t.proc = target.proc;
  target.load += t.estimate;
  target.backlog.push(t);
}

/** Sends `t` to `target` as if it had been started earlier. */
function running(
  s: SchedulerState,
  target: ProcSlot & { sent: number[] },
  t: DTask<unknown>,
): void {
  t.proc = target.proc;
  target.load += t.estimate;
  startTask(s, t, target);
}

/** Two worker slots and the scheduler over them. */
function twoWorkers() {
  const a = slot('a');
  const b = slot('b');
  return { a, b, s: scheduler([a, b]) };
}

describe('slot queues: queue-ahead and stealing', () => {
  it('a worker queues about AHEAD_MS of estimated work while much more is parked', () => {
    const { a, b, s } = twoWorkers();
    const done = task(1, 1);
    running(s, a, done);
    for (let i = 0; i < 100; i++) park(a, task(100 + i, 1));
    for (let i = 0; i < 100; i++) park(b, task(300 + i, 1));
    done.state = TaskState.Done;
    releaseSlot(s, done);
    // Sent until more than AHEAD_MS is queued: AHEAD_MS + 1 tasks of 1 ms.
    expect(a.sent.length - 1).toBe(AHEAD_MS + 1);
    expect(isFull(a, task(0, 1))).toBe(true);
  });

  it('tasks over LONG_MS each go one queued behind the running one, budget or not', () => {
    const { a, b, s } = twoWorkers();
    const done = task(1, 2 * LONG_MS);
    running(s, a, done);
    for (let i = 0; i < 10; i++) park(a, task(100 + i, 2 * LONG_MS));
    for (let i = 0; i < 10; i++) park(b, task(200 + i, 2 * LONG_MS));
    done.state = TaskState.Done;
    releaseSlot(s, done);
    // AHEAD_MS would take 5 of 2 ms; each is reported at once, so a second saves no message.
    expect(a.sent.slice(1)).toEqual([100, 101]);
    expect(isFull(a, task(0, 2 * LONG_MS))).toBe(true);
    // A mix averaging LONG_MS or less per task queued goes by the budget as before.
    const { a: c, s: s2 } = twoWorkers();
    running(s2, c, task(3, 1.5 * LONG_MS));
    running(s2, c, task(4, 0.5 * LONG_MS));
    expect(isFull(c, task(0, 1))).toBe(false);
  });

  it('at the tail of a batch a worker queues only its share of what is still parked', () => {
    const { a, b, s } = twoWorkers();
    const done = task(1, 1);
    running(s, a, done);
    running(s, b, task(2, 8)); // b is busy: it neither steals nor is stolen from while queued
    for (let i = 0; i < 10; i++) park(a, task(100 + i, 1));
    for (let i = 0; i < 2; i++) park(b, task(200 + i, 1));
    done.state = TaskState.Done;
    releaseSlot(s, done);
    // 12 ms parked over 2 workers: a budget of 6 ms, so 7 tasks of 1 ms are sent (the last one
    // crosses it), not AHEAD_MS + 1 = 9 as in the middle of a batch; nothing is stolen.
    expect(a.sent.slice(1)).toEqual([100, 101, 102, 103, 104, 105, 106]);
    expect(b.backlog.length).toBe(2);
    // The budget never falls below 1 ms, so a worker is not starved between two reports: with
    // 1.5 ms parked over 2 workers (0.75 each), all three 0.5 ms tasks go, not two.
    const { a: c, s: s2 } = twoWorkers();
    const last = task(3, 1);
    running(s2, c, last);
    for (let i = 0; i < 3; i++) park(c, task(500 + i, 0.5));
    last.state = TaskState.Done;
    releaseSlot(s2, last);
    expect(c.sent.slice(1)).toEqual([500, 501, 502]);
  });

  it('a worker out of parked work steals from the busiest one before it runs dry', () => {
    const { a, b, s } = twoWorkers();
    // b still runs a task (it is not idle) but has nothing parked; a has 6 parked.
    running(s, b, task(1, 1));
    const done = task(2, 1);
    running(s, b, done);
    running(s, a, task(3, 5));
    for (let i = 0; i < 6; i++) park(a, task(100 + i, 1));
    done.state = TaskState.Done;
    releaseSlot(s, done);
    // Half of a's backlog, oldest first, moved to b and sent there.
    expect(b.sent.slice(2)).toEqual([100, 101, 102]);
    expect(a.backlog.length).toBe(3);
    expect(a.load).toBe(5 + 3);
  });

  /** `a` finishes a 12 ms task with `parked` more parked, while `b` runs one with none parked. */
  function afterLongTask(parked: number) {
    const { a, b, s } = twoWorkers();
    const done = task(1, 12);
    running(s, a, done);
    running(s, b, task(2, 12));
    for (let i = 0; i < parked; i++) park(a, task(100 + i, 12));
    done.state = TaskState.Done;
    releaseSlot(s, done);
    return a;
  }

  it('a worker finishing a long task gets the next one queued behind it while plenty is parked', () => {
    const a = afterLongTask(4);
    // 100 alone fills the 8 ms budget, but 3 tasks stay parked for 2 workers: 101 is queued
    // behind it, so a starts 101 without waiting for a round trip to the scheduler. Never a third.
    expect(a.sent.slice(1)).toEqual([100, 101]);
    expect(a.backlog.length).toBe(2);
  });

  it('at the tail of a batch a long task is not queued behind another one', () => {
    const a = afterLongTask(2);
    // Once 100 is sent, 1 task is parked for 2 workers: 101 waits for whichever frees up first.
    expect(a.sent.slice(1)).toEqual([100]);
    expect(a.backlog.length).toBe(1);
  });

  it('a worker with many tiny tasks queued is refilled once a millisecond, not after each report', async () => {
    const { a, b, s } = twoWorkers();
    // 100 tasks of 0.081 ms in flight on a (8.1 ms: just over the budget), plenty parked.
    const inFlight: DTask<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      const t = task(i + 1, 0.081);
      running(s, a, t);
      inFlight.push(t);
    }
    expect(a.inFlight).toBeGreaterThanOrEqual(COALESCE_FROM_TASKS);
    for (let i = 0; i < 400; i++) park(a, task(1000 + i, 0.081));
    for (let i = 0; i < 400; i++) park(b, task(2000 + i, 0.081));
    // Ten reports of one completion each: each used to send one task back (9 messages).
    for (const t of inFlight.slice(0, 10)) {
      t.state = TaskState.Done;
      releaseSlot(s, t);
    }
    expect(a.sent.length).toBe(100);
    // Within a few milliseconds, with no further report, the room they made is filled at once.
    const deadline = Date.now() + 5000;
    while (a.sent.length === 100 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, COALESCE_MS));
    }
    expect(a.sent.slice(100)).toEqual([1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008]);
    expect(isFull(a, task(0, 0.081))).toBe(true);
  });

  it('a worker at its capacity with many tiny tasks is refilled once a millisecond too', async () => {
    const { a, b, s } = twoWorkers(); // capacity 1000
    const inFlight: DTask<unknown>[] = [];
    for (let i = 0; i < 1000; i++) {
      const t = task(i + 1, 0.0001); // far under the budget: only the capacity holds them back
      running(s, a, t);
      inFlight.push(t);
    }
    for (let i = 0; i < 100; i++) park(a, task(5000 + i, 0.0001));
    for (let i = 0; i < 100; i++) park(b, task(6000 + i, 0.0001));
    for (const t of inFlight.slice(0, 5)) {
      t.state = TaskState.Done;
      releaseSlot(s, t);
    }
    expect(a.sent.length).toBe(1000);
    const deadline = Date.now() + 5000;
    while (a.sent.length === 1000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, COALESCE_MS));
    }
    expect(a.sent.slice(1000)).toEqual([5000, 5001, 5002, 5003, 5004]);
  });

  it('a worker with a few tasks queued is still refilled at each report', () => {
    const { a, s } = twoWorkers();
    const first = task(1, 4);
    running(s, a, first);
    running(s, a, task(2, 4.5));
    for (let i = 0; i < 10; i++) park(a, task(100 + i, 4));
    first.state = TaskState.Done;
    releaseSlot(s, first);
    expect(a.sent.slice(2)).toEqual([100]);
  });
});
