import { defineConfig } from 'tsup';
import { library, program, withPrograms } from '../../tsup.base.js';

const external = ['@dtask/core'];

export default defineConfig(
  withPrograms(
    library(['src/index.ts'], external),
    // Runs inside each accelerator's dedicated thread, loaded by URL.
    program(['src/worker-entry.ts'], external),
  ),
);
