import { defineConfig } from 'tsup';

const common = {
  sourcemap: true,
  target: 'node20' as const,
  keepNames: true,
  external: ['@dtask/core', '@dtask/threads', 'gpu.js', 'gl'],
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
  // Runs inside the GpujsProc's worker thread, loaded by URL: ESM only.
  { ...common, entry: ['src/worker-entry.ts'], format: ['esm'] },
]);
