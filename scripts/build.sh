#!/usr/bin/env bash
# The build's parts, each written once here (package.json's scripts, turbo's tasks and the test
# command run them):
# - `js`: the SIMD kernels' generated module, then every package's JavaScript (`dist/*.js`,
#   `*.cjs`): what the tests, the demo and every worker load;
# - `types`: the type check, one tsc over the workspace (sources, tests, bench), which also writes
#   every source file's declarations into `.types/`; a type error fails it, with tsc's output;
# - `declarations`: each library's published declarations (`dist/*.d.ts`, `*.d.cts`), bundled
#   from `.types/` (so after `types`), the JavaScript left in place (so after `js`).
# `bash scripts/setup.sh build` runs all three through turbo (cached); the test command runs `js`,
# then starts the tests with `types` and `declarations` beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
js)
  node packages/array/scripts/build-simd.mjs
  node scripts/build-packages.mjs --part js
  ;;
types)
  node packages/array/scripts/build-simd.mjs
  node_modules/.bin/tsc -p tsconfig.json --noEmit false --emitDeclarationOnly --rootDir . \
    --declarationDir .types --incremental --tsBuildInfoFile .types/tsbuildinfo
  ;;
declarations) node scripts/build-packages.mjs --part types ;;
*)
  echo "build.sh: unknown part '${1:-}' (js, types or declarations)" >&2
  exit 2
  ;;
esac
