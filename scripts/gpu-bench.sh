#!/usr/bin/env bash
# Runs bench/gpu.mjs on a real NVIDIA GPU through @tensorflow/tfjs-node-gpu (issue 16), then
# bench/gpujs.mjs (gpu.js) in the modes that can reach that GPU.
#   bash scripts/gpu-bench.sh [bench flags, e.g. --rounds=5]
# Needs: an NVIDIA GPU with its driver (nvidia-smi), the CUDA 11.2 + cuDNN 8.1 libraries that
# tfjs-node-gpu 4.22 links against, network access the first time (its install script downloads
# libtensorflow), and a build of this repository (bash scripts/setup.sh).
# tfjs-node-gpu is installed outside the workspace (TFJS_NODE_GPU_DIR, default
# ~/.cache/dtask-tfjs-node-gpu) and linked into packages/gpu-tfjs/node_modules for the run only,
# so the lockfile and package.json stay as they are.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-bench: no NVIDIA GPU here (nvidia-smi missing or failing); nothing to measure." >&2
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

VERSION=4.22.0
DIR="${TFJS_NODE_GPU_DIR:-$HOME/.cache/dtask-tfjs-node-gpu}"
if [ ! -d "$DIR/node_modules/@tensorflow/tfjs-node-gpu" ]; then
  echo "gpu-bench: installing @tensorflow/tfjs-node-gpu@$VERSION into $DIR"
  mkdir -p "$DIR"
  npm install --prefix "$DIR" --no-audit --no-fund "@tensorflow/tfjs-node-gpu@$VERSION"
fi

LINK=packages/gpu-tfjs/node_modules/@tensorflow/tfjs-node-gpu
mkdir -p "$(dirname "$LINK")"
if [ -e "$LINK" ] && [ ! -L "$LINK" ]; then
  echo "gpu-bench: $LINK exists and is not a link; remove it or run with it as it is" >&2
else
  ln -sfn "$DIR/node_modules/@tensorflow/tfjs-node-gpu" "$LINK"
  trap 'rm -f "$LINK"' EXIT
fi

# The backend must load and be a GPU, else the figures would be a fallback's.
(cd bench && node --input-type=module -e "
  const { selectBackend } = await import('@dtask/gpu-tfjs');
  const c = await selectBackend('tensorflow');
  if (!c.gpu) { console.error('gpu-bench: tensorflow loaded from ' + c.module + ', not a GPU'); process.exit(1); }
  console.log('gpu-bench: tensorflow backend from ' + c.module + ' (GPU)');
") || { echo "gpu-bench: tfjs-node-gpu does not load (CUDA/cuDNN libraries?)" >&2; exit 1; }

GPU_BENCH_BACKENDS=tensorflow,wasm node bench/gpu.mjs --check "$@"

# @dtask/gpujs on the same machine: headlessgl needs an X server driven by the NVIDIA GL driver
# (Xvfb is software rendering: llvmpipe); webgpu needs the `webgpu` (Dawn) package gpu.js bundles
# to load. The bench prints the device each mode ran on and whether it is a GPU.
if [ -n "${DISPLAY:-}" ]; then
  GPUJS_BENCH_MODES=headlessgl,webgpu node bench/gpujs.mjs --check "$@" ||
    echo "gpu-bench: bench/gpujs.mjs failed" >&2
else
  echo "gpu-bench: no DISPLAY: gpu.js headlessgl not measured on the GPU (start X on the NVIDIA driver)"
  GPUJS_BENCH_MODES=webgpu node bench/gpujs.mjs --check "$@" || echo "gpu-bench: bench/gpujs.mjs failed" >&2
fi
