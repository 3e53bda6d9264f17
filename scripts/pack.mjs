// Packs every public package as it would be published: one tarball per package, made by the
// pinned pnpm in one run (which rewrites `workspace:` ranges to real versions and applies `publishConfig`),
// then checked: no `workspace:` range and no `source` export condition left in its package.json,
// no test file in it, and its unpacked size within its budget. Prints each package's unpacked size.
//
// `npm run pack` runs it after the build and writes into `packed/`; `node scripts/pack.mjs DIR`
// writes into DIR, and last `DIR/packed.json` (what `pack` returned), or `DIR/pack-failed.txt`.
// The test command packs once so, into the folder it names in `DTASK_PACKED`; the package checks
// and the outside-project check read the tarballs from there (`packed`), and pack themselves only
// when run alone.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { declarationsBuilt } from './declarations-built.mjs';

const root = resolve(import.meta.dirname, '..');

/**
 * Unpacked size a package may reach (bytes); one above it fails the pack. Core's was 2 MiB until
 * its code reached it (2.09 MB on 2026-12-06: 1.0 MB of CommonJS bundles, one per entry, 0.55 MB
 * of ES modules in shared chunks, 0.52 MB of declarations); the budget catches a stale or stray
 * file (a leftover chunk from an older build doubles it), not the code's own growth.
 */
const budget = { '@dtask/core': 2.5 * 1024 * 1024 };

/** A file that belongs to the tests, not to the published package. */
const testFile =
  /(^|\/)(__tests__|__fixtures__|fixtures)\/|\.(test|spec|bench)\.[cm]?[jt]sx?(\.map)?$/;

/**
 * The pinned pnpm's executable: `DTASK_PNPM` when the test command resolved it, else what
 * `scripts/pnpm.sh --path` resolves (npx's own start-up costs seconds per call).
 */
export function pinnedPnpm() {
  if (process.env.DTASK_PNPM) return process.env.DTASK_PNPM;
  return execFileSync('bash', [join(root, 'scripts/pnpm.sh'), '--path'], {
    encoding: 'utf8',
  }).trim();
}

/** The folders (under packages/) of every package that is published, in name order. */
export function publicPackages() {
  return readdirSync(join(root, 'packages'))
    .filter((dir) => {
      try {
        const manifest = JSON.parse(
          readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'),
        );
        return manifest.private !== true;
      } catch {
        return false;
      }
    })
    .sort();
}

