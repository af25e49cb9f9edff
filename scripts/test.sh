#!/usr/bin/env bash
# The whole test suite from a fresh clone: npm packages, system packages, then what `npm test` runs
# (lint, typecheck, the production build, unit and integration tests against real PostgreSQL and
# the real sandboxes, and Playwright in Debian's Chromium), each step timed.
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
system_pid=""
# A failing lint or typecheck must not leave the system step running behind it.
trap 'summary; [ -z "$system_pid" ] || kill "$system_pid" 2>/dev/null || true' EXIT

# npm packages first: the sandbox image step extracts bubblewrap's rootfs with the project's tsx.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› Installing npm packages (npm ci)"
  timed "npm ci" npm ci --no-audit --no-fund
fi
# The system step (apt, Docker, the sandbox image's debootstrap) waits mostly on the network and
# the disk, and lint and typecheck need none of it: it runs beside them, its output kept for after.
system_log="$(mktemp)"
system_began=$SECONDS
echo "› System packages, Docker and the sandbox image: beside lint, typecheck and the build"
(
  t0=$SECONDS
  status=0
  bash scripts/ensure-system.sh || status=$?
  echo $((SECONDS - t0)) >"$system_log.seconds"
  exit "$status"
) >"$system_log" 2>&1 &
system_pid=$!
# The steps of `npm test` (package.json), one by one so each is timed. The production build needs
# neither the system step nor the database, so it runs here too, beside the system step, and the
# Playwright step below uses it instead of building again.
for step in lint typecheck; do
  timed "$step" npm run "$step"
done
# Checked just now, route types included: the production build skips its own second check.
export COUNTERSIGN_TYPECHECKED=1
timed "build" npm run build
lint_typecheck_seconds=$((SECONDS - system_began))
system_status=0
wait "$system_pid" || system_status=$?
system_pid=""
sed 's/^/  /' "$system_log"
timings+=("$(printf '%-22s %4d s (beside lint, typecheck and build, which it held up %d s)' "system packages" \
  "$(cat "$system_log.seconds" 2>/dev/null || echo 0)" $((SECONDS - system_began - ${lint_typecheck_seconds:-0})))")
rm -f "$system_log" "$system_log.seconds"
[ "$system_status" = 0 ] || { echo "✖ scripts/ensure-system.sh failed (its output is above)"; exit "$system_status"; }
timed "test:unit" npm run test:unit
# `npm run test:e2e` is the build and then this; the build above is of the same sources.
timed "test:e2e (playwright)" npx playwright test
