import { defineConfig } from 'tsup';
import { library, program } from '../../tsup.base.js';

const external = ['@dtask/core'];

export default defineConfig([
  library(['src/index.ts'], external),
  // Runs inside each accelerator's dedicated thread, loaded by URL.
  program(['src/worker-entry.ts'], external),
]);
