#!/usr/bin/env bash
# Installs the workspace and builds every package. Safe to run again: both steps are incremental.
# `bash scripts/setup.sh install` or `bash scripts/setup.sh build` runs one step alone (the test
# command starts the checks that need no build between the two).
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
step=${1:-all}
case "$step" in all | install | build) ;; *)
  echo "setup.sh: unknown step '$step' (install, build, or none for both)" >&2
  exit 2
  ;;
esac
if [ "$step" != build ]; then
  bash scripts/pnpm.sh install --frozen-lockfile --prefer-offline
fi
if [ "$step" != install ]; then
  bash scripts/pnpm.sh exec turbo run dist --output-logs=errors-only
fi
