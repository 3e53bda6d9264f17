import { describe, expect, it } from 'vitest';
import { WorkerLostError } from '../../errors/errors.js';
import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import { NO_OPTIONS, type TaskOptions } from '../../task/options.js';
import { RemoteResult } from '../../task/remote-result.js';
import { makeTask } from '../../task/spawn-task.js';
import { TaskState } from '../../task/task-state.js';
import { Scheduler } from '../scheduler.js';
import { fetchRecomputing, resurrect } from './recompute.js';
import { markWrittenInPlace } from './written-in-place.js';

const elsewhere = { id: 'elsewhere' } as unknown as Processor;

describe('results that their lineage cannot make again', () => {
  /** A scheduler whose tasks finish with results held by a worker, each lost when told. */
  function rig() {
    const s = new Scheduler();
    const lost = new Set<DTask<unknown>>();
    const made = (id: number, args: unknown[], options: TaskOptions = NO_OPTIONS) => {
      const t = makeTask(s, id, () => id, args, options, options);
      s.submit(t);
      t.state = TaskState.Running;
      s.sink.completeRemote(
        t,
        new RemoteResult(
          elsewhere,
          () => Promise.resolve(id),
          8,
          undefined,
          () => lost.has(t),
        ),
      );
      return t;
    };
    return { s, lost, made };
  }
  const writes = { ...NO_OPTIONS, inPlaceArgs: [0] } as TaskOptions;

  it('a result read before a later task wrote its input in place fails with WorkerLostError when lost, and what read its input after the write is made again', async () => {
    const { s, lost, made } = rig();
    const input = made(1, []);
    const before = made(2, [input]); // read the input as it was
    const writer = made(3, [input], writes);
    markWrittenInPlace(writer); // what the scheduler does when it dispatches the writer
    const after = made(4, [input]); // read the input as written
    lost.add(before);
    lost.add(after);

    const error = await fetchRecomputing(s, before).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerLostError);
    expect((error as Error).message).toMatch(
      /input .* was written in place after it was read; it is not recomputed/,
    );
    expect(before.state).toBe(TaskState.Failed);

    resurrect(s, after);
    expect(after.state).not.toBe(TaskState.Failed); // made again: its lineage reads what it read
  });

  it('a result written in place fails with WorkerLostError when lost; one never written is made again', () => {
    const { s, lost, made } = rig();
    const written = made(1, []);
    const untouched = made(2, []);
    markWrittenInPlace(made(3, [written], writes));
    lost.add(written);
    lost.add(untouched);

    resurrect(s, written);
    expect(written.state).toBe(TaskState.Failed);
    expect(String(written.value)).toMatch(/was written in place by later tasks/);
    resurrect(s, untouched);
    expect(untouched.state).not.toBe(TaskState.Failed);
  });
});
