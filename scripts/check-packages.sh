#!/usr/bin/env bash
# Every package as it would be published: publint (--strict) on what `pnpm pack` ships, and
# @arethetypeswrong/cli on the tarball scripts/pack.mjs packs (types resolve for ESM and CJS under node16 and
# bundlers; node10 resolution is not supported, by design: Node 20+ only). Run by the test
# command after the build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# publint packs with the package manager it finds: give it the pinned pnpm.
shim=$(mktemp -d)
printf '#!/bin/sh\nexec bash %s/scripts/pnpm.sh "$@"\n' "$root" > "$shim/pnpm"
chmod +x "$shim/pnpm"
packed=$(mktemp -d)
trap 'rm -rf "$shim" "$packed"' EXIT
for dir in packages/*/; do
  name=$(node -p "require('./${dir}package.json').name")
  (cd "$dir" && PATH="$shim:$PATH" "$root/node_modules/.bin/publint" --strict --level warning) \
    | grep -v '^Running\|^Packing\|^Linting' | sed "s|^|$name: |"
done
# The tarballs as `npm run pack` makes them (and its checks: no test files, core's size budget).
node scripts/pack.mjs "$packed"
for tarball in "$packed"/*.tgz; do
  "$root/node_modules/.bin/attw" "$tarball" --profile node16 --format ascii > "$packed/attw.txt" \
    || { cat "$packed/attw.txt"; echo "attw: $(basename "$tarball") has type problems"; exit 1; }
  echo "$(basename "$tarball" .tgz): types ok (attw, node16 and bundler, ESM and CJS)"
done
