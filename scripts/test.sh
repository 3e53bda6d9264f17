#!/usr/bin/env bash
# The README's test command: installs what it needs, builds, type-checks, lints, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo '== no native compile in set-up (prebuilt binaries only; native extras optional)'
node scripts/check-native.mjs
bash scripts/test-deps.sh # Debian's chromium for the browser tests (apt-get; never fails, says why)
echo '== type check (tsc --noEmit over the workspace)'
bash scripts/pnpm.sh exec tsc -p tsconfig.json --noEmit
echo '== lint and format (biome ci)'
bash scripts/pnpm.sh exec biome ci .
echo '== docs/architecture.md names every source folder'
node scripts/check-architecture.mjs
echo '== core folders import one way (scripts/check-import-order.mjs)'
node scripts/check-import-order.mjs
echo '== package fields (publishing shape, LICENSE and README per package)'
node scripts/package-fields.mjs
echo '== packages as published (publint --strict, @arethetypeswrong/cli)'
bash scripts/check-packages.sh
echo '== outside project (packed core + threads installed with npm: ESM, CJS, tsc --strict)'
node scripts/check-outside.mjs
echo '== tests (vitest)'
bash scripts/pnpm.sh exec vitest run "$@"
