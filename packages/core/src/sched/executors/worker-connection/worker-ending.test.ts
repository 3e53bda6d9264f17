import { describe, expect, it, vi } from 'vitest';
import { noteBegan, runningTaskMemory } from '../../../protocol/running-task-memory.js';
import { type DTask, taskExtra } from '../../../task/dtask.js';
import { IdTable } from '../../../task/id-table.js';
import { NO_OPTIONS } from '../../../task/options.js';
import { makeTask } from '../../../task/spawn-task.js';
import { TaskFlags, TaskState } from '../../../task/task-state.js';
import { Scheduler } from '../../scheduler.js';
import { answerWhileHeard, splitSuspects } from './worker-ending.js';

/** Tasks as a worker connection holds them in flight: by id. */
function inFlight(...tasks: DTask<unknown>[]): IdTable<DTask<unknown>> {
  const table = new IdTable<DTask<unknown>>();
  for (const t of tasks) table.set(t.id, t);
  return table;
}

function rig() {
  const s = new Scheduler();
  const task = (id: number, args: unknown[] = [], flags = 0, state = TaskState.Running) => {
    const t = makeTask(s, id, () => id, args, NO_OPTIONS, NO_OPTIONS);
    t.flags |= flags;
    t.state = state;
    return t;
  };
  return { task };
}

describe('which tasks a lost worker is blamed on', () => {
  it('the one its runtime named as running, when it shares memory', () => {
    const { task } = rig();
    const [a, b] = [task(1), task(2)];
    const memory = runningTaskMemory();
    memory[0] = 2;
    expect(splitSuspects(inFlight(a, b), memory)).toEqual([[b], [a]]);
  });

  it('else every task that could have been running, not one sent ahead still waiting', () => {
    // A chain's tail sent ahead sits first in flight, but began only once its input was made.
    // Charging the first sent for every worker killed from outside failed it as a killer.
    const { task } = rig();
    const running = task(1);
    const waiting = task(2, [running], TaskFlags.SentAhead);
    const made = task(3, [], 0, TaskState.Done);
    const ready = task(4, [made], TaskFlags.SentAhead);
    const later = task(5);
    expect(splitSuspects(inFlight(waiting, ready, running, later), undefined)).toEqual([
      [running, ready, later],
      [waiting],
    ]);
  });

  it('nobody, when every task in flight still waited for its inputs', () => {
    const { task } = rig();
    const elsewhere = task(1);
    const waiting = task(2, [elsewhere], TaskFlags.SentAhead);
    expect(splitSuspects(inFlight(waiting), undefined)).toEqual([[], [waiting]]);
  });

  it('marks in-place tasks listed as begun in a batch never sent', () => {
    const { task } = rig();
    const [a, b] = [task(1), task(2)];
    const memory = runningTaskMemory();
    noteBegan(memory, 2);
    splitSuspects(inFlight(a, b), memory);
    expect(taskExtra(b).began).toBe(true);
    expect(a.extra?.began).toBeUndefined();
  });
});

describe('waiting for a closing worker to say which tasks it started', () => {
  /** A question answered after `answerMs`, with a worker that reports until `talksMs`. */
  async function ask(answerMs: number, talksMs: number, capMs?: number) {
    vi.useFakeTimers();
    try {
      let heard = 0;
      const talk = setInterval(() => heard++, 100);
      setTimeout(() => clearInterval(talk), talksMs);
      const answer = new Promise<string>((resolve) => setTimeout(resolve, answerMs, 'answer'));
      const start = Date.now();
      const waited = answerWhileHeard(answer, 1000, () => heard, capMs);
      await vi.advanceTimersByTimeAsync(30_000);
      clearInterval(talk);
      const result = await waited;
      return { result, after: Date.now() - start };
    } finally {
      vi.useRealTimers();
    }
  }

  it('takes an answer that comes in time', async () => {
    expect((await ask(300, 0)).result).toBe('answer');
  });

  it('gives up on a silent worker after the grace period', async () => {
    expect((await ask(5000, 0)).result).toBeUndefined();
  });

  it('waits longer for a worker that keeps reporting, up to ten grace periods', async () => {
    expect((await ask(4000, 5000)).result).toBe('answer');
    expect((await ask(20_000, 30_000)).result).toBeUndefined();
  });

  it('gives up once the worker falls silent, however long it talked before', async () => {
    expect((await ask(8000, 3000)).result).toBeUndefined();
  });

  it('waits for a worker still starting, up to ten grace periods', async () => {
    vi.useFakeTimers();
    try {
      const late = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms, 'answer'));
      const starting = () => undefined;
      const waited = [answerWhileHeard(late(6000), 1000, starting)];
      waited.push(answerWhileHeard(late(12_000), 1000, starting));
      await vi.advanceTimersByTimeAsync(15_000);
      expect(await Promise.all(waited)).toEqual(['answer', undefined]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never rejects: a question that fails reads as no answer', async () => {
    const failed = Promise.reject(new Error('gone'));
    await expect(answerWhileHeard(failed, 1000, () => 0)).resolves.toBeUndefined();
  });
});
