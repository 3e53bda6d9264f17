// What every package's build shares (each package's tsup.config.ts names only its entries and
// the packages it leaves external).
import { rmSync } from 'node:fs';
import type { Options } from 'tsup';

/**
 * Settings every build of every package uses: Node 20, class names kept. No source maps: the
 * published JavaScript is not minified and keeps its names, so a stack trace through it reads as
 * it is, while maps (with the sources inlined, as tsup writes them) were two thirds of the
 * packages' size, and maps without their sources would point at files the packages do not ship.
 */
export const base = {
  sourcemap: false,
  target: 'node20',
  keepNames: true,
} as const satisfies Options;

/**
 * A package's public entries: ESM and CJS with declarations, `import.meta.url` shimmed in CJS.
 * ESM entries share chunks; each CJS entry is one file holding all it needs (esbuild splits ESM
 * only, and tsup's CJS splitting miscompiles static class blocks), so the CJS files are written
 * without whitespace, names and identifiers kept, to keep the package small.
 */
export function library(entry: Options['entry'], external: Options['external'] = []): Options {
  return {
    ...base,
    entry,
    external,
    format: ['esm', 'cjs'],
    esbuildOptions(options, { format }) {
      if (format === 'cjs') options.minifyWhitespace = true;
    },
    // Declarations read the workspace packages they import through their built declarations, not
    // through the `source` condition the workspace's tsconfig sets (turbo builds those first): the
    // output is the same, byte for byte, and each plugin's declaration build no longer type-checks
    // @dtask/core's sources again (threads: 3 s of CPU instead of 10).
    dts: { compilerOptions: { customConditions: [] } },
    shims: true,
    clean: true,
  };
}

/**
 * Programs a package starts itself (a worker thread's or process's entry, a CLI), loaded by
 * URL or run by node, never `require`d: ESM only.
 */
export function program(entry: Options['entry'], external: Options['external'] = []): Options {
  return { ...base, entry, external, format: ['esm'] };
}

/**
 * A package's library (`library`) and the programs it starts (`program`), which tsup builds side
 * by side into one `dist/`. The folder is emptied once, here, before either starts, and neither
 * cleans it itself: the library's clean, run at its start, raced the programs' output and on a
 * loaded machine deleted a `worker-entry.js` already written.
 */
export function withPrograms(lib: Options, ...programs: Options[]): Options[] {
  rmSync('dist', { recursive: true, force: true });
  return [{ ...lib, clean: false }, ...programs];
}
