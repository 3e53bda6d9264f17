import { describe, expect, it } from 'vitest';
import type { Processor } from '../processor/processor.js';
import { NO_OPTIONS } from '../task/options.js';
import { TaskQueue } from './task-queue.js';
import { WorkerTask } from './worker-task.js';

const task = (id: number) =>
  new WorkerTask(id, () => id, [], NO_OPTIONS, NO_OPTIONS, {} as Processor, undefined);

describe('TaskQueue', () => {
  it('gives tasks back first in, first out, also when pushed while it is being emptied', () => {
    const q = new TaskQueue();
    const [a, b, c, d] = [1, 2, 3, 4].map(task);
    expect(q.shift()).toBeUndefined();
    q.push(a);
    q.push(b);
    expect(q.shift()).toBe(a);
    q.push(c);
    expect(q.shift()).toBe(b);
    expect(q.shift()).toBe(c);
    expect(q.shift()).toBeUndefined();
    q.push(d); // reuses the emptied slots
    expect(q.shift()).toBe(d);
    expect(q.shift()).toBeUndefined();
  });

  it('keeps no task once taken or cleared', () => {
    const q = new TaskQueue();
    const list = (q as unknown as { list: unknown[] }).list;
    q.push(task(1));
    q.push(task(2));
    q.shift();
    expect(list.filter((t) => t !== undefined)).toHaveLength(1);
    q.clear();
    expect(list.filter((t) => t !== undefined)).toHaveLength(0);
    expect(q.shift()).toBeUndefined();
  });
});
