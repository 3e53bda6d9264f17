import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/worker.ts', 'src/testing.ts', 'src/plugin.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  shims: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  keepNames: true,
  // Loaded lazily by workers that meet a `.ts` module, from the user's own install.
  external: ['tsx'],
});
