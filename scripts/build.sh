#!/usr/bin/env bash
# The build's parts, each written once here (package.json's scripts, turbo's tasks and the test
# command run them):
# - `js`: the SIMD kernels' generated module, then every package's JavaScript (`dist/*.js`,
#   `*.cjs`): what the tests, the demo and every worker load;
# - `types`: the SIMD kernels' generated module (the type check reads it), then the type check,
#   one tsgo over the workspace (sources, tests, bench; a type error fails it, with its output),
#   which also writes every source file's declarations into `.types/`; `check` is the same
#   after `js` has generated the module (it is not generated again);
# - `declarations`: each library's published declarations (`dist/*.d.ts`, `*.d.cts`), bundled
#   from `.types/` (so after `types`), the JavaScript left in place (so after `js`).
# `bash scripts/setup.sh build` runs `js`, `types` and `declarations` through turbo (cached); the
# test command runs `js`, then starts the tests with `check` and `declarations` beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
js)
  node packages/array/scripts/build-simd.mjs
  node scripts/build-packages.mjs --part js
  ;;
types | check)
  # `check`: the same tsgo without generating the SIMD module first, for a caller that has just
  # built the JavaScript, which generated it (the test command; about 0.35 s of CPU less).
  [ "$1" = check ] || node packages/array/scripts/build-simd.mjs
  # The type check and the declarations in one run of TypeScript's native compiler (tsgo: the
  # same checks as tsc, about a quarter of its CPU; it writes the declarations from the program
  # it has just checked, where tsc parsing and binding it all again cost more than the check).
  # Its declarations differ from tsc 5.9's only in spelling: a literal type's quotes, a union's
  # order, `unknown | undefined` written `unknown`. A type error fails it, with its output.
  # `check` runs beside the tests, whose processes fill the cores: there it checks on one thread
  # (`--singleThreaded`: the same diagnostics and files for about 2 s less CPU than its four
  # checkers, which each work out the types their files share).
  threads=()
  [ "$1" = check ] && threads=(--singleThreaded)
  node_modules/.bin/tsgo -p tsconfig.json --noEmit false --emitDeclarationOnly --rootDir . \
    --declarationDir .types --incremental --tsBuildInfoFile .types/tsbuildinfo "${threads[@]}"
  ;;
declarations) node scripts/build-packages.mjs --part types ;;
*)
  echo "build.sh: unknown part '${1:-}' (js, types, check or declarations)" >&2
  exit 2
  ;;
esac
