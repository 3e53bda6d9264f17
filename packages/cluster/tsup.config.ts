import { defineConfig } from 'tsup';
import { library, program, withPrograms } from '../../tsup.base.js';

const external = ['@dtask/core', 'tsx'];

export default defineConfig(
  withPrograms(
    library(['src/index.ts', 'src/testing.ts'], external),
    // Run as their own programs (a worker process, its heartbeat thread, the scheduler's
    // liveness thread, a simulated-cluster host, the CLI).
    program(
      {
        'worker-main': 'src/worker/worker-main.ts',
        'heartbeat-thread': 'src/worker/heartbeat-thread.ts',
        'liveness-thread': 'src/scheduler/liveness-thread.ts',
        'thread-main': 'src/worker/thread-main.ts',
        'sim-host-main': 'src/sim/sim-host-main.ts',
        'bin/dtask-worker': 'src/bin/dtask-worker.ts',
      },
      external,
    ),
  ),
);
