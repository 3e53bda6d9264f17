#!/usr/bin/env bash
# What the benchmarks need that npm cannot install: Dask distributed (Debian's
# python3-distributed, 2022.12), the Python peer of bench/threads.mjs.
#   bash scripts/bench-deps.sh
# Installs it with apt-get when no Python here can import it and we are root on a system with
# apt-get. Never fails: when it cannot install, it prints one line saying why, and the benchmark
# shows Dask as "unavailable (...)".
set -uo pipefail

# Debian's package installs into the system Python (/usr/bin/python3), which is not always the
# python3 on PATH (pyenv, a virtual environment): either one will do. bench/threads.mjs looks in
# the same places ($DTASK_BENCH_PYTHON first).
has_distributed() {
  local py
  for py in "${DTASK_BENCH_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 &&
      "$py" -c 'import distributed' >/dev/null 2>&1 && return 0
  done
  return 1
}

if has_distributed; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bench-deps: Dask distributed not installed and there is no apt-get here: install python3-distributed (or pip install 'distributed==2022.12.*') by hand; the benchmark shows Dask as unavailable"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "bench-deps: Dask distributed not installed and not root: run 'sudo apt-get install python3-distributed'; the benchmark shows Dask as unavailable"
  exit 0
fi
echo "bench-deps: installing python3-distributed (Dask distributed) with apt-get"
log=$(mktemp)
if ! { apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-distributed; } >"$log" 2>&1; then
  echo "bench-deps: apt-get could not install python3-distributed ($(grep -E '^(E|Err):' "$log" | head -1 | cut -c1-160)); the benchmark shows Dask as unavailable"
elif ! has_distributed; then
  echo "bench-deps: python3-distributed installed, but no python3 here can import distributed; the benchmark shows Dask as unavailable"
fi
rm -f "$log"
exit 0
