// The runtime's side of logging: switched on by a scheduler with another log, it records this
// thread's events and sends them in batches; with the scheduler's own log it does nothing.
import { afterEach, describe, expect, it } from 'vitest';
import {
  disableLogging,
  fetchLogs,
  isLoggingEnabled,
  logEvent,
  logRealm,
} from '../log/event-log.js';
import type { Batcher } from '../protocol/batcher.js';
import type { FromWorker } from '../protocol/protocol.js';
import { LogShipper } from './log-shipper.js';

function shipper() {
  const sent: FromWorker[] = [];
  const out = {
    push: (m: FromWorker) => sent.push(m),
    flush: () => {},
  } as unknown as Batcher<FromWorker>;
  return { sent, shipper: new LogShipper(out) };
}

afterEach(() => {
  disableLogging();
  fetchLogs();
});

describe('LogShipper', () => {
  it("records and sends this thread's events while the scheduler logs; sends the rest when switched off", () => {
    const { sent, shipper: s } = shipper();
    s.switch(true, logRealm() + 1); // another realm: a scheduler in another thread
    expect(isLoggingEnabled()).toBe(true);
    logEvent({ kind: 'spill', time: 1, bytes: 8 });
    s.ship();
    expect(sent).toEqual([{ op: 'logs', events: [{ kind: 'spill', time: 1, bytes: 8 }] }]);
    s.ship();
    expect(sent).toHaveLength(1); // nothing new: nothing sent
    logEvent({ kind: 'unspill', time: 2 });
    s.switch(false, logRealm() + 1);
    expect(isLoggingEnabled()).toBe(false);
    expect(sent[1]).toEqual({ op: 'logs', events: [{ kind: 'unspill', time: 2 }] });
  });

  it("does nothing when the scheduler's log is this thread's own (one realm)", () => {
    const { sent, shipper: s } = shipper();
    s.switch(true, logRealm());
    expect(isLoggingEnabled()).toBe(false);
    s.ship();
    expect(sent).toEqual([]);
  });

  it('answers a clock probe with its own time', () => {
    const { sent, shipper: s } = shipper();
    s.answerClock(123);
    expect(sent[0]).toMatchObject({ op: 'clock', t0: 123 });
    expect((sent[0] as { t1: number }).t1).toBeGreaterThan(1e12); // ms since the epoch
  });
});
