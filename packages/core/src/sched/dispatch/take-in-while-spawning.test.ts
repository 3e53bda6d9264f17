import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';
import { ExactScope } from '../../scope/exact-scope.js';
import type { DTask } from '../../task/dtask.js';
import { type TaskQueue, withTaskQueue } from '../../task/task-queue.js';
import { FakeProcessor } from '../../testing/fake-processor.js';
import type { Executor, ExecutorSink } from './executor.js';

/**
 * A worker-like executor: a task it is sent finishes once the test says so (`finishSent`), and
 * the report of that reaches the scheduler only when the scheduler polls (as
 * `receiveMessageOnPort` hands over a worker thread's messages). Finishing on the test's word
 * rather than after a delay keeps a loaded machine, which may pause the test between two
 * spawns, from finishing a task before the test means it to.
 */
function pollableWorker() {
  const held: [DTask<unknown>, ExecutorSink, boolean][] = [];
  const sent: number[] = [];
  let polls = 0;
  const executor: Executor = {
    inline: false,
    capacity: 1000,
    run(task, _proc, sink) {
      sent.push(task.id);
      held.push([task, sink, false]);
    },
    poll() {
      polls++;
      for (let i = 0; i < held.length; i++) {
        const [task, sink, finished] = held[i];
        if (!finished) continue;
        held.splice(i--, 1);
        sink.complete(task, task.id);
      }
    },
  };
  /** Every task sent so far finishes; its report waits for the next poll. */
  const finishSent = () => {
    for (const h of held) h[2] = true;
  };
  return { executor, sent, polls: () => polls, finishSent };
}

/** Each task waits for the one spawned before it, as datadeps orders writes to one array. */
function orderedQueue(): TaskQueue {
  let previous: DTask<unknown> | undefined;
  return {
    startEarly: true,
    enqueue(task, submit) {
      submit(task, previous ? [previous] : undefined);
      previous = task;
    },
  };
}

const busyMs = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('taking in reports while a startEarly queue spawns', () => {
  it('a dependent of a task that finished is placed before the spawning code yields', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true });
    const worker = pollableWorker();
    await using ctx = new Context({
      plugins: [{ name: 'pollable', setup: (host) => host.addProcessor(fake, worker.executor) }],
    });
    const on = { scope: new ExactScope(fake) };
    const [first, second, sentWhileSpawning] = withTaskQueue(orderedQueue(), () => {
      const a = ctx.spawn(on, () => 'a');
      const b = ctx.spawn(on, () => 'b'); // waits for a
      expect(worker.sent).toEqual([a.id]); // a went at once (startEarly); b waits
      worker.finishSent(); // a finishes on the worker; its report waits to be taken in
      busyMs(2); // the region keeps the thread busy (longer than the poll interval)
      ctx.spawn(on, () => 'c'); // this spawn takes a's report in, and places b
      return [a, b, [...worker.sent]];
    });
    expect(worker.polls()).toBeGreaterThan(0);
    expect(sentWhileSpawning).toEqual([first.id, second.id]);
    // The scheduler took the completion in: a is done, with the value the executor reported.
    expect(await first).toBe(first.id);
  });

  it('polls at most every 0.25 ms, and not at all while nothing runs elsewhere', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true });
    const worker = pollableWorker();
    await using ctx = new Context({
      plugins: [{ name: 'pollable', setup: (host) => host.addProcessor(fake, worker.executor) }],
    });
    withTaskQueue({ startEarly: true, enqueue: (task, submit) => submit(task) }, () => {
      for (let i = 0; i < 200; i++) ctx.spawn(() => i); // main thread only: nothing to take in
    });
    expect(worker.polls()).toBe(0);
    const on = { scope: new ExactScope(fake) };
    const t0 = performance.now();
    withTaskQueue(orderedQueue(), () => {
      for (let i = 0; i < 2000; i++) ctx.spawn(on, () => i);
    });
    const ms = performance.now() - t0;
    expect(worker.polls()).toBeLessThanOrEqual(Math.ceil(ms / 0.25) + 1);
  });
});
