// The entry of the dedicated-thread test's thread: a setup hook that fails when asked to, or
// relays an event, counts the tasks that call `tinyDevice.count()` in shared counters, and
// reports a greeting.
import * as dtask from '@dtask/core';
import { runDedicatedThread, SharedCounters } from '@dtask/core/plugin';
import { TinyProc } from './tiny-proc.mjs';

await runDedicatedThread(({ worker, data, event }) => {
  if (data.fail) throw new dtask.UnsupportedError('no tiny device here');
  const counters = new SharedCounters(['runs'], data.counters);
  globalThis.tinyDevice = { count: () => counters.add('runs') };
  event({ kind: 'tiny-setup', bytes: 3, detail: 'set up' });
  return { processor: new TinyProc(worker), report: { greeting: 'hello' } };
});
