import { defineConfig } from 'tsup';
import { library } from '../../tsup.base.js';

export default defineConfig(
  library({ index: 'src/index.ts', kernels: 'src/block-kernels.ts' }, [
    '@dtask/core',
    '@dtask/datadeps',
  ]),
);
