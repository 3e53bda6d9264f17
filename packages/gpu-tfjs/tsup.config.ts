import { defineConfig } from 'tsup';

const common = {
  sourcemap: true,
  target: 'node20' as const,
  keepNames: true,
  external: ['@dtask/core', '@dtask/threads', /^@tensorflow\//],
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
  // Runs inside the TfjsProc's worker thread, loaded by URL: ESM only.
  { ...common, entry: ['src/worker-entry.ts'], format: ['esm'] },
]);
