import { defineConfig } from 'tsup';

const common = {
  sourcemap: true,
  target: 'node20' as const,
  keepNames: true,
  external: ['@dtask/core', 'tsx'],
};

export default defineConfig([
  {
    ...common,
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    shims: true,
    clean: true,
  },
  // Runs inside each worker thread, loaded by URL: ESM only (it uses top-level await).
  { ...common, entry: ['src/worker-entry.ts'], format: ['esm'] },
]);
