import { defineConfig } from 'tsup';
import { library, program, withPrograms } from '../../tsup.base.js';

const external = ['@dtask/core', 'tsx'];

export default defineConfig(
  withPrograms(
    library(['src/index.ts'], external),
    // Runs inside each worker thread, which loads it by URL as an ES module: never required, so
    // ESM only. It starts without a top-level await (see the file: in Node 20 a thread ended
    // while an async module evaluates aborts the process).
    program(['src/worker-entry.ts'], external),
  ),
);
