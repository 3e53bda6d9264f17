#!/usr/bin/env bash
# What the tests need that npm cannot install: Debian's chromium, which @dtask/viz's browser tests
# drive through playwright-core (a test tool's own browser download cannot work offline).
#   bash scripts/test-deps.sh
# Installs it with apt-get when /usr/bin/chromium (or $DTASK_CHROMIUM) is missing and we are root on
# a system with apt-get. Never fails: when it cannot install, it prints one line saying why, and
# the browser tests print the same reason and skip.
set -uo pipefail

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
