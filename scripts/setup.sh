#!/usr/bin/env bash
# Installs the workspace and builds every package. Safe to run again: both steps are incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
bash scripts/pnpm.sh install --frozen-lockfile --prefer-offline
bash scripts/pnpm.sh exec turbo run build --output-logs=errors-only
