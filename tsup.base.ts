// What every package's build shares (each package's tsup.config.ts names only its entries and
// the packages it leaves external).
import { rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from 'tsup';

/** The workspace's root (this file's folder). */
const root = dirname(fileURLToPath(import.meta.url));

/**
 * Where the workspace's type check writes every source file's declarations (`tsc -p
 * tsconfig.json`, run by `scripts/setup.sh types` before the packages' builds), mirroring the
 * workspace's folders: `packages/core/src/index.ts` → `<types>/packages/core/src/index.d.ts`.
 */
export const typesDir = join(root, '.types');

/**
 * A build's entries as tsup names its outputs (an object's keys; an array's files by their path
 * below the entries' common folder, one file by its base name), each mapped to the declaration
 * file the workspace's type check wrote for it.
 */
function declarationEntries(entry: Options['entry']): Record<string, string> {
  const files = typeof entry === 'string' ? [entry] : entry;
  let named: Record<string, string>;
  if (files === undefined) throw new Error('tsup.base: a library needs its entries');
  if (!Array.isArray(files)) {
    named = files;
  } else if (files.length === 1) {
    named = { [basename(files[0]!).replace(/\.[a-z]+$/, '')]: files[0]! };
  } else {
    const parts = files.map((f) => f.split('/'));
    let common = 0;
    while (parts.every((p) => p.length > common + 1 && p[common] === parts[0]![common])) common++;
    named = Object.fromEntries(
      files.map((f, i) => [
        parts[i]!.slice(common)
          .join('/')
          .replace(/\.[a-z]+$/, ''),
        f,
      ]),
    );
  }
  return Object.fromEntries(
    Object.entries(named).map(([name, file]) => [
      name,
      join(typesDir, relative(root, resolve(file))).replace(/\.ts$/, '.d.ts'),
    ]),
  );
}

/**
 * Which part of a package's build to run (`DTASK_BUILD_PART`, set by `scripts/build-packages.mjs
 * --part`): `js` the JavaScript alone (libraries and programs, no declarations), `types` the
 * libraries' declarations alone (bundled from the type check's, `typesDir`; the JavaScript already
 * in `dist` left as it is), unset both, in one run.
 */
const part = process.env.DTASK_BUILD_PART;

/**
 * Gives esbuild the package's folder as its working folder, as tsup's other paths are: esbuild's
 * own default is the folder it was loaded in, and `scripts/build-packages.mjs` builds every
 * package in one process, moving into each package's folder in turn.
 */
function workingFolder(options: Parameters<NonNullable<Options['esbuildOptions']>>[0]): void {
  options.absWorkingDir = process.cwd();
}

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
  esbuildOptions: workingFolder,
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
      workingFolder(options);
      if (format === 'cjs') options.minifyWhitespace = true;
    },
    // Declarations are bundled (rollup-plugin-dts, one file per entry and shared chunks) from those
    // the workspace's one type check wrote (`typesDir`): no package's build type-checks again.
    dts: part === 'js' ? false : { entry: declarationEntries(entry), only: part === 'types' },
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
  if (part === 'types') return [lib];
  rmSync('dist', { recursive: true, force: true });
  return [{ ...lib, clean: false }, ...programs];
}
