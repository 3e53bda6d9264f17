#!/usr/bin/env bash
# Every package as it would be published: the tarballs `npm run pack` makes (scripts/pack.mjs, with
# its own checks: no test files, core's size budget), each one linted by publint (--strict) and
# checked by @arethetypeswrong/cli (types resolve for ESM and CJS under node16 and bundlers;
# node10 resolution is not supported, by design: Node 20+ only). Both read the tarball itself, so
# every package is packed once. Run by the test command after the build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
packed=$(mktemp -d)
trap 'rm -rf "$packed"' EXIT
node scripts/pack.mjs "$packed"
for tarball in "$packed"/*.tgz; do
  name=$(basename "$tarball" .tgz)
  "$root/node_modules/.bin/publint" run "$tarball" --strict --level warning > "$packed/publint.txt" \
    || { cat "$packed/publint.txt"; echo "publint: $name is not fit to publish"; exit 1; }
  grep -v '^Running\|^Unpacking\|^Linting' "$packed/publint.txt" | sed "s|^|$name: publint: |"
  "$root/node_modules/.bin/attw" "$tarball" --profile node16 --format ascii > "$packed/attw.txt" \
    || { cat "$packed/attw.txt"; echo "attw: $name has type problems"; exit 1; }
  echo "$name: types ok (attw, node16 and bundler, ESM and CJS)"
done
