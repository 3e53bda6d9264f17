import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', kernels: 'src/block-kernels.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  keepNames: true,
  external: ['@dtask/core', '@dtask/datadeps'],
});
