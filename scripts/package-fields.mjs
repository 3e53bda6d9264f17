// Keeps every package's publishing fields in one shape, so what `pnpm pack` writes is ready to
// publish: the `exports` users get (no `source` condition: `src/` is not shipped; the
// workspace keeps it for tests and type-checking), `repository` with the package's folder,
// `license` and a LICENSE file beside it, `engines`, `files`. `node scripts/package-fields.mjs`
// checks (the test command runs it); `--write` fixes.
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const write = process.argv.includes('--write');
const REPOSITORY = 'git+https://github.com/dtask/dtask.git';
const license = readFileSync(join(root, 'LICENSE'), 'utf8');
const problems = [];

/** `exports` without the workspace-only `source` condition. */
function published(exports) {
  const out = {};
  for (const [sub, target] of Object.entries(exports)) {
    if (typeof target === 'object' && target !== null) {
      const { source, ...rest } = target;
      out[sub] = rest;
    } else out[sub] = target;
  }
  return out;
}

for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  const pkg = JSON.parse(text);
  const want = {
    license: 'MIT',
    repository: { type: 'git', url: REPOSITORY, directory: `packages/${dir}` },
    engines: { node: '>=20' },
    files: pkg.bin ? ['dist', 'bin'] : ['dist'],
    publishConfig: { access: 'public', exports: published(pkg.exports ?? {}) },
  };
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(pkg[key]) !== JSON.stringify(value)) {
      problems.push(`packages/${dir}/package.json: ${key} should be ${JSON.stringify(value)}`);
      pkg[key] = value;
    }
  }
  if (pkg.name !== '@dtask/core' && pkg.peerDependencies?.['@dtask/core'] === undefined) {
    problems.push(`packages/${dir}/package.json: a plugin peer-depends on @dtask/core`);
  }
  const licenseFile = join(root, 'packages', dir, 'LICENSE');
  if (!existsSync(licenseFile) || readFileSync(licenseFile, 'utf8') !== license) {
    problems.push(`packages/${dir}/LICENSE: missing or not the root LICENSE`);
    if (write) copyFileSync(join(root, 'LICENSE'), licenseFile);
  }
  if (!existsSync(join(root, 'packages', dir, 'README.md'))) {
    problems.push(`packages/${dir}/README.md: missing (install, example, options, errors)`);
  }
  const fixed = `${JSON.stringify(pkg, null, 2)}\n`;
  if (write && fixed !== text) writeFileSync(file, fixed);
}

if (problems.length > 0 && !write) {
  console.error(
    `package fields:\n  ${problems.join('\n  ')}\nrun: node scripts/package-fields.mjs --write`,
  );
  process.exit(1);
}
console.log(write ? `package fields written (${problems.length} fixes)` : 'package fields ok');
