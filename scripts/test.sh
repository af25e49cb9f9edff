#!/usr/bin/env bash
# The whole test suite from a fresh clone: npm packages, system packages, then what `npm test` runs
# (lint, typecheck, unit and integration tests against real PostgreSQL and the real sandboxes,
# the production build, and Playwright in Debian's Chromium), each step timed.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
began=$SECONDS
timings=()

# timed LABEL COMMAND...: runs COMMAND and keeps how long it took, for the summary at the end.
timed() {
  local label=$1 t0=$SECONDS
  shift
  "$@"
  timings+=("$(printf '%-22s %4d s' "$label" $((SECONDS - t0)))")
}
summary() {
  echo "› Where the minutes went:"
  printf '    %s\n' "${timings[@]}"
  echo "    total                  $((SECONDS - began)) s"
}
trap summary EXIT

# npm packages first: the sandbox image step extracts bubblewrap's rootfs with the project's tsx.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› Installing npm packages (npm ci)"
  timed "npm ci" npm ci --no-audit --no-fund
fi
timed "system packages" bash scripts/ensure-system.sh
# The steps of `npm test` (package.json), one by one so each is timed.
for step in lint typecheck test:unit test:e2e; do
  timed "$step" npm run "$step"
done
