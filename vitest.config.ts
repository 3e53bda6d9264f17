import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Maps every workspace package's export subpaths to its sources (the `source` condition).
 * Exact matches: a plain key would also catch its subpaths ('@dtask/core' → '@dtask/core/worker').
 */
function sourceAliases(): { find: RegExp; replacement: string }[] {
  const aliases: { find: RegExp; replacement: string }[] = [];
  const root = resolve(import.meta.dirname, 'packages');
  for (const dir of readdirSync(root)) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    for (const [sub, target] of Object.entries<Record<string, unknown>>(pkg.exports ?? {})) {
      if (typeof target === 'object' && typeof target.source === 'string') {
        const name = join(pkg.name, sub).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        aliases.push({
          find: new RegExp(`^${name}$`),
          replacement: join(root, dir, target.source),
        });
      }
    }
  }
  return aliases;
}

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
    // Lets freeing tests force garbage collection (FinalizationRegistry backstops).
    execArgv: ['--expose-gc'],
    // Two test files at a time even on 2 cores (vitest's default there is one): many tests
    // wait on worker processes, sockets and timers, which the other file's work fills.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
