#!/usr/bin/env bash
# What the tests need that npm cannot install: Debian's chromium, which @dtask/viz's browser tests
# drive through playwright-core (a test tool's own browser download cannot work offline), and the
# programs @dtask/cluster's launcher tests start for real: openssh-server and -client (sshd on a
# loopback port), slurm-wlm and munge (a one-node Slurm cluster), iproute2 (network namespaces),
# and @dtask/gpujs's headlessgl needs: X/GL headers to build headless-gl, xvfb, mesa-utils.
#   bash scripts/test-deps.sh
# Installs it with apt-get when /usr/bin/chromium (or $DTASK_CHROMIUM) is missing and we are root on
# a system with apt-get. Never fails: when it cannot install, it prints one line saying why, and
# the browser tests print the same reason and skip.
set -uo pipefail

# Cluster launcher programs: installed when missing, never failing (their tests skip, saying why).
cluster_missing=()
for pair in /usr/sbin/sshd:openssh-server /usr/bin/ssh:openssh-client /usr/bin/srun:slurm-wlm \
  /usr/sbin/slurmd:slurmd /usr/sbin/munged:munge /usr/sbin/ip:iproute2 /usr/bin/ssh-keygen:openssh-client; do
  [ -x "${pair%%:*}" ] || cluster_missing+=("${pair##*:}")
done
if [ "${#cluster_missing[@]}" -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  echo "test-deps: installing ${cluster_missing[*]} with apt-get (for @dtask/cluster's launcher tests)"
  log=$(mktemp)
  if ! { apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${cluster_missing[@]}"; } >"$log" 2>&1; then
    echo "test-deps: apt-get could not install ${cluster_missing[*]} ($(grep -E '^(E|Err):' "$log" | head -1 | cut -c1-160)); those launcher tests skip"
  fi
  rm -f "$log"
elif [ "${#cluster_missing[@]}" -gt 0 ]; then
  echo "test-deps: ${cluster_missing[*]} missing and no apt-get as root here; those launcher tests skip"
fi

# @dtask/gpujs's headlessgl mode: gpu.js's optional `gl` (headless-gl) builds from source only
# with Debian's X and GL headers (libxi-dev libglu1-mesa-dev libglew-dev pkg-config) and
# npm_config_nodedir=/usr; it runs under an X server (xvfb); glxinfo (mesa-utils) names the GL
# renderer ANGLE hides. Set-up never builds gl (pnpm-workspace.yaml ignores its build script), so
# it is built here, once, with its own node-gyp (2.5-4.5 min). Never failing: the headlessgl
# tests print why and skip.
gl_missing=()
for pair in /usr/include/X11/extensions/XInput2.h:libxi-dev /usr/include/GL/glu.h:libglu1-mesa-dev \
  /usr/include/GL/glew.h:libglew-dev /usr/bin/pkg-config:pkg-config /usr/bin/Xvfb:xvfb \
  /usr/bin/glxinfo:mesa-utils; do
  [ -e "${pair%%:*}" ] || gl_missing+=("${pair##*:}")
done
if [ "${#gl_missing[@]}" -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  echo "test-deps: installing ${gl_missing[*]} with apt-get (for @dtask/gpujs's headlessgl tests)"
  log=$(mktemp)
  if ! { apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${gl_missing[@]}"; } >"$log" 2>&1; then
    echo "test-deps: apt-get could not install ${gl_missing[*]} ($(grep -E '^(E|Err):' "$log" | head -1 | cut -c1-160)); the headlessgl tests skip"
  fi
  rm -f "$log"
elif [ "${#gl_missing[@]}" -gt 0 ]; then
  echo "test-deps: ${gl_missing[*]} missing and no apt-get as root here; the headlessgl tests skip"
fi
gl_dir=$(ls -d node_modules/.pnpm/gl@*/node_modules/gl 2>/dev/null | head -1)
if [ -n "$gl_dir" ] && [ ! -f "$gl_dir/build/Release/webgl.node" ] && [ -f /usr/include/GL/glew.h ]; then
  echo "test-deps: building headless-gl in $gl_dir (2.5-4.5 min, once)"
  log=$(mktemp)
  if ! (cd "$gl_dir" && npm_config_nodedir=/usr node ../node-gyp/bin/node-gyp.js rebuild) >"$log" 2>&1; then
    echo "test-deps: headless-gl did not build ($(grep -iE 'error' "$log" | head -1 | cut -c1-160)); the headlessgl tests skip"
  fi
  rm -f "$log"
fi

browser=${DTASK_CHROMIUM:-/usr/bin/chromium}
if [ -x "$browser" ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: no chromium at $browser and no apt-get here: install chromium by hand (or set DTASK_CHROMIUM); the browser tests skip"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "test-deps: no chromium at $browser and not root: run 'sudo apt-get install chromium'; the browser tests skip"
  exit 0
fi
echo "test-deps: installing chromium with apt-get (for @dtask/viz's browser tests)"
log=$(mktemp)
if ! { apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1; then
  echo "test-deps: apt-get could not install chromium ($(grep -E '^(E|Err):' "$log" | head -1 | cut -c1-160)); the browser tests skip"
fi
rm -f "$log"
exit 0
