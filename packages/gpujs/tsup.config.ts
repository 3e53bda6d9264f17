import { defineConfig } from 'tsup';
import { library, program, withPrograms } from '../../tsup.base.js';

const external = ['@dtask/core', '@dtask/threads', 'gpu.js', 'gl'];

export default defineConfig(
  withPrograms(
    library(['src/index.ts'], external),
    // Runs inside the GpujsProc's worker thread, loaded by URL.
    program(['src/worker-entry.ts'], external),
  ),
);
