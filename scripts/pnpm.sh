#!/usr/bin/env bash
# Runs the pinned pnpm (no global install needed: npx fetches it from the registry).
# Resolving it through npx costs about 1.3 s of CPU per call, so a caller that runs pnpm many
# times (the test command: packing every package twice) resolves it once with
# `export DTASK_PNPM=$(bash scripts/pnpm.sh --path)` and later calls run that file directly.
pin=pnpm@10.34.9
if [ "${1:-}" = --path ]; then
  exec npx -y -p "$pin" -c 'command -v pnpm'
fi
if [ -n "${DTASK_PNPM:-}" ] && [ -x "$DTASK_PNPM" ]; then
  # On PATH too, as npx puts it: turbo and publint look pnpm up there.
  PATH="$(dirname "$DTASK_PNPM"):$PATH" exec "$DTASK_PNPM" "$@"
fi
exec npx -y "$pin" "$@"
