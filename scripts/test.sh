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
# Its status is COMMAND's (a caller's `||` turns set -e off inside it, so it is kept explicitly).
timed() {
  local label=$1 t0=$SECONDS status=0
  shift
  "$@" || status=$?
  timings+=("$(printf '%-22s %4d s' "$label" $((SECONDS - t0)))")
  return "$status"
}
summary() {
  echo "› Where the minutes went:"
  printf '    %s\n' "${timings[@]}"
  echo "    total                  $((SECONDS - began)) s"
}
system_pid=""
# A failing install, lint or typecheck must not leave the system step running behind it.
trap 'summary; [ -z "$system_pid" ] || kill "$system_pid" 2>/dev/null || true' EXIT

# The system step (apt, Docker, the sandbox image's debootstrap) waits mostly on the network and
# the disk, as `npm ci` does: it starts first and runs beside the install, lint, typecheck and the
# build, its output kept for after. Its one use of the npm packages (tsx, to extract bubblewrap's
# rootfs) waits for the file COUNTERSIGN_NPM_READY names (build-sandbox-image.sh).
system_log="$(mktemp)"
npm_ready="$system_log.npm"
system_began=$SECONDS
echo "› System packages, Docker and the sandbox image: beside npm ci, lint, typecheck and the build"
(
  t0=$SECONDS
  status=0
  COUNTERSIGN_NPM_READY="$npm_ready" bash scripts/ensure-system.sh || status=$?
  echo $((SECONDS - t0)) >"$system_log.seconds"
  exit "$status"
) >"$system_log" 2>&1 &
system_pid=$!
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› Installing npm packages (npm ci)"
  timed "npm ci" npm ci --no-audit --no-fund || { echo failed >"$npm_ready"; exit 1; }
fi
echo ok >"$npm_ready"
# The steps of `npm test` (package.json). Lint and typecheck each use one core: they run side by
# side, after the Prisma client they both read is generated once. The production build needs
# neither the system step nor the database, so it runs here too, and the Playwright step below
# uses it instead of building again.
timed "prisma generate" npm run --silent db:generate
side_by_side() {
  local lint_log typecheck_log lint_status=0 typecheck_status=0
  lint_log="$(mktemp)" typecheck_log="$(mktemp)"
  npm run --silent lint >"$lint_log" 2>&1 &
  local lint_pid=$!
  { npx next typegen >/dev/null && npx tsc --noEmit; } >"$typecheck_log" 2>&1 || typecheck_status=$?
  wait "$lint_pid" || lint_status=$?
  echo "› lint (eslint)"; sed 's/^/  /' "$lint_log"
  echo "› typecheck (next typegen, tsc)"; sed 's/^/  /' "$typecheck_log"
  rm -f "$lint_log" "$typecheck_log"
  [ "$lint_status" = 0 ] || { echo "✖ lint failed (above)"; return 1; }
  [ "$typecheck_status" = 0 ] || { echo "✖ typecheck failed (above)"; return 1; }
}
timed "lint + typecheck" side_by_side
# Checked just now, route types included: the production build skips its own second check.
export COUNTERSIGN_TYPECHECKED=1
timed "build" npm run build
lint_typecheck_seconds=$((SECONDS - system_began))
system_status=0
wait "$system_pid" || system_status=$?
system_pid=""
sed 's/^/  /' "$system_log"
timings+=("$(printf '%-22s %4d s (beside npm ci, lint, typecheck and build, which it held up %d s)' "system packages" \
  "$(cat "$system_log.seconds" 2>/dev/null || echo 0)" $((SECONDS - system_began - ${lint_typecheck_seconds:-0})))")
rm -f "$system_log" "$system_log.seconds" "$npm_ready"
[ "$system_status" = 0 ] || { echo "✖ scripts/ensure-system.sh failed (its output is above)"; exit "$system_status"; }
# The build and the system are in place: .ci/run starts its private-clone check (which copies
# this build and runs the start command's system step) beside the tests once this file appears.
[ -z "${COUNTERSIGN_BUILD_READY:-}" ] || echo ok >"$COUNTERSIGN_BUILD_READY"
timed "test:unit" npm run test:unit
# `npm run test:e2e` is the build and then this; the build above is of the same sources.
timed "test:e2e (playwright)" npx playwright test
