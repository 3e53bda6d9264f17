#!/usr/bin/env bash
# The README's benchmark command: installs and builds (scripts/setup.sh), then runs the
# benchmarks against the built packages. Arguments go to bench/in-process.mjs
# (--quick, --rounds=N, --check). Results: bench/results/*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node bench/in-process.mjs "$@"
