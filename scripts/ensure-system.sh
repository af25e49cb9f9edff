#!/usr/bin/env bash
# Installs and starts what Countersign needs from the machine, where it can: Debian's Chromium
# (browser tests), Docker and the sandbox image, bubblewrap (the fallback sandbox). Idempotent;
# without root it only reports what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

want=(chromium bubblewrap debootstrap docker.io)
[ "${COUNTERSIGN_SKIP_BROWSER:-}" = "1" ] && want=(bubblewrap debootstrap docker.io)
missing=()
for pkg in "${want[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "› Installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "› Missing Debian packages (install them as root): ${missing[*]}"
  fi
fi

if [ "${SANDBOX_MODE:-auto}" != "bwrap" ] && [ "${SANDBOX_MODE:-auto}" != "none" ]; then
  bash scripts/start-dockerd.sh
  if docker version >/dev/null 2>&1; then
    bash scripts/build-sandbox-image.sh
  fi
fi
