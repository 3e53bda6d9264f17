import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher.js';
import { forEachDone, forEachRun, pushDone, pushRun } from './packs.js';
import { portTransport } from './port-transport.js';
import { DONE, DONES, type DonePack, RUN, RUNS, type RunPack } from './protocol.js';

/** A batcher over one end of a real MessageChannel, and the batches the other end receives. */
function channel() {
  const { port1, port2 } = new MessageChannel();
  const out = new Batcher<unknown>(portTransport(port1));
  const received: unknown[][] = [];
  const arrived = new Promise<void>((resolve) =>
    port2.once('message', (batch: unknown[]) => {
      received.push(batch);
      resolve();
    }),
  );
  const close = () => {
    port1.close();
    port2.close();
  };
  return { out, received, arrived, close };
}

describe('run and done packs', () => {
  it('sends plain tasks of one batch as one flat pack that unpacks to the same tasks', async () => {
    const { out, received, arrived, close } = channel();
    const fnRef = { kind: 'source' as const, id: 7, source: '(x, y) => x + y' };
    pushRun(out, 1, fnRef, [1, 'a'], undefined, undefined, undefined, undefined);
    pushRun(out, 2, 7, [], undefined, undefined, undefined, undefined);
    pushRun(out, 3, 7, [null, undefined, true, 5n], undefined, undefined, undefined, undefined);
    await arrived;
    close();
    expect(received).toHaveLength(1);
    const [batch] = received;
    expect(batch).toHaveLength(1);
    const tasks: unknown[] = [];
    forEachRun(batch[0] as RunPack, (id, fn, args) => tasks.push([id, fn, args]));
    expect(tasks).toEqual([
      [1, fnRef, [1, 'a']],
      [2, 7, []],
      [3, 7, [null, undefined, true, 5n]],
    ]);
  });

  it('sends a task with an object argument, refs or options as its own record, in order', async () => {
    const { out, received, arrived, close } = channel();
    const noMore = [undefined, undefined, undefined, undefined] as const;
    pushRun(out, 1, 7, [1], ...noMore);
    pushRun(out, 2, 7, [{ x: 1 }], ...noMore);
    pushRun(out, 3, 7, [2], ...noMore);
    pushRun(out, 4, 7, [0], [[0, 9, '']], undefined, undefined, undefined);
    pushRun(out, 5, 7, [3], undefined, { name: 'five' }, undefined, undefined);
    pushRun(out, 6, 7, [4], ...noMore);
    await arrived;
    close();
    const [batch] = received;
    expect(batch.map((m) => (m as unknown[])[0])).toEqual([RUNS, RUN, RUNS, RUN, RUN, RUNS]);
    expect(batch[1]).toEqual([RUN, 2, 7, [{ x: 1 }]]);
    expect(batch[3]).toEqual([RUN, 4, 7, [0], [[0, 9, '']]]);
    expect(batch[4]).toEqual([RUN, 5, 7, [3], undefined, { name: 'five' }]);
    const ids: number[] = [];
    for (const i of [0, 2, 5]) forEachRun(batch[i] as RunPack, (id) => ids.push(id));
    expect(ids).toEqual([1, 3, 6]);
  });

  it('packs completions with primitive values; others and returned args go as records', async () => {
    const { out, received, arrived, close } = channel();
    pushDone(out, 1, 8, 0.5, 1, 2, undefined);
    pushDone(out, 2, 2048, 0.25, 0, undefined, undefined);
    pushDone(out, 3, 40, 1, 1, { big: 'object' }, undefined);
    pushDone(out, 4, 8, 1, 1, 'text', [[1, 2]]);
    pushDone(out, 5, 8, 2, 1, null, undefined);
    await arrived;
    close();
    const [batch] = received;
    expect(batch.map((m) => (m as unknown[])[0])).toEqual([DONES, DONE, DONE, DONES]);
    expect(batch[1]).toEqual([DONE, 3, 40, 1, 1, { big: 'object' }]);
    expect(batch[2]).toEqual([DONE, 4, 8, 1, 1, 'text', [[1, 2]]]);
    const done: unknown[] = [];
    for (const i of [0, 3]) forEachDone(batch[i] as DonePack, (...fields) => done.push(fields));
    expect(done).toEqual([
      [1, 0, 0.5, 1, 2],
      [2, 2048, 0.25, 0, undefined],
      [5, 0, 2, 1, null],
    ]);
  });

  it('groups a pack by function and arity, and keeps ids past 2 ** 32 exact', async () => {
    const { out, received, arrived, close } = channel();
    const noMore = [undefined, undefined, undefined, undefined] as const;
    const big = 3 * 2 ** 32 + 5;
    pushRun(out, 1, 7, [1], ...noMore);
    pushRun(out, 2, 7, [2], ...noMore);
    pushRun(out, 3, 8, [3], ...noMore);
    pushRun(out, 4, 8, [4, 5], ...noMore);
    pushRun(out, big, 8, [6, 7], ...noMore);
    pushRun(out, 6, 7, [], ...noMore);
    pushRun(out, 7, 7, [8], ...noMore);
    pushDone(out, big, 16, 0.5, 1, 9, undefined);
    pushDone(out, big + 1, 4096, 0.75, 0, undefined, undefined);
    pushDone(out, 0, 8, 1.5, 1, 'x', undefined);
    await arrived;
    close();
    const [batch] = received;
    expect(batch).toHaveLength(2);
    // Two values per one-argument task: its id and its argument, after its group's header.
    expect(batch[0]).toEqual([
      RUNS,
      7,
      1,
      2,
      1,
      1,
      2,
      2,
      8,
      1,
      1,
      3,
      3,
      8,
      2,
      2,
      4,
      4,
      5,
      big,
      6,
      7,
      7,
      0,
      1,
      6,
      7,
      1,
      1,
      7,
      8,
    ]);
    const tasks: unknown[] = [];
    forEachRun(batch[0] as RunPack, (id, fn, args) => tasks.push([id, fn, args]));
    expect(tasks).toEqual([
      [1, 7, [1]],
      [2, 7, [2]],
      [3, 8, [3]],
      [4, 8, [4, 5]],
      [big, 8, [6, 7]],
      [6, 7, []],
      [7, 7, [8]],
    ]);
    const done: unknown[] = [];
    forEachDone(batch[1] as DonePack, (...fields) => done.push(fields));
    expect(done).toEqual([
      [big, 0, 0.5, 1, 9],
      [big + 1, 4096, 0.75, 0, undefined],
      [0, 0, 1.5, 1, 'x'],
    ]);
  });

  it('starts a new pack after a batch was sent, never growing one already sent', async () => {
    const { port1, port2 } = new MessageChannel();
    const out = new Batcher<unknown>(portTransport(port1));
    const received: unknown[][] = [];
    port2.on('message', (batch: unknown[]) => received.push(batch));
    pushRun(out, 1, 7, [1], undefined, undefined, undefined, undefined);
    out.flush();
    pushRun(out, 2, 7, [2], undefined, undefined, undefined, undefined);
    out.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    port1.close();
    port2.close();
    expect(received).toEqual([[[RUNS, 7, 1, 1, 1, 1]], [[RUNS, 7, 1, 1, 2, 2]]]);
  });
});
