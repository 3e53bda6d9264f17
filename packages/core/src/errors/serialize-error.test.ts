import { describe, expect, it } from 'vitest';
import { DTaskError } from './dtask-error.js';
import {
  ArgumentError,
  CancelledError,
  ConcurrencyViolationError,
  DynamicTaskError,
  SchedulingError,
  TaskFunctionError,
  UnsupportedError,
  WorkerLostError,
} from './errors.js';
import { deserializeError, serializeError } from './serialize-error.js';
import { StorageError } from './storage-error.js';
import { DTaskFailedError } from './task-failed-error.js';

/** Through plain data and a structured clone, as across a MessagePort or a process pipe. */
function roundTrip(error: unknown): unknown {
  return deserializeError(structuredClone(serializeError(error)));
}

const simpleClasses = [
  ArgumentError,
  TaskFunctionError,
  SchedulingError,
  WorkerLostError,
  CancelledError,
  ConcurrencyViolationError,
  DynamicTaskError,
  UnsupportedError,
];

describe('serializeError / deserializeError', () => {
  for (const Class of simpleClasses) {
    it(`${Class.name} keeps class, code, message, stack and cause`, () => {
      const original = new Class(`a ${Class.name}`, { cause: new RangeError('underneath') });
      const back = roundTrip(original) as DTaskError;
      expect(back).toBeInstanceOf(Class);
      expect(Class.isInstance(back)).toBe(true);
      expect(DTaskError.isInstance(back)).toBe(true);
      expect(back.name).toBe(Class.name);
      expect(back.code).toBe(Class.code);
      expect(back.message).toBe(original.message);
      expect(back.stack).toBe(original.stack);
      expect(back.cause).toBeInstanceOf(RangeError);
      expect((back.cause as Error).message).toBe('underneath');
    });
  }

  it('DTaskFailedError keeps task, rootTask, upstream and a dtask cause', () => {
    const original = new DTaskFailedError({
      task: { id: 9, name: 'sum' },
      rootTask: { id: 3, name: 'load' },
      upstream: { id: 5 },
      cause: new SchedulingError('No processors available, try widening scope'),
    });
    const back = roundTrip(original) as DTaskFailedError;
    expect(back).toBeInstanceOf(DTaskFailedError);
    expect(back.code).toBe('DTASK_FAILED');
    expect(back.message).toBe(original.message);
    expect(back.task).toEqual({ id: 9, name: 'sum' });
    expect(back.rootTask).toEqual({ id: 3, name: 'load' });
    expect(back.upstream).toEqual({ id: 5, name: undefined });
    expect(SchedulingError.isInstance(back.cause)).toBe(true);
    expect(back.cause).toBeInstanceOf(SchedulingError);
  });

  it('DTaskFailedError without upstream, with a user error cause keeping its own code', () => {
    const cause = Object.assign(new TypeError('bad input'), { code: 'E_USER' });
    const original = new DTaskFailedError({ task: { id: 1 }, rootTask: { id: 1 }, cause });
    const back = roundTrip(original) as DTaskFailedError;
    expect(back.upstream).toBeUndefined();
    expect(back.cause).toBeInstanceOf(TypeError);
    expect((back.cause as { code?: string }).code).toBe('E_USER');
    expect(back.message).toBe(original.message);
  });

  it('StorageError keeps its class, code, device and key', () => {
    for (const original of [
      StorageError.missing('ram', 'chunk:1'),
      StorageError.full('lmdb', 'k', 10, 5, 12),
      new StorageError('DTASK_STORAGE_IO', 'disk on fire', {
        device: 'lmdb',
        cause: new Error('EIO'),
      }),
    ]) {
      const back = roundTrip(original) as StorageError;
      expect(back).toBeInstanceOf(StorageError);
      expect(StorageError.isInstance(back)).toBe(true);
      expect(back.code).toBe(original.code);
      expect(back.message).toBe(original.message);
      expect(back.device).toBe(original.device);
      expect(back.key).toBe(original.key);
      expect((back.cause as Error | undefined)?.message).toBe(
        (original.cause as Error | undefined)?.message,
      );
    }
  });

  it('keeps a cause chain several levels deep', () => {
    const original = new WorkerLostError('lost', {
      cause: new CancelledError('cancelled', { cause: new Error('root') }),
    });
    const back = roundTrip(original) as WorkerLostError;
    const mid = back.cause as CancelledError;
    expect(mid).toBeInstanceOf(CancelledError);
    expect((mid.cause as Error).message).toBe('root');
  });

  it('built-in errors and non-errors survive', () => {
    const custom = new Error('named');
    custom.name = 'MyError';
    const back = roundTrip(custom) as Error;
    expect(back.name).toBe('MyError');
    expect(back.message).toBe('named');
    expect(roundTrip(new SyntaxError('x'))).toBeInstanceOf(SyntaxError);
    expect(roundTrip('a string')).toBe('a string');
    expect(roundTrip({ plain: 1 })).toEqual({ plain: 1 });
    expect(roundTrip(42)).toBe(42);
  });
});
