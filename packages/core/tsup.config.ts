import { defineConfig } from 'tsup';
import { library } from '../../tsup.base.js';

export default defineConfig(
  // tsx: loaded lazily by workers that meet a `.ts` module, from the user's own install.
  library(['src/index.ts', 'src/worker.ts', 'src/testing.ts', 'src/plugin.ts'], ['tsx']),
);
