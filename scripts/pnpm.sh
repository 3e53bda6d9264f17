#!/usr/bin/env bash
# Runs the pinned pnpm (no global install needed: npx fetches it from the registry).
exec npx -y pnpm@10.34.9 "$@"
