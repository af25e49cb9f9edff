#!/usr/bin/env bash
# Brings the console up on a fresh machine: npm packages, system packages where possible, then
# `npm start` (bundled PostgreSQL, demo tenant, offline planner, the best sandbox available).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

# npm packages first: the sandbox image step extracts bubblewrap's rootfs with the project's tsx.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› Installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
fi
COUNTERSIGN_SKIP_BROWSER=1 bash scripts/ensure-system.sh || echo "› Continuing without some system packages (see above)."
exec npm start -- "$@"
