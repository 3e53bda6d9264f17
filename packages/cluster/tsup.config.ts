import { defineConfig } from 'tsup';
import { library, program, withPrograms } from '../../tsup.base.js';

const external = ['@dtask/core', 'tsx'];

export default defineConfig(
  withPrograms(
    library(['src/index.ts'], external),
    // Run as their own programs (a worker process, its heartbeat thread, the CLI).
    program(
      {
        'worker-main': 'src/worker/worker-main.ts',
        'heartbeat-thread': 'src/worker/heartbeat-thread.ts',
        'thread-main': 'src/worker/thread-main.ts',
        'bin/dtask-worker': 'src/bin/dtask-worker.ts',
      },
      external,
    ),
  ),
);
