import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { spawn } from '../registry/spawn.js';
import { toChunk } from '../registry/to-chunk.js';
import { after } from './__fixtures__/after.js';
import { CORE_DIST, runProgram } from './__fixtures__/run-program.js';
import type { DTask } from './dtask.js';
import { fetchAll } from './fetch-all.js';
import { spawnBulk } from './task-queue.js';

describe('fetchAll', () => {
  it('gives the values in the order given, whatever order they finish in', async () => {
    const done = spawn(() => 'done first');
    await done;
    const tasks = [after(40, 'slow'), after(1, 'fast'), done, spawn((x: number) => x * 2, 21)];
    expect(await fetchAll(tasks)).toEqual(['slow', 'fast', 'done first', 42]);
  });

  it('counts a task given twice twice, and takes any iterable', async () => {
    const t = after(5, 7);
    expect(await fetchAll([t, t])).toEqual([7, 7]);
    expect(await fetchAll(new Set([after(1, 'a'), after(2, 'b')]))).toEqual(['a', 'b']);
    expect(await fetchAll([])).toEqual([]);
  });

  it('gives the value of a task that returned a chunk, as awaiting it does', async () => {
    const t = spawn(() => toChunk(new Float64Array([1, 2])));
    const [value] = await fetchAll([t]);
    expect(value).toEqual(await t);
    expect(value).toEqual(new Float64Array([1, 2]));
  });

  it('rejects with the first failure at once, without waiting for the rest', async () => {
    // The slow task ends only when this test lets it, after fetchAll has rejected: an order,
    // whatever a loaded machine's timers do.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = spawn(async () => {
      await gate;
      return 'late';
    });
    let slowEnded = false;
    slow.then(() => {
      slowEnded = true;
    });
    const failing = spawn(() => {
      throw new Error('gathered boom');
    });
    const error = await fetchAll([slow, failing]).catch((e: unknown) => e);
    expect(slowEnded).toBe(false);
    expect(DTaskFailedError.isInstance(error)).toBe(true);
    expect(((error as DTaskFailedError).cause as Error).message).toBe('gathered boom');
    release();
    expect(await slow).toBe('late');
  });

  it('hands held tasks over when gathered inside spawnBulk, instead of waiting forever', async () => {
    const values = await spawnBulk(() => fetchAll([spawn(() => 1), spawn(() => 2)]));
    expect(values).toEqual([1, 2]);
  });

  it('refuses anything but DTasks at the call, with ArgumentError', () => {
    expect(() => fetchAll(3 as unknown as DTask<number>[])).toThrow(ArgumentError);
    expect(() => fetchAll([spawn(() => 1), Promise.resolve(2)] as DTask<number>[])).toThrow(
      /fetchAll\(tasks\): tasks\[1\] is not a DTask/,
    );
  });

  it('in a plain program: failures caught, none unhandled, and node exits 0 once done', async () => {
    const { code, out } = await runProgram(`
      import { fetchAll, spawn } from ${JSON.stringify(CORE_DIST.href)};
      const tasks = Array.from({ length: 10_000 }, (_, i) => spawn((x) => x + 1, i));
      const values = await fetchAll(tasks);
      console.log('SUM', values.reduce((a, b) => a + b, 0));
      const boom = (m) => { throw new Error(m); };
      const failing = [spawn(boom, 'one'), spawn(boom, 'two'), spawn(() => 3)];
      await fetchAll(failing).catch((e) => console.log('CAUGHT', e.code, e.cause.message));
      console.log('END');
    `);
    expect(code, out).toBe(0);
    expect(out).toContain('SUM 50005000');
    expect(out).toMatch(/CAUGHT DTASK_FAILED one\n/);
    expect(out).toMatch(/END\n$/);
  });
});
