// What every package's build shares (each package's tsup.config.ts names only its entries and
// the packages it leaves external).
import type { Options } from 'tsup';

/** Settings every build of every package uses: Node 20, source maps, class names kept. */
export const base = {
  sourcemap: true,
  target: 'node20',
  keepNames: true,
} as const satisfies Options;

/** A package's public entries: ESM and CJS with declarations, `import.meta.url` shimmed in CJS. */
export function library(entry: Options['entry'], external: Options['external'] = []): Options {
  return { ...base, entry, external, format: ['esm', 'cjs'], dts: true, shims: true, clean: true };
}

/**
 * Programs a package starts itself (a worker thread's or process's entry, a CLI), loaded by
 * URL or run by node, never `require`d: ESM only.
 */
export function program(entry: Options['entry'], external: Options['external'] = []): Options {
  return { ...base, entry, external, format: ['esm'] };
}
