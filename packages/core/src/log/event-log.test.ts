import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import {
  disableLogging,
  droppedEventCount,
  enableLogging,
  fetchLogs,
  isLoggingEnabled,
  logEvent,
  loggingState,
  now,
  recordEvents,
} from './event-log.js';
import type { LogEvent } from './log-event.js';

function reset(): void {
  disableLogging();
  fetchLogs();
}

function codeOf(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    expect(ArgumentError.isInstance(error)).toBe(true);
    return (error as ArgumentError).code;
  }
  throw new Error('expected a throw');
}

beforeEach(reset);
afterEach(reset);

describe('event log', () => {
  it('is disabled by default and records nothing', () => {
    expect(isLoggingEnabled()).toBe(false);
    expect(loggingState.enabled).toBe(false);
    logEvent({ kind: 'spawn', time: 1, task: 1 });
    recordEvents([{ kind: 'start', time: 2, task: 1 }]);
    expect(fetchLogs()).toEqual([]);
  });

  it('records events in order once enabled, and stops when disabled', () => {
    enableLogging();
    expect(isLoggingEnabled()).toBe(true);
    expect(loggingState.enabled).toBe(true);
    logEvent({ kind: 'spawn', time: 1, task: 1 });
    logEvent({ kind: 'start', time: 2, task: 1, processor: 'thread:1:2' });
    logEvent({ kind: 'finish', time: 3, task: 1, processor: 'thread:1:2', bytes: 8 });
    disableLogging();
    expect(loggingState.enabled).toBe(false);
    logEvent({ kind: 'spawn', time: 4, task: 2 });
    expect(fetchLogs().map((e) => e.kind)).toEqual(['spawn', 'start', 'finish']);
  });

  it('clears on fetch by default, and not with clear: false', () => {
    enableLogging();
    logEvent({ kind: 'spawn', time: 1, task: 1 });
    expect(fetchLogs({ clear: false })).toHaveLength(1);
    expect(fetchLogs({ clear: false })).toHaveLength(1);
    expect(fetchLogs()).toHaveLength(1);
    expect(fetchLogs()).toEqual([]);
  });

  it('returns events in time order even when a batch arrives late', () => {
    enableLogging();
    logEvent({ kind: 'spawn', time: 10, task: 1 });
    logEvent({ kind: 'spawn', time: 30, task: 3 });
    recordEvents([
      { kind: 'start', time: 20, task: 1 },
      { kind: 'finish', time: 20, task: 1 },
    ]);
    expect(fetchLogs().map((e) => [e.time, e.kind])).toEqual([
      [10, 'spawn'],
      [20, 'start'],
      [20, 'finish'],
      [30, 'spawn'],
    ]);
  });

  it('drops the oldest events past maxEvents and counts them', () => {
    enableLogging({ maxEvents: 3 });
    for (let i = 1; i <= 5; i++) logEvent({ kind: 'spawn', time: i, task: i });
    expect(droppedEventCount()).toBe(2);
    expect(fetchLogs({ clear: false }).map((e) => e.task)).toEqual([3, 4, 5]);
    logEvent({ kind: 'spawn', time: 6, task: 6 });
    expect(fetchLogs().map((e) => e.task)).toEqual([4, 5, 6]);
    expect(droppedEventCount()).toBe(0);
  });

  it('keeps the newest events when re-enabled with a smaller cap', () => {
    enableLogging();
    for (let i = 1; i <= 4; i++) logEvent({ kind: 'spawn', time: i, task: i });
    enableLogging({ maxEvents: 2 });
    expect(droppedEventCount()).toBe(2);
    expect(fetchLogs().map((e) => e.task)).toEqual([3, 4]);
  });

  it('ingests a batch from a worker with recordEvents, capped by the ring', () => {
    enableLogging({ maxEvents: 2 });
    const batch: LogEvent[] = [
      { kind: 'start', time: 1, task: 1, processor: 'thread:2:1', worker: 2 },
      { kind: 'finish', time: 2, task: 1, processor: 'thread:2:1', worker: 2 },
      { kind: 'move', time: 3, from: 'thread:2:1', to: 'thread:1:1', bytes: 64, worker: 1 },
    ];
    recordEvents(structuredClone(batch));
    expect(fetchLogs()).toEqual(batch.slice(1));
    expect(() => recordEvents('nope' as never)).toThrow(ArgumentError);
  });

  it('rejects bad options with DTASK_ARGUMENT', () => {
    for (const maxEvents of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10']) {
      expect(codeOf(() => enableLogging({ maxEvents: maxEvents as number }))).toBe(
        'DTASK_ARGUMENT',
      );
    }
    expect(codeOf(() => enableLogging({ maxEvent: 10 } as never))).toBe('DTASK_ARGUMENT');
    expect(codeOf(() => enableLogging(null as never))).toBe('DTASK_ARGUMENT');
    expect(codeOf(() => fetchLogs({ clear: 'yes' as never }))).toBe('DTASK_ARGUMENT');
    expect(() => enableLogging({ maxEvents: 0 })).toThrow(/maxEvents must be a positive integer/);
    expect(isLoggingEnabled()).toBe(false);
  });

  it('keeps its state on globalThis, shared by a second copy of the module', async () => {
    expect((globalThis as any)[Symbol.for('dtask.log')]).toBe(loggingState);
    vi.resetModules();
    const copy = await import('./event-log.js');
    expect(copy.logEvent).not.toBe(logEvent);
    copy.enableLogging();
    expect(isLoggingEnabled()).toBe(true);
    logEvent({ kind: 'spawn', time: 1, task: 1 });
    expect(copy.fetchLogs()).toHaveLength(1);
  });

  it('reads the clock in epoch milliseconds', () => {
    const before = Date.now();
    const t = now();
    expect(t).toBeGreaterThanOrEqual(before - 1000);
    expect(t).toBeLessThanOrEqual(Date.now() + 1000);
    expect(now()).toBeGreaterThanOrEqual(t);
  });
});
