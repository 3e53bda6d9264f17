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
    const t0 = now() - 10; // a probe that took 10 ms: the worker's clock is 5 s ahead
    r.onClock(t0, t0 + 5 + 5000);
    expect(r.offsetMs).toBeGreaterThan(4990);
    expect(r.offsetMs).toBeLessThan(5010);
    expect(r.roundTripMs).toBeGreaterThanOrEqual(10);
    const better = now() - 2; // a faster probe is more exact and replaces it
    r.onClock(better, better + 1 + 5000);
    expect(Math.abs(r.offsetMs - 5000)).toBeLessThan(2);
    const worse = now() - 50; // a slower one does not
    r.onClock(worse, worse + 25 + 7000);
    expect(Math.abs(r.offsetMs - 5000)).toBeLessThan(2);
    const at = now();
    r.onLogs([{ kind: 'spill', time: at + 5000, processor: 'thread:2:1', bytes: 8 }]);
    const logs = fetchLogs();
    const spill = logs.find((e) => e.kind === 'spill');
    expect(Math.abs((spill?.time ?? 0) - at)).toBeLessThan(2);
    const clocks = logs.filter((e) => e.kind === 'clock');
    expect(clocks).toHaveLength(2); // the estimate improved twice
    expect(clocks[1]).toMatchObject({ processor: 'thread:2:1', worker: 2 });
    expect(clocks[1].detail).toMatch(/^clock offset (4999|500\d)\.\d{3} ms ± \d+\.\d{3} ms$/);
    r.close();
  });

  it('takes the offset exactly from the monotonic clock of a worker on this machine', () => {
    enableLogging();
    const { relay: r } = relay();
    // A worker whose wall clock runs 5 s ahead, answering a probe that took 40 ms.
    const t0 = now() - 40;
    r.onClock(t0, now() + 5000, monotonicNow(), machineId());
    if (machineId() === undefined) {
      console.log('no boot id on this system: the exact path is not taken, the estimate stands');
      expect(r.roundTripMs).toBeGreaterThanOrEqual(40);
    } else {
      expect(Math.abs(r.offsetMs - 5000)).toBeLessThan(0.5); // not ± 20 ms
      expect(r.roundTripMs).toBe(0);
      r.onClock(now() - 1, now() + 7000); // an estimate no longer replaces it
      expect(Math.abs(r.offsetMs - 5000)).toBeLessThan(0.5);
      const clocks = fetchLogs().filter((e) => e.kind === 'clock');
      expect(clocks.at(-1)?.detail).toMatch(
        /^clock offset (4999|500\d)\.\d{3} ms same machine: exact$/,
      );
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
