import { defineConfig } from 'tsup';
import { library, program, withPrograms } from '../../tsup.base.js';

const external = ['@dtask/core', '@dtask/threads', /^@tensorflow\//];

export default defineConfig(
  withPrograms(
    library(['src/index.ts'], external),
    // Runs inside the TfjsProc's worker thread, loaded by URL.
    program(['src/worker-entry.ts'], external),
  ),
);
