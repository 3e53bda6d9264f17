#!/usr/bin/env bash
# The README's demo command: installs what it needs, builds, runs apps/demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node apps/demo/dist/main.js "$@"
