// The scheduler's side of a worker's logs: the logging switch travels to the worker, clock
// probes give the worker's offset (NTP's rule, shortest round trip wins), and the worker's
// events are recorded shifted onto this clock.

import { afterEach, describe, expect, it } from 'vitest';
import { disableLogging, enableLogging, fetchLogs, logRealm, now } from '../../../log/event-log.js';
import { machineId, monotonicNow } from '../../../log/machine-clock.js';
import { ThreadProc } from '../../../processor/thread-proc.js';
import type { Batcher } from '../../../protocol/batcher.js';
import type { ToWorker } from '../../../protocol/protocol.js';
import { LogRelay } from './log-relay.js';

function relay() {
  const sent: ToWorker[] = [];
  const out = { push: (m: ToWorker) => sent.push(m) } as unknown as Batcher<ToWorker>;
  return { sent, relay: new LogRelay(out, new ThreadProc(2, 1)) };
}

afterEach(() => {
  disableLogging();
  fetchLogs();
});

describe('LogRelay', () => {
  it("follows this thread's logging switch, probing the clock when logging starts", () => {
    const { sent, relay: r } = relay();
    expect(sent).toEqual([]); // logging off: nothing to say
    enableLogging();
    expect(sent[0]).toEqual({ op: 'logging', enabled: true, realm: logRealm() });
    expect(sent[1]).toMatchObject({ op: 'clock' });
    disableLogging();
    expect(sent[2]).toEqual({ op: 'logging', enabled: false, realm: logRealm() });
    r.close();
    enableLogging();
    expect(sent).toHaveLength(3); // closed: no longer follows
  });

  it('estimates the offset from the probe with the shortest round trip and shifts events by it', () => {
    enableLogging();
    const { relay: r } = relay();
    // Each probe comes back during `onClock`: its round trip lies between the times read just
    // before and after the call, so the offset it gives is known within that window, however
    // long a loaded machine made the call.
    const answer = (ageMs: number, workerAheadMs: number) => {
      const t0 = now() - ageMs;
      const t1 = t0 + ageMs / 2 + workerAheadMs; // stamped half-way through the round trip
      const before = now();
      r.onClock(t0, t1);
      const after = now();
      return {
        roundTrip: [before - t0, after - t0],
        offset: [t1 - (t0 + after) / 2, t1 - (t0 + before) / 2],
      };
    };
    const within = (x: number, [lo, hi]: number[]) => {
      expect(x).toBeGreaterThanOrEqual(lo - 1e-6);
      expect(x).toBeLessThanOrEqual(hi + 1e-6);
    };
    // A probe that took 1 s: the worker's clock is 5 s ahead, ± half the round trip.
    const first = answer(1000, 5000);
    within(r.roundTripMs, first.roundTrip);
    within(r.offsetMs, first.offset);
    expect(Math.abs(r.offsetMs - 5000)).toBeLessThan(r.roundTripMs / 2 + 1e-6);
    // A faster probe is more exact and replaces it.
    const better = answer(2, 5000);
    within(r.roundTripMs, better.roundTrip);
    within(r.offsetMs, better.offset);
    const best = r.offsetMs;
    // A slower one does not, whatever it says.
    answer(r.roundTripMs + 5000, 7000);
    expect(r.offsetMs).toBe(best);
    // The worker's events are shifted by exactly the offset.
    const at = now();
    r.onLogs([{ kind: 'spill', time: at + 5000, processor: 'thread:2:1', bytes: 8 }]);
    const logs = fetchLogs();
    const spill = logs.find((e) => e.kind === 'spill');
    expect(spill?.time).toBeCloseTo(at + 5000 - best, 6);
    const clocks = logs.filter((e) => e.kind === 'clock');
    expect(clocks).toHaveLength(2); // the estimate improved twice
    expect(clocks[1]).toMatchObject({ processor: 'thread:2:1', worker: 2 });
    const [, offset, error] = clocks[1].detail!.match(
      /^clock offset (\d+\.\d{3}) ms ± (\d+\.\d{3}) ms$/,
    )!;
    expect(Number(offset)).toBeCloseTo(best, 3);
    expect(Number(error)).toBeCloseTo(r.roundTripMs / 2, 3);
    r.close();
  });

  it('takes the offset exactly from the monotonic clock of a worker on this machine', () => {
    enableLogging();
    const { relay: r } = relay();
    // A worker whose wall clock runs 5 s ahead, answering a probe that took 40 ms. The exact
    // offset is off only by the time between the clock reads (the arguments' and onClock's),
    // which `spent` bounds: well under a millisecond on a quiet machine, not ± 20 ms.
    const t0 = now() - 40;
    const m0 = monotonicNow();
    r.onClock(t0, now() + 5000, monotonicNow(), machineId());
    const spent = monotonicNow() - m0;
    if (machineId() === undefined) {
      console.log('no boot id on this system: the exact path is not taken, the estimate stands');
      expect(r.roundTripMs).toBeGreaterThanOrEqual(40);
    } else {
      expect(r.roundTripMs).toBe(0);
      expect(Math.abs(r.offsetMs - 5000)).toBeLessThan(spent + 0.5);
      const exact = r.offsetMs;
      r.onClock(now() - 1, now() + 7000); // an estimate no longer replaces it
      expect(r.offsetMs).toBe(exact);
      const clocks = fetchLogs().filter((e) => e.kind === 'clock');
      expect(clocks.at(-1)?.detail).toBe(`clock offset ${exact.toFixed(3)} ms same machine: exact`);
    }
    // Another machine's monotonic clock says nothing about this one's: estimated as before.
    const other = relay().relay;
    const t = now() - 10;
    other.onClock(t, t + 5 + 5000, 123, 'another-boot-id');
    expect(other.roundTripMs).toBeGreaterThanOrEqual(10);
    r.close();
    other.close();
  });
});
