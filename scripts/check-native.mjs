// The no-compiler check: set-up must never compile native code, so the README's two commands
// work on a machine with only Node and npm. pnpm runs the install scripts of the packages named
// in `onlyBuiltDependencies` and of no other dependency, so it is enough to know, for every
// installed package that can build native code (a binding.gyp, or an install script calling a
// native build tool):
// - if set-up builds it (`onlyBuiltDependencies`), a prebuilt binary for this platform must be
//   installed beside it (its `prebuilds/<platform>-<arch>`, or an installed optional package
//   named for the platform) and nothing may have been compiled (no `build/Release`);
// - otherwise it must be named in `ignoredBuiltDependencies` (a decision, not an accident: its
//   code must cope without the binary), and no published package may need it: it must not be
//   reached from any package's `dependencies` or required peers except through optional edges.
// The test command runs it after set-up; `node scripts/check-native.mjs`.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');
const store = join(root, 'node_modules/.pnpm');
const workspace = parse(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8'));
const lock = parse(readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8'));
const built = new Set(workspace.onlyBuiltDependencies ?? []);
const ignored = new Set(workspace.ignoredBuiltDependencies ?? []);
const platform = `${process.platform}-${process.arch}`;
const NATIVE_TOOL = /node-gyp|prebuild-install|cmake-js|node-pre-gyp|napi-build/;
const problems = [];

/** Every installed package directory in pnpm's store layout, with its manifest. */
function* installed() {
  for (const entry of readdirSync(store)) {
    const modules = join(store, entry, 'node_modules');
    if (!existsSync(modules)) continue;
    for (const name of readdirSync(modules)) {
      const dirs = name.startsWith('@')
        ? readdirSync(join(modules, name)).map((n) => join(modules, name, n))
        : [join(modules, name)];
      for (const dir of dirs) {
        const file = join(dir, 'package.json');
        if (existsSync(file)) {
          yield { dir: realpathSync(dir), manifest: JSON.parse(readFileSync(file, 'utf8')) };
        }
      }
    }
  }
}

/** Whether installing the package can compile native code. */
function buildsNative({ dir, manifest }) {
  const scripts = manifest.scripts ?? {};
  const lifecycle = [scripts.preinstall, scripts.install, scripts.postinstall].join(' ');
  return existsSync(join(dir, 'binding.gyp')) || NATIVE_TOOL.test(lifecycle);
}

/** Whether a binary for this platform came with the package, so nothing need be compiled. */
function hasPrebuilt({ dir, manifest }) {
  if (existsSync(join(dir, 'prebuilds', platform))) return true;
  const modules = dir.slice(0, dir.lastIndexOf('node_modules') + 'node_modules'.length);
  return Object.keys(manifest.optionalDependencies ?? {}).some(
    (name) => name.endsWith(platform) && existsSync(join(modules, name, 'package.json')),
  );
}

const native = new Map();
for (const pkg of installed()) {
  if (buildsNative(pkg)) native.set(pkg.manifest.name, pkg);
}

for (const [name, pkg] of native) {
  if (built.has(name)) {
    if (!hasPrebuilt(pkg)) {
      problems.push(
        `${name} is in onlyBuiltDependencies but has no prebuilt binary for ${platform}: set-up would compile it`,
      );
    }
    if (existsSync(join(pkg.dir, 'build', 'Release'))) {
      problems.push(
        `${name} was compiled during set-up (${join(pkg.dir, 'build/Release')} exists)`,
      );
    }
  } else if (!ignored.has(name)) {
    problems.push(
      `${name} can build native code but is in neither onlyBuiltDependencies (with a prebuilt binary) nor ignoredBuiltDependencies`,
    );
  }
}

// What a user's plain `npm install` of a published package pulls in without optional edges.
/** The lockfile snapshot keys whose package is `name`. */
const snapshotsOf = (name) =>
  Object.keys(lock.snapshots ?? {}).filter(
    (key) => key.replace(/\(.*$/, '').replace(/@[^@]*$/, '') === name,
  );
const required = new Map(); // package name -> the published package that needs it
for (const dir of readdirSync(join(root, 'packages'))) {
  const file = join(root, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  const optionalPeers = manifest.peerDependenciesMeta ?? {};
  const direct = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}).filter((n) => !optionalPeers[n]?.optional),
  ].filter((n) => !n.startsWith('@dtask/'));
  const queue = direct.flatMap(snapshotsOf);
  const seen = new Set(queue);
  for (const n of direct) required.set(n, manifest.name);
  while (queue.length > 0) {
    const snapshot = lock.snapshots[queue.pop()] ?? {};
    for (const [dep, version] of Object.entries(snapshot.dependencies ?? {})) {
      required.set(dep, required.get(dep) ?? manifest.name);
      const key = `${dep}@${version}`;
      if (!seen.has(key)) {
        seen.add(key);
        queue.push(key);
      }
    }
  }
}
for (const [name, pkg] of native) {
  if (!built.has(name) && required.has(name)) {
    problems.push(
      `${name} must compile native code, yet ${required.get(name)} needs it without an optional edge`,
    );
  }
  if (built.has(name) && !hasPrebuilt(pkg) && required.has(name)) {
    problems.push(
      `${name} (needed by ${required.get(name)}) has no prebuilt binary for ${platform}`,
    );
  }
}

if (problems.length > 0) {
  console.error(`native-build check failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
const names = (filter) => [...native.keys()].filter(filter).sort().join(', ') || 'none';
console.log(
  `no native compile in set-up: prebuilt for ${platform}: ${names((n) => built.has(n))}; never built by set-up (optional): ${names((n) => !built.has(n))}`,
);
