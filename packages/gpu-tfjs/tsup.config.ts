import { defineConfig } from 'tsup';

export default defineConfig({
  sourcemap: true,
  target: 'node20',
  keepNames: true,
  external: ['@dtask/core', /^@tensorflow\//],
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  shims: true,
  clean: true,
});
