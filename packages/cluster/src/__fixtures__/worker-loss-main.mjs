// Run as `node worker-loss-main.mjs <case>` by cluster-program.test.ts: a plain program on
// local worker processes in which a worker process is lost, as a user would write it. It
// prints what it got and ends with `shutdown()`; it must exit 0 with nothing unhandled. The
// cases whose tasks all run on worker 2 start that one worker process alone (a second one
// would only start and stop, about 0.35 s of CPU); `kill` and `stop` start two, so that the
// lost task may run again on the other while the replacement starts.
//   exit:   a task calls process.exit(1) on its worker process the first time it runs
//   kill:   the worker process running a task is SIGKILLed; the program ends while its
//           replacement may still be starting
//   cancel: a busy task on a worker process is cancelled, then a follow-up runs there
//   stop:   the same with SIGSTOP (the stopped process is found by heartbeats)
//   no-shutdown: a task runs, and the program ends without shutdown()
//   killer: a task that calls process.exit(1) every time it runs, beside three slow tasks on
//           the same worker process: it alone is blamed (it fails after 3 deaths), they finish
//   async-killer: the same, with an async task function that exits after an await
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn } from '@dtask/core';

const which = process.argv[2];
const workers = which === 'kill' || which === 'stop' ? 2 : 1;
const plugin = cluster(
  which === 'stop' ? { workers, heartbeatMs: 100, heartbeatTimeoutMs: 800 } : { workers },
);
await configure({ plugins: [plugin] }).ready();
const onWorkers = { scope: scope({ workers: [2, 3] }) };
const onTwo = { scope: scope({ worker: 2 }) };

/** The worker process holding a task of ours, once it has one. */
async function holder() {
  for (;;) {
    const w = plugin.processWorkers().find((p) => p.connection.inFlight.size > 0);
    if (w) return w;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A file a task writes the first time it runs (tasks run in other processes). */
const marker = join(mkdtempSync(join(tmpdir(), 'marker-')), 'ran');

if (which === 'exit') {
  const value = await spawn(
    onTwo,
    (m) => {
      const fs = process.getBuiltinModule('node:fs');
      if (!fs.existsSync(m)) {
        fs.writeFileSync(m, 'ran');
        process.exit(1);
      }
      return 42;
    },
    marker,
  );
  console.log(`value ${value}`);
} else if (which === 'kill' || which === 'stop') {
  // Slow the first time it runs, quick when run again: the program ends while the lost
  // worker's replacement may still be starting.
  const task = spawn(
    onWorkers,
    (m) => {
      const fs = process.getBuiltinModule('node:fs');
      if (fs.existsSync(m)) return 42;
      fs.writeFileSync(m, 'ran');
      return new Promise((r) => setTimeout(() => r(42), 5000));
    },
    marker,
  );
  const w = await holder();
  while (!existsSync(marker)) await new Promise((r) => setTimeout(r, 10));
  // A worker serves only once its heartbeat thread has joined, so its heartbeats (not the 30 s
  // start timeout) find it stopped from its first task on.
  if (w.heartbeat === undefined) {
    console.error(`worker ${w.worker} runs a task before its heartbeat thread joined`);
    process.exit(3);
  }
  process.kill(w.child.pid, which === 'kill' ? 'SIGKILL' : 'SIGSTOP');
  console.log(`value ${await task}`);
} else if (which === 'cancel') {
  const busy = spawn(onTwo, () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000); // the process held, busy
    return 1;
  });
  await holder();
  await new Promise((r) => setTimeout(r, 200));
  busy.cancel();
  try {
    await busy;
    console.log('busy finished');
  } catch (error) {
    console.log(`busy ${error.cause?.code ?? error.code}`);
  }
  console.log(`value ${await spawn(onTwo, (x) => x + 1, 41)}`);
} else if (which === 'killer' || which === 'async-killer') {
  const slow = [0, 1, 2].map((i) =>
    spawn(onTwo, (x) => new Promise((r) => setTimeout(() => r(x), 1000)), i),
  );
  await holder();
  const killer =
    which === 'killer'
      ? spawn(onTwo, () => process.exit(1))
      : spawn(onTwo, async () => {
          await new Promise((r) => setTimeout(r, 20));
          process.exit(1);
        });
  try {
    await killer;
    console.log('killer finished');
  } catch (error) {
    const alone = /3 workers that died, alone each time/.test(error.cause?.message);
    console.log(`killer ${error.cause?.code}${alone ? ' alone' : ` ${error.cause?.message}`}`);
  }
  console.log(`slow ${await Promise.all(slow)}`);
} else if (which === 'no-shutdown') {
  console.log(`value ${await spawn(onTwo, (x) => x + 1, 41)}`);
} else throw new Error(`unknown case ${which}`);
if (which !== 'no-shutdown') await shutdown();
console.log('done');
