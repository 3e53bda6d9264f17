#!/usr/bin/env bash
# The README's test command: installs what it needs, builds, type-checks, lints, tests.
# The checks do not depend on each other nor on the tests: they run side by side with each other
# and with the tests (their waiting on npm, apt-get and child processes, and the tests' waiting on
# timers, workers and processes, fill each other's idle time). Those that need no build (lint; the
# layout checks; the test programs; the no-native-compile check) start right after the install,
# beside the build. The tests need only the packages' JavaScript (`scripts/build.sh js`,
# seconds), so they start after it; the type check (one tsgo over the workspace, which also
# writes every source's declarations) and the packages' declarations bundled from it run beside
# the tests (`scripts/build.sh check`, then `declarations`), and a type error fails the command
# with the checker's output. Every public package is
# packed once, after the declarations, and the checks that read tarballs take them from that one
# pack (DTASK_PACKED); the one test that reads the built declarations waits for them
# (DTASK_TYPES_DONE). Only the test programs (apt-get) are awaited before the tests start, since
# tests use them. Each check's output is printed whole under its header, in the order listed,
# once the tests have ended; a failing check or test fails the command after all of them have
# ended (a failed JavaScript build fails at once: no tests run then). The headers say how long
# each step took (and when the tests started and ended), so a slow run shows where its time went.
# The checks run at a lower priority (`nice -n 5`) than the build and the tests: on 2 cores they
# take the time the build and the tests leave idle (the tests' waits on processes, sockets and
# timers; vitest.config.ts hands out the waiting files first, while the checks run) instead of
# slowing the tests, which are the longest step. The type check and the declarations run at the
# tests' priority: the pack and the checks after it (the release rehearsal, the longest) wait
# for them.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned pnpm, resolved once for every pnpm call below (scripts/pnpm.sh).
DTASK_PNPM=$(bash scripts/pnpm.sh --path)
export DTASK_PNPM
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# measured NAME COMMAND...: runs COMMAND in a subshell, which then writes the CPU time its
# children took (COMMAND and everything it started and waited for, user + system, as bash's
# `times` counts it) into "$logs/NAME.times"; `cpu NAME` prints that in seconds. A subshell of
# its own, so that the checks running beside it, which this shell reaps when they end, are not
# counted in it.
measured() {
  local name=$1
  shift
  (
    status=0
    "$@" || status=$?
    times >"$logs/$name.times"
    exit "$status"
  )
}
cpu() {
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$logs/$1.times" 2>/dev/null || echo '?'
}
measured install bash scripts/setup.sh install
echo "== install took ${SECONDS} s (CPU $(cpu install) s)"
titles=()
pids=()
# check 'title' command...: starts a check in the background, its output kept for later, at
# niceness "$niceness" (5 unless set for the call).
niceness=5
check() {
  local n=${#titles[@]}
  titles+=("$1")
  shift
  # Its time (seconds) goes into "$logs/$n.took"; its exit status is the check's own.
  (
    start=$SECONDS
    status=0
    nice -n "$niceness" "$@" >"$logs/$n" 2>&1 || status=$?
    times >"$logs/$n.times"
    echo "$((SECONDS - start)) s, CPU $(cpu "$n") s" >"$logs/$n.took"
    exit "$status"
  ) &
  pids+=($!)
}
# Started beside the build: they read sources and node_modules only. The workspace's tools run
# from node_modules/.bin, not through `pnpm exec` (a pnpm start is about 0.7 s of CPU).
check 'test programs (Debian chromium for the browser tests; apt-get, never fails, says why)' \
  bash scripts/test-deps.sh
check 'lint and format (biome ci)' node_modules/.bin/biome ci --colors=off .
check 'docs/architecture.md names every source folder' node scripts/check-architecture.mjs
check 'core folders import one way (scripts/check-import-order.mjs)' \
  node scripts/check-import-order.mjs
check 'package fields (publishing shape, LICENSE and README per package)' \
  node scripts/package-fields.mjs
check 'no native compile in set-up (prebuilt binaries only; native extras optional)' \
  node scripts/check-native.mjs
build_start=$SECONDS
build_status=0
measured build bash scripts/build.sh js || build_status=$?
echo "== JavaScript build (scripts/build.sh js) took $((SECONDS - build_start)) s (CPU $(cpu build) s; beside the checks above)"
echo "== set-up (install and JavaScript build) took ${SECONDS} s"
deps_status=0
tests_status=0
if [ "$build_status" -eq 0 ]; then
  # The type check, then the declarations, beside the tests; their exit status goes into
  # DTASK_TYPES_DONE when they end, for what reads the declarations: the pack, the release
  # rehearsal and the one test that type-checks a program against core's built declarations.
  DTASK_TYPES_DONE="$logs/types-done"
  export DTASK_TYPES_DONE
  niceness=0 check 'type check and declarations (scripts/build.sh check, then declarations)' \
    bash -c 'status=0; bash scripts/build.sh check && bash scripts/build.sh declarations || status=$?
      echo "$status" >"$DTASK_TYPES_DONE.tmp" && mv "$DTASK_TYPES_DONE.tmp" "$DTASK_TYPES_DONE"
      exit "$status"'
  # Every public package packed once, for the checks that read tarballs, once the declarations
  # are built (scripts/declarations-built.mjs: it and the release rehearsal wait for them). A pack
  # that dies without saying so still tells its readers (scripts/pack.mjs `packed`) to stop
  # waiting.
  DTASK_TYPES_PID=${pids[-1]}
  DTASK_PACKED="$logs/packed"
  export DTASK_TYPES_PID DTASK_PACKED
  check 'packed once for the checks (scripts/pack.mjs: no test files, size budget)' \
    bash -c 'node scripts/pack.mjs "$DTASK_PACKED" || { status=$?; mkdir -p "$DTASK_PACKED"
      [ -e "$DTASK_PACKED/pack-failed.txt" ] || echo "pack.mjs exited $status" >"$DTASK_PACKED/pack-failed.txt"
      exit "$status"; }'
  check 'packages as published (publint --strict, @arethetypeswrong/cli)' \
    node scripts/check-packages.mjs
  check 'README examples run with plain node, as written (scripts/check-readme-examples.mjs)' \
    node scripts/check-readme-examples.mjs
  # One npm install for the release rehearsal and the outside-project checks (the user's side).
  check 'release rehearsal and outside project (changesets publish to a local Verdaccio; one npm install from it, no compiler: ESM, CJS, tsc --strict, README examples, GPU fallbacks)' \
    node scripts/check-release.mjs
  # The tests use what the test programs check installs (chromium, headless-gl): wait for it alone.
  wait "${pids[0]}" || deps_status=$?
  echo "== tests (vitest) from ${SECONDS} s, while the other checks run (their output follows the tests)"
  tests_start=$SECONDS
  # What failed, and what passed only on a second try, written when the run ends
  # (vitest.summary-reporter.ts) and printed last.
  DTASK_TEST_SUMMARY="$logs/test-summary"
  export DTASK_TEST_SUMMARY
  measured tests node_modules/.bin/vitest run "$@" || tests_status=$?
  echo "== tests (vitest) took $((SECONDS - tests_start)) s (CPU $(cpu tests) s), ended at ${SECONDS} s"
