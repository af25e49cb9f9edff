#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, npm packages, then `npm test`
# (lint, typecheck, unit and integration tests against real PostgreSQL and the real sandboxes,
# the production build, and Playwright in Debian's Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

bash scripts/ensure-system.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› Installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
fi
npm test
