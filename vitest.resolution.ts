// How the test files resolve the workspace's packages (vitest.config.ts's projects use it):
// from their sources, or a package's own sources and every other package's built files.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vitest/config';

/** Where a workspace package's export subpath ('@dtask/core/worker') lives. */
interface PackageExport {
  /** The package's folder, with a trailing slash: the modules inside it are its own. */
  dir: string;
  /** Its source file (the `source` condition). */
  source: string;
  /** Its built ESM file (the `import` condition). */
  built: string;
}

/** Every workspace package (packages/*, apps/*): its folder and its name. */
function workspacePackages(): { dir: string; name: string; exports: Record<string, unknown> }[] {
  return ['packages', 'apps'].flatMap((group) => {
    const root = resolve(import.meta.dirname, group);
    return readdirSync(root).map((dir) => {
      const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      return { dir: join(root, dir), name: pkg.name as string, exports: pkg.exports ?? {} };
    });
  });
}

/** Every workspace package's export subpaths ('@dtask/core/worker' → its files). */
function packageExports(): Map<string, PackageExport> {
  const exports = new Map<string, PackageExport>();
  for (const { dir, name, exports: entries } of workspacePackages()) {
    for (const [sub, target] of Object.entries(
      entries as Record<string, Record<string, unknown>>,
    )) {
      const built = (target?.import as { default?: unknown } | undefined)?.default;
      if (typeof target.source !== 'string' || typeof built !== 'string') continue;
      exports.set(join(name, sub), {
        dir: `${dir}/`,
        source: join(dir, target.source),
        built: join(dir, built),
      });
    }
  }
  return exports;
}

/**
 * Maps every `@dtask/*` import to its package's sources (one process runs files of several
 * packages: each package's modules are loaded once, from one place).
 */
export function sourceAliases(): { find: RegExp; replacement: string }[] {
  // Exact matches: a plain key would also catch its subpaths ('@dtask/core' → '@dtask/core/worker').
  return [...packageExports()].map(([name, { source }]) => ({
    find: new RegExp(`^${escapeRegExp(name)}$`),
    replacement: source,
  }));
}

/**
 * Resolves a module's imports of its own package (`@dtask/threads` from `packages/threads/`) to
 * the sources, and of every other workspace package to that package's built ESM file in `dist/`,
 * which node imports itself (`builtExternal`), as a user's program does: importing `@dtask/core`
 * and `@dtask/threads` as sources through vitest cost a test file's process about 0.4 s of CPU
 * (vite's transform, and its module runner evaluating each module), natively about 50 ms. Still
 * one copy of each package's modules in a process: no package depends on a package whose tests
 * import it (`@dtask/core`'s tests import no other package; `@dtask/datadeps`'s do not import
 * `@dtask/array`), so a built package never brings a second, built copy of the package whose
 * sources the test file uses. Editing a package's sources therefore needs a build before testing
 * the packages that use it (worker threads and processes load `dist/` too), which
 * `vitest.global-setup.ts` runs when a package's sources are newer than its `dist/`.
 */
export function ownSourcesOthersBuilt(): Plugin {
  const exports = packageExports();
  return {
    name: 'dtask-own-sources-others-built',
    enforce: 'pre',
    resolveId(id, importer) {
      const target = exports.get(id);
      if (target === undefined) return null;
      return importer?.startsWith(target.dir) ? target.source : target.built;
    },
  };
}

/** Core's package folder, with a trailing slash. */
const CORE_DIR = `${resolve(import.meta.dirname, 'packages/core')}/`;

/** True for a module of core's TypeScript sources (a test file, which imports them, is not one). */
function isCoreSource(id: string): boolean {
  const path = id.split('?')[0];
  return /\/src\/.*\.m?ts$/.test(path) && !path.endsWith('.test.ts');
}

/**
 * Resolves every `@dtask/core` import to core's built ESM file, which node imports itself
 * (`builtExternal`), and every other workspace package to its sources: for the processes that
 * run test files of several packages, none of them core's. Vite then neither transforms core's
 * sources for them nor evaluates them in each process (about 0.3 s of CPU a process), while each
 * package still has one copy in the process: the other packages' sources and built files import
 * no workspace package but core (the built `@dtask/array` imports `@dtask/datadeps`, whose
 * sources it gets here too). A test file of core's that imports its sources would bring them
 * beside the built core (two `Scheduler` classes, two sets of program-wide records), so loading
 * any of core's TypeScript sources there fails, naming the module.
 */
export function coreBuiltOthersSources(): Plugin {
  const exports = packageExports();
  return {
    name: 'dtask-core-built-others-sources',
    enforce: 'pre',
    resolveId(id) {
      const target = exports.get(id);
      if (target === undefined) return null;
      return target.dir === CORE_DIR ? target.built : target.source;
    },
    load(id) {
      if (id.startsWith(CORE_DIR) && isCoreSource(id)) {
        this.error(
          `${id}: @dtask/core's sources in a test project that imports core as built (two ` +
            "copies of core in one process); move the test file to a project of core's files " +
            '(vitest.config.ts)',
        );
      }
      return null;
    },
  };
}

/** `text` as a regular expression's source that matches it alone. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The plain JavaScript modules of the packages' sources (`.mjs` and `.cjs`: task modules and
 * programs the tests start) that import nothing of their own package. A test that imports one and loads it
 * with `everywhere` gets the same module as the built `@dtask/core`'s native `import`, so its
 * functions travel by reference; one that imports its own package stays with vite, which
 * resolves that import to the sources the test uses.
 */
function nativeModules(): RegExp[] {
  const modules: RegExp[] = [];
  for (const { dir, name } of workspacePackages()) {
    const src = join(dir, 'src');
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.mjs') && !file.endsWith('.cjs')) continue;
      const text = readFileSync(join(src, file), 'utf8');
      if (new RegExp(`['"]${escapeRegExp(name)}['"/]`).test(text)) continue;
      modules.push(new RegExp(`^${escapeRegExp(join(src, file))}$`));
    }
  }
  return modules;
}

/**
 * What node imports itself in the projects that set `ownSourcesOthersBuilt`: the built files it
 * resolves to, and the plain modules that import nothing of their own package.
 */
export const builtExternal = [/\/(packages|apps)\/[^/]+\/dist\//, ...nativeModules()];
