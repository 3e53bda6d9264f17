#!/usr/bin/env bash
# The README's test command: installs what it needs, builds, type-checks, lints, tests.
# The checks after the build do not depend on each other: they run side by side (their
# waiting on npm, apt-get and child processes overlaps), and each one's output is printed
# whole under its header, in the order listed, once it has ended. Any failing check fails the
# command, after all of them have ended, before the tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned pnpm, resolved once for every pnpm call below (scripts/pnpm.sh).
DTASK_PNPM=$(bash scripts/pnpm.sh --path)
export DTASK_PNPM
bash scripts/setup.sh
echo '== no native compile in set-up (prebuilt binaries only; native extras optional)'
node scripts/check-native.mjs

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
titles=()
pids=()
# check 'title' command...: starts a check in the background, its output kept for later.
check() {
  local n=${#titles[@]}
  titles+=("$1")
  shift
  "$@" >"$logs/$n" 2>&1 &
  pids+=($!)
}
check 'test programs (Debian chromium for the browser tests; apt-get, never fails, says why)' \
  bash scripts/test-deps.sh
check 'type check (tsc --noEmit over the workspace)' \
  bash scripts/pnpm.sh exec tsc -p tsconfig.json --noEmit
check 'lint and format (biome ci)' bash scripts/pnpm.sh exec biome ci .
check 'docs/architecture.md names every source folder' node scripts/check-architecture.mjs
check 'core folders import one way (scripts/check-import-order.mjs)' \
  node scripts/check-import-order.mjs
check 'package fields (publishing shape, LICENSE and README per package)' \
  node scripts/package-fields.mjs
check 'packages as published (publint --strict, @arethetypeswrong/cli)' \
  bash scripts/check-packages.sh
check 'outside project (packed core + threads installed with npm: ESM, CJS, tsc --strict)' \
  node scripts/check-outside.mjs
check 'README examples run with plain node, as written (scripts/check-readme-examples.mjs)' \
  node scripts/check-readme-examples.mjs
check 'release rehearsal (changesets publish to a local Verdaccio; npm install from it: ESM, CJS, tsc)' \
  node scripts/check-release.mjs
failed=()
for n in "${!titles[@]}"; do
  status=0
  wait "${pids[$n]}" || status=$?
  echo "== ${titles[$n]}"
  cat "$logs/$n"
  if [ "$status" -ne 0 ]; then
    echo "!! failed (exit $status): ${titles[$n]}"
    failed+=("${titles[$n]}")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  printf '!! %s check(s) failed:\n' "${#failed[@]}"
  printf '   %s\n' "${failed[@]}"
  exit 1
fi

echo '== tests (vitest)'
bash scripts/pnpm.sh exec vitest run "$@"
