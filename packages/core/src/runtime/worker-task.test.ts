import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { taskList, WorkerTask } from './worker-task.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own answer: whether `list`'s elements are still typed for small integers. */
const hasSmiElements = new Function('list', 'return %HasSmiElements(list)') as (
  list: unknown[],
) => boolean;

describe('taskList', () => {
  it('is typed for objects from the start, so a first task does not change its kind', () => {
    // What the runtime used before: `[]` starts as a list of small integers, and the first
    // task pushed changes its kind (V8 then drops the code that pushed).
    expect(hasSmiElements([])).toBe(true);
    const list = taskList();
    expect(list).toHaveLength(0);
    expect(hasSmiElements(list)).toBe(false);
    const none = {};
    list.push(new WorkerTask(1, () => {}, [], none, none, {} as never, none));
    expect(list).toHaveLength(1);
    expect(list[0].id).toBe(1);
  });
});
