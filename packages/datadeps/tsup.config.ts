import { defineConfig } from 'tsup';
import { library } from '../../tsup.base.js';

export default defineConfig(
  library({ index: 'src/index.ts', 'examples/index': 'src/examples/index.ts' }, ['@dtask/core']),
);
