import { afterEach, describe, expect, it } from 'vitest';
import { ArgumentError, CancelledError } from '../../errors/errors.js';
import { DTaskFailedError } from '../../errors/task-failed-error.js';
import { disableLogging, enableLogging, fetchLogs } from '../../log/index.js';
import { spawn } from '../../registry/spawn.js';

/** A function that throws `times` times (counted in `tries`), then returns `value`. */
function flaky<T>(times: number, value: T, error: () => Error = () => new Error('flaky')) {
  const tries = { n: 0 };
  const fn = async (): Promise<T> => {
    tries.n++;
    if (tries.n <= times) throw error();
    return value;
  };
  return { fn, tries };
}

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

describe('retries', () => {
  it('runs a task that throws again, up to retries times, and logs each retry', async () => {
    enableLogging();
    const { fn, tries } = flaky(2, 'ok');
    const t = spawn({ retries: 2, name: 'flaky' }, fn);
    const after = spawn((x: string) => `${x}!`, t);
    expect(await after).toBe('ok!');
    expect(tries.n).toBe(3);
    const retries = fetchLogs().filter((e) => e.kind === 'retry' && e.task === t.id);
    expect(retries.map((e) => e.detail)).toEqual([
      'attempt 2 of 3 after: Error: flaky',
      'attempt 3 of 3 after: Error: flaky',
    ]);
  });

  it('fails with the last error once the retries are spent', async () => {
    const { fn, tries } = flaky(5, 'never');
    const error = await spawn({ retries: 1 }, fn)
      .fetch()
      .catch((e) => e);
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect(error.cause.message).toBe('flaky');
    expect(tries.n).toBe(2);
  });

  it('retries only the errors retryOn names, by name or code', async () => {
    const byCode = flaky(1, 'reset', () =>
      Object.assign(new Error('socket'), { code: 'ECONNRESET' }),
    );
    expect(await spawn({ retries: 3, retryOn: ['ECONNRESET'] }, byCode.fn)).toBe('reset');
    const other = flaky(1, 'no', () => new TypeError('bad type'));
    const error = await spawn({ retries: 3, retryOn: ['RangeError'] }, other.fn)
      .fetch()
      .catch((e) => e);
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(other.tries.n).toBe(1);
  });

  it('waits retryDelayMs before a retry, and a cancel meanwhile fails it', async () => {
    const { fn, tries } = flaky(1, 'late');
    const started = Date.now();
    expect(await spawn({ retries: 1, retryDelayMs: 60 }, fn)).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    const waiting = flaky(1, 'never');
    const t = spawn({ retries: 1, retryDelayMs: 5_000 }, waiting.fn);
    await new Promise((r) => setTimeout(r, 20));
    expect(t.cancel()).toBe(true);
    const error = await t.fetch().catch((e: any) => e);
    expect(error.cause ?? error).toBeInstanceOf(CancelledError);
    expect(waiting.tries.n).toBe(1);
    expect(tries.n).toBe(2);
  });

  it('never retries a task whose input failed, nor a cancel', async () => {
    let runs = 0;
    const bad = spawn(() => {
      throw new Error('upstream');
    });
    const dependent = spawn(
      { retries: 3 },
      (x: unknown) => {
        runs++;
        return x;
      },
      bad,
    );
    const error: any = await dependent.fetch().catch((e: unknown) => e);
    expect(error.cause.message).toBe('upstream');
    expect(runs).toBe(0);
  });

  it('refuses bad retry options at spawn', () => {
    expect(() => spawn({ retries: -1 }, () => 1)).toThrow(/retries' must be a whole number/);
    expect(() => spawn({ retries: 1.5 }, () => 1)).toThrow(ArgumentError);
    expect(() => spawn({ retryOn: 'TypeError' as never }, () => 1)).toThrow(
      /list of error names or codes/,
    );
    expect(() => spawn({ retryDelayMs: Number.NaN }, () => 1)).toThrow(/milliseconds/);
  });
});