else
  # No build, so no tests nor the checks that need it; the checks already started still report.
  wait "${pids[0]}" || deps_status=$?
fi
failed=()
for n in "${!titles[@]}"; do
  status=0
  if [ "$n" -eq 0 ]; then status=$deps_status; else wait "${pids[$n]}" || status=$?; fi
  echo "== ${titles[$n]} ($(cat "$logs/$n.took" 2>/dev/null || echo '? s'))"
  cat "$logs/$n"
  if [ "$status" -ne 0 ]; then
    echo "!! failed (exit $status): ${titles[$n]}"
    failed+=("${titles[$n]}")
  fi
done
if [ "$build_status" -ne 0 ]; then
  echo "!! failed (exit $build_status): JavaScript build (scripts/build.sh js: every package's tsup, JavaScript only); the tests and the checks after it did not run"
  failed+=('JavaScript build')
fi
if [ "$tests_status" -ne 0 ]; then
  echo "!! failed (exit $tests_status): tests (vitest)"
  failed+=('tests (vitest)')
fi
times >"$logs/all.times"
# The tests' summary last, where the end of a long log shows it.
if [ -s "$logs/test-summary" ]; then
  echo "== tests: what failed or needed a second try (vitest.summary-reporter.ts)"
  cat "$logs/test-summary"
elif [ "$tests_status" -ne 0 ]; then
  echo "== tests: vitest exited $tests_status without naming a failed test; its own output is above"
fi
echo "== the test command took ${SECONDS} s (CPU $(cpu all) s: its steps and checks together)"
if [ "${#failed[@]}" -gt 0 ]; then
  printf '!! %s step(s) failed:\n' "${#failed[@]}"
  printf '   %s\n' "${failed[@]}"
  exit 1
fi
