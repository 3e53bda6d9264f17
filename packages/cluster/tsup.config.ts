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
  // Run as their own programs (a worker process, its heartbeat thread, the CLI): ESM only.
  {
    ...common,
    entry: {
      'worker-main': 'src/worker/worker-main.ts',
      'heartbeat-thread': 'src/worker/heartbeat-thread.ts',
      'thread-main': 'src/worker/thread-main.ts',
      'bin/dtask-worker': 'src/bin/dtask-worker.ts',
    },
    format: ['esm'],
  },
]);