/** Each file of a tarball with its size in bytes (unpacked into a temporary folder and read). */
function listing(tarball) {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-pack-'));
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    const base = join(dir, 'package');
    return readdirSync(base, { recursive: true })
      .map((path) => ({ path: String(path), stat: statSync(join(base, String(path))) }))
      .filter((f) => f.stat.isFile())
      .map((f) => ({ path: f.path.split(sep).join('/'), size: f.stat.size }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Packs the packages in `dirs` (folders under packages/; every public one when omitted) into
 * `destination`, emptied first. Returns, per package, its name, version, tarball path and
 * unpacked size. Throws, naming the package, when a tarball is not fit to publish.
 */
export function pack(destination, dirs = publicPackages()) {
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  const results = [];
  // One pnpm for them all (`pack --recursive`, the listed packages selected): a pnpm start costs
  // about half a second of CPU. It answers with a list, or with one object for one package.
  const filters = dirs.flatMap((dir) => ['--filter', `./packages/${dir}`]);
  const out = execFileSync(
    pinnedPnpm(),
    ['--recursive', ...filters, 'pack', '--json', '--pack-destination', destination],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const answer = JSON.parse(out.slice(out.search(/^[[{]/m)));
  const tarballs = Array.isArray(answer) ? answer : [answer];
  for (const dir of dirs) {
    const { name: wanted } = JSON.parse(
      readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'),
    );
    const packedOne = tarballs.find((t) => t.name === wanted);
    if (!packedOne) throw new Error(`${wanted}: pnpm pack made no tarball for it`);
    const { name, version, filename } = packedOne;
    const manifest = execFileSync('tar', ['-xOzf', filename, 'package/package.json'], {
      encoding: 'utf8',
    });
    if (manifest.includes('workspace:')) throw new Error(`${name}: a workspace: range was packed`);
    if (manifest.includes('"source"')) throw new Error(`${name}: the source condition was packed`);
    const files = listing(filename);
    const tests = files.filter((f) => testFile.test(f.path)).map((f) => f.path);
    if (tests.length > 0) throw new Error(`${name}: test files were packed: ${tests.join(', ')}`);
    const unpacked = files.reduce((sum, f) => sum + f.size, 0);
    const limit = budget[name];
    if (limit !== undefined && unpacked > limit) {
      // turbo restores a cached build over the folder without emptying it: files of an older
      // build stay beside the new ones.
      throw new Error(
        `${name}: unpacked ${mib(unpacked)}, over its budget of ${mib(limit)} (files left by an ` +
          `older build? rm -rf packages/${dir}/dist, then bash scripts/setup.sh build)`,
      );
    }
    results.push({ name, version, tarball: filename, unpacked, files: files.length });
  }
  return results;
}

/**
 * How long a reader waits for the shared pack once it has begun (ms; the pack makes its folder
 * when it begins, once the declarations are built): it takes 5–30 s; one that has written
 * nothing by then is taken for dead (killed before it could say so), and the reader fails instead
 * of waiting for ever.
 */
const sharedPackDeadline = 10 * 60 * 1000;

/**
 * The packed packages in `dirs` (every public one when omitted), as `pack` returns them: those
 * the test command packed into `DTASK_PACKED` (waiting until that pack has ended, at most
 * `sharedPackDeadline`), else packed now into `destination`. Throws when the shared pack failed,
 * with its reason, or wrote nothing in time.
 */
export async function packed(destination, dirs = publicPackages()) {
  const shared = process.env.DTASK_PACKED;
  if (!shared) return pack(destination, dirs);
  const done = join(shared, 'packed.json');
  const failed = join(shared, 'pack-failed.txt');
  let deadline;
  while (!existsSync(done)) {
    if (existsSync(failed)) {
      throw new Error(`the shared pack failed: ${readFileSync(failed, 'utf8').trim()}`);
    }
    if (deadline === undefined && existsSync(shared)) deadline = Date.now() + sharedPackDeadline;
    if (deadline !== undefined && Date.now() > deadline) {
      throw new Error(
        `the shared pack wrote neither ${done} nor ${failed} in ${sharedPackDeadline / 1000} s ` +
          '(its process ended without a word?): run node scripts/pack.mjs to see why',
      );
    }
    await sleep(200);
  }
  const all = JSON.parse(readFileSync(done, 'utf8'));
  const names = dirs.map(
    (dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')).name,
  );
  return names.map((name) => {
    const found = all.find((r) => r.name === name);
    if (!found) throw new Error(`${name} is not in the shared pack (${done})`);
    return found;
  });
}

/** Bytes as MiB with two decimals. */
export function mib(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const destination = resolve(process.argv[2] ?? join(root, 'packed'));
  try {
    // Under the test command, after the declarations it builds beside the tests.
    await declarationsBuilt();
    const results = pack(destination);
    for (const r of results) {
      const size = mib(r.unpacked).padStart(10);
      console.log(
        `${`${r.name}@${r.version}`.padEnd(32)} ${size} unpacked, ${r.files} files  ${basename(r.tarball)}`,
      );
    }
    console.log(`${results.length} tarballs in ${destination}`);
    // Written last: a reader that sees it sees every tarball.
    writeFileSync(join(destination, 'packed.json.tmp'), JSON.stringify(results, null, 2));
    renameSync(join(destination, 'packed.json.tmp'), join(destination, 'packed.json'));
  } catch (error) {
    const why = `${error.message}${error.stderr ? `\n${error.stderr}` : ''}`;
    console.error(`pack failed: ${why}`);
    mkdirSync(destination, { recursive: true });
    writeFileSync(join(destination, 'pack-failed.txt'), why);
    process.exit(1);
  }
}
