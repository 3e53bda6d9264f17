// Which results a batch's tasks sent ahead will take here: counted before any message runs, so
// a result that finishes first is kept for them.
import { describe, expect, it } from 'vitest';
import { RUN, type ToWorker } from '../protocol/protocol.js';
import { countLocalConsumers } from './local-consumers.js';

describe('countLocalConsumers', () => {
  it('counts the references to results held here (by holder id or ""), not to peers', () => {
    const consumers = new Map<number, number>([[7, 1]]);
    const batch: ToWorker[] = [
      [
        RUN,
        10,
        { src: 'x=>x' },
        [null, null],
        [
          [0, 7, ''],
          [1, 8, 'thread:1:1'],
        ],
      ],
      [RUN, 11, { src: 'x=>x' }, [null], [[0, 9, 'thread:1:2']]],
      [RUN, 12, { src: 'x=>x' }, [1]], // no references
      { op: 'release', keys: [7] }, // not a task
    ] as ToWorker[];
    countLocalConsumers(batch, 'thread:1:1', consumers);
    expect([...consumers]).toEqual([
      [7, 2],
      [8, 1],
    ]);
  });
});
