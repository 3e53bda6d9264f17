import { describe, expect, it } from 'vitest';
import type { LogEvent } from './log-event.js';
import { type TaskRun, taskRuns } from './task-runs.js';

const runsOf = (logs: LogEvent[]): TaskRun[] => {
  const out: TaskRun[] = [];
  taskRuns(logs, (r) => out.push(r));
  return out;
};
const brief = (r: TaskRun) => [r.task, r.processor, r.start?.time, r.run?.time, r.end?.kind];

describe('taskRuns', () => {
  it('pairs a run span that a worker clock puts after its end with that end: one run', () => {
    const runs = runsOf([
      { kind: 'start', time: 0, task: 1, processor: 'p' },
      { kind: 'finish', time: 2, task: 1, processor: 'p' },
      { kind: 'run', time: 2.5, duration: 0.1, task: 1, processor: 'p' },
    ]);
    expect(runs.map(brief)).toEqual([[1, 'p', 0, 2.5, 'finish']]);
  });

  it('closes a start on one processor with the end where the task ran (a task handed back)', () => {
    const runs = runsOf([
      { kind: 'start', time: 0, task: 1, processor: 'a' },
      { kind: 'run', time: 3, duration: 1, task: 1, processor: 'b' },
      { kind: 'finish', time: 4.5, task: 1, processor: 'b' },
    ]);
    expect(runs.map(brief)).toEqual([[1, 'b', 0, 3, 'finish']]);
  });

  it('pairs a re-run on the same processor in order, and keeps a start still open', () => {
    const runs = runsOf([
      { kind: 'start', time: 0, task: 1, processor: 'p' },
      { kind: 'run', time: 1, duration: 1, task: 1, processor: 'p' },
      { kind: 'fail', time: 2.5, task: 1, processor: 'p' },
      { kind: 'start', time: 3, task: 1, processor: 'p' },
      { kind: 'run', time: 4, duration: 1, task: 1, processor: 'p' },
      { kind: 'finish', time: 5.5, task: 1, processor: 'p' },
      { kind: 'start', time: 6, task: 2, processor: 'p' },
      { kind: 'run', time: 7, task: 2, processor: 'p' },
    ]);
    expect(runs.map(brief)).toEqual([
      [1, 'p', 0, 1, 'fail'],
      [1, 'p', 3, 4, 'finish'],
      [2, 'p', 6, 7, undefined],
    ]);
  });

  it('visits an end with nothing to pair alone, and a lone run span as still open', () => {
    const runs = runsOf([
      { kind: 'cancel', time: 1, task: 1, processor: 'p' },
      { kind: 'run', time: 2, task: 2, processor: 'q' },
    ]);
    expect(runs.map(brief)).toEqual([
      [1, 'p', undefined, undefined, 'cancel'],
      [2, 'q', undefined, 2, undefined],
    ]);
  });
});
