import { inTask, taskProcessor } from '../task/task-local.js';

/** What `processorProbe` is asked to do. */
export type ProbeOp = 'echo' | 'add' | 'where' | 'in-task' | 'throw';

/**
 * The one function every task of `processorConformance` runs, so that a processor under test
 * only has to declare this function compatible (`new FakeProcessor({ compatible: [processorProbe] })`):
 * `echo` returns `a`; `add` returns `a + b`; `where` returns `taskProcessor().id`; `in-task`
 * returns `inTask()`; `throw` throws `Error(a)`.
 */
export function processorProbe(op: ProbeOp, a?: unknown, b?: unknown): unknown {
  switch (op) {
    case 'echo':
      return a;
    case 'add':
      return (a as number) + (b as number);
    case 'where':
      return taskProcessor().id;
    case 'in-task':
      return inTask();
    case 'throw':
      throw new Error(String(a));
    default:
      throw new Error(`processorProbe: unknown op ${String(op)}`);
  }
}
