#!/usr/bin/env bash
# Installs and starts what Countersign needs from the machine, where it can: Debian's Chromium
# headless shell (browser tests), Docker and the sandbox image, gVisor (runsc, registered as a Docker runtime),
# bubblewrap (the fallback sandbox) on the image's rootfs. Idempotent; without root it only
# reports what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

want=(chromium-headless-shell bubblewrap debootstrap docker.io runsc)
[ "${COUNTERSIGN_SKIP_BROWSER:-}" = "1" ] && want=(bubblewrap debootstrap docker.io runsc)
missing=()
for pkg in "${want[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "› Installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # One package at a time: a mirror without runsc must not keep Docker or bubblewrap out.
    for pkg in "${missing[@]}"; do
      apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1 || echo "› Could not install $pkg from apt"
    done
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

bash scripts/register-gvisor.sh
