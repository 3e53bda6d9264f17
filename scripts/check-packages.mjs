// Every package as it would be published: the tarballs `npm run pack` makes (scripts/pack.mjs, with
// its own checks: no test files, core's size budget), each one linted by publint (--strict, at
// level warning) and checked by @arethetypeswrong (types resolve for ESM and CJS under node16 and
// bundlers; node10 resolution is not supported, by design: Node 20+ only, as attw's `node16`
// profile says). Both read the tarball itself. One process checks them all through the two
// tools' own APIs (what their CLIs call): TypeScript and the linters load once, not once a package.
// Run by the test command after the build, on the tarballs it packed once (`DTASK_PACKED`);
// `node scripts/check-packages.mjs` packs them itself.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mib, packed } from './pack.mjs';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));
const { publint } = await import(pathToFileURL(require.resolve('publint')).href);
const { formatMessage } = await import(pathToFileURL(require.resolve('publint/utils')).href);
// @arethetypeswrong/core: the API behind the CLI (a devDependency), at the version the CLI uses.
const fromCli = createRequire(realpathSync(join(root, 'node_modules/@arethetypeswrong/cli')));
const attwEntry = fromCli.resolve('@arethetypeswrong/core');
const attw = await import(pathToFileURL(attwEntry).href);
await shareParses(attwEntry);
/** Resolution kinds attw's `node16` profile ignores (the CLI's `--profile node16`). */
const ignoredResolutions = ['node10'];

/**
 * attw gives each resolution kind (node10, node16, bundler) a compiler host of its own, and each
 * host parses the package's files itself: the declarations and ESM files reached under node16
 * and bundler were parsed twice, the CommonJS bundles under node10 and node16 twice, about a
 * sixth of attw's CPU. A parse depends only on the file's text, its name, and the language
 * version and module format the host gives it, so here the hosts of one package share their
 * parses of a file when those agree (one more cache in front of each host's own, keyed on all
 * three). The analyses are the same as without it (compared whole, every package). attw has no
 * option for it: this wraps its compiler host class (its `internal/multiCompilerHost.js`, at
 * the pinned version), and says so and stops when that class is not where it was.
 */
async function shareParses(entry) {
  const file = join(dirname(entry), 'internal/multiCompilerHost.js');
  const { CompilerHostWrapper } = await import(pathToFileURL(file).href).catch(() => ({}));
  const create = CompilerHostWrapper?.prototype?.createCompilerHost;
  if (typeof create !== 'function') {
    throw new Error(
      `@arethetypeswrong/core has no CompilerHostWrapper in ${file}: update shareParses`,
    );
  }
  // attw's own TypeScript, and the path its hosts key their caches on.
  const ts = createRequire(file)('typescript');
  const toPath = (fileName) => ts.toPath(fileName, '/', ts.createGetCanonicalFileName(false));
  /** Per package (attw's package object, which every host of it reads): key -> parsed file. */
  const parses = new WeakMap();
  CompilerHostWrapper.prototype.createCompilerHost = function (pkg, own) {
    const host = create.call(this, pkg, own);
    const parse = host.getSourceFile;
    if (!parses.has(pkg)) parses.set(pkg, new Map());
    const shared = parses.get(pkg);
    host.getSourceFile = (fileName) => {
      const path = toPath(fileName);
      if (own.has(path)) return own.get(path);
      const key = `${this.languageVersion}:${this.getImpliedNodeFormatForFile(fileName)}:${path}`;
      const parsed = shared.get(key);
      if (parsed !== undefined) {
        own.set(path, parsed);
        return parsed;
      }
      const made = parse(fileName);
      if (made !== undefined) shared.set(key, made);
      return made;
    };
    return host;
  };
}

const work = mkdtempSync(join(tmpdir(), 'dtask-packages-'));
let failures = 0;
try {
  const results = await packed(work);
  for (const r of results) {
    console.log(
      `${`${r.name}@${r.version}`.padEnd(32)} ${mib(r.unpacked).padStart(10)} unpacked, ${r.files} files  ${basename(r.tarball)}`,
    );
  }
  console.log(`${results.length} tarballs`);
  for (const r of results) {
    const name = basename(r.tarball, '.tgz');
    const data = readFileSync(r.tarball);
    const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    const lint = await publint({ pack: { tarball }, strict: true, level: 'warning' });
    if (lint.messages.length === 0) {
      console.log(`${name}: publint: All good!`);
    } else {
      failures += 1;
      for (const m of lint.messages) {
        console.log(`${name}: publint: ${m.type}: ${formatMessage(m, lint.pkg, { color: false })}`);
      }
      console.log(`publint: ${name} is not fit to publish`);
    }
    const analysis = await attw.checkPackage(
      attw.createPackageFromTarballData(new Uint8Array(data)),
    );
    if (!analysis.types) {
      failures += 1;
      console.log(`attw: ${name} ships no types`);
      continue;
    }
    const problems = analysis.problems.filter(
      (p) => !('resolutionKind' in p) || !ignoredResolutions.includes(p.resolutionKind),
    );
    if (problems.length === 0) {
      console.log(`${name}: types ok (attw, node16 and bundler, ESM and CJS)`);
    } else {
      failures += 1;
      for (const { kind, ...where } of problems) {
        console.log(`${name}: attw: ${kind} ${JSON.stringify(where)}`);
      }
      console.log(`attw: ${name} has type problems`);
    }
  }
} catch (error) {
  failures += 1;
  console.log(`package checks failed: ${error.message}${error.stderr ? `\n${error.stderr}` : ''}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failures > 0 ? 1 : 0);
