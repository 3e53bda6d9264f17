#!/usr/bin/env bash
# The README's benchmark command: installs and builds (scripts/setup.sh), then runs the
# benchmarks against the built packages: bench/in-process.mjs (scheduler overhead in one
# thread), bench/threads.mjs (@dtask/threads against Piscina, tinypool, raw workers),
# bench/datadeps.mjs (tiled Cholesky and tree reduction against serial code) and bench/lmdb.mjs
# (spill/unspill against raw lmdb, a 4x-memory working set against unlimited memory) and
# bench/dask.mjs (@dtask/threads against Dask distributed, the same workloads), bench/cluster.mjs
# (@dtask/cluster against Dask distributed), bench/cluster-codec.mjs (v8 against msgpackr framing),
# bench/cluster-move.mjs (64 MiB between worker processes against a raw socket copy),
# bench/sim-cluster.mjs (one scheduler and 8 … 1,024 simulated members: tasks/s, memory, links)
# and bench/lineage.mjs (heap of a 1,000,000-task pipeline with a thread killed near its end;
# --quick: 100,000 tasks; it takes no --rounds or --check).
# bench/array.mjs, bench/kernels.mjs (the array kernels on one thread by CPU time, numpy on one
# thread beside), bench/stencil.mjs, bench/stencil-simd.mjs (a stencil block's SIMD sweep against
# its loop by CPU time), bench/streaming.mjs (streaming tasks against stream.pipeline
# and raw worker_threads), bench/viz.mjs, bench/gpu.mjs and bench/gpujs.mjs follow; at the end bench/write-benchmarks-md.mjs
# collects bench/results/*.json into BENCHMARKS.md.
# Arguments go to all (--quick, --rounds=N, --check). Results: bench/results/*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/bench-deps.sh # Dask for bench/dask.mjs (apt-get; never fails, says why)
status=0
node bench/in-process.mjs "$@" || status=$?
node bench/threads.mjs "$@" || status=$?
node bench/datadeps.mjs "$@" || status=$?
node bench/lmdb.mjs "$@" || status=$?
node bench/dask.mjs "$@" || status=$?
node bench/cluster.mjs "$@" || status=$?
node bench/cluster-codec.mjs "$@" || status=$?
node bench/cluster-move.mjs "$@" || status=$?
node bench/sim-cluster.mjs "$@" || status=$?
node bench/array.mjs "$@" || status=$?
node bench/kernels.mjs "$@" || status=$?
node bench/stencil.mjs "$@" || status=$?
node bench/stencil-simd.mjs "$@" || status=$?
node bench/streaming.mjs "$@" || status=$?
if [[ " $* " == *" --quick "* ]]; then node bench/viz.mjs --tasks=10000 || status=$?; else node bench/viz.mjs || status=$?; fi
# webgl (gpu.mjs) and gpu.js's headlessgl mode (gpujs.mjs) need an X server: under xvfb-run where it is installed.
if command -v xvfb-run >/dev/null 2>&1; then xvfb-run -a node bench/gpu.mjs "$@" || status=$?; else node bench/gpu.mjs "$@" || status=$?; fi
if command -v xvfb-run >/dev/null 2>&1; then xvfb-run -a node bench/gpujs.mjs "$@" || status=$?; else node bench/gpujs.mjs "$@" || status=$?; fi
if [[ " $* " == *" --quick "* ]]; then node bench/lineage.mjs --quick || status=$?; else node bench/lineage.mjs || status=$?; fi
node bench/write-benchmarks-md.mjs && bash scripts/pnpm.sh exec biome format --write BENCHMARKS.md >/dev/null || status=$?
exit "$status"
