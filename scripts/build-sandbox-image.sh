#!/usr/bin/env bash
# Builds the sandbox image countersign-sandbox:latest from Debian packages (no registry needed):
# debootstrap bookworm minbase + python3 with numpy/pandas, package managers removed, then
# `docker import`; the same rootfs is extracted for bubblewrap (scripts/sandbox-rootfs.ts), so
# every runner has one interpreter. Idempotent: does nothing if the image exists, unless --force.
#
#   scripts/build-sandbox-image.sh            build if missing
#   scripts/build-sandbox-image.sh --force    re-import (reuses the cached rootfs tarball)
#   scripts/build-sandbox-image.sh --no-cache re-run debootstrap too
#
# Env: SANDBOX_IMAGE (default countersign-sandbox:latest), SANDBOX_PACKAGES (comma list, overrides
# the default package set), DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail

IMAGE="${SANDBOX_IMAGE:-countersign-sandbox:latest}"
SUITE=bookworm
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# python3 (not just python3-minimal) brings the standard library a data-analysis snippet expects
# (json, csv, statistics, datetime...); numpy + pandas add ~110 MB and ~40 s to a cold build.
PACKAGES="${SANDBOX_PACKAGES:-python3,python3-numpy,python3-pandas}"
# Bump when the rootfs recipe below changes, so a stale cache is not reused.
RECIPE_VERSION=1

FORCE=0
NO_CACHE=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --no-cache) FORCE=1; NO_CACHE=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { printf '[build-sandbox-image %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "debootstrap needs root (or sudo)" >&2; exit 1
  fi
fi

command -v docker >/dev/null || { echo "docker CLI not found (apt-get install -y docker.io)" >&2; exit 1; }
docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || {
  echo "Docker daemon does not answer (try scripts/start-dockerd.sh)" >&2; exit 1; }

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"

# bubblewrap runs this image's rootfs, extracted once to a directory named by the image's layer digest.
# The extraction runs the project's tsx: scripts/test.sh starts this step beside `npm ci` and says
# in COUNTERSIGN_NPM_READY which file appears once the packages are in place (or the install failed).
extract_bwrap_rootfs() {
  if [ -n "${COUNTERSIGN_NPM_READY:-}" ]; then
    for _ in $(seq 1 1800); do [ -e "$COUNTERSIGN_NPM_READY" ] && break; sleep 0.5; done
    [ "$(cat "$COUNTERSIGN_NPM_READY" 2>/dev/null)" = ok ] || { log "npm packages missing: bubblewrap rootfs not extracted"; return; }
  fi
  (cd "$REPO_ROOT" && SANDBOX_IMAGE="$IMAGE" node --import tsx scripts/sandbox-rootfs.ts) | sed 's/^/  /' \
    || log "bubblewrap rootfs not extracted (bubblewrap stays unavailable until it is)"
}

if [ "$FORCE" -eq 0 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "$IMAGE exists ($(docker image inspect --format '{{.Id}}' "$IMAGE")); skipping (use --force to rebuild)"
  extract_bwrap_rootfs
  exit 0
fi

CACHE_DIR="$REPO_ROOT/.cache/sandbox-image"
KEY="$(printf '%s|%s|%s|%s' "$SUITE" "$PACKAGES" "$RECIPE_VERSION" "$(uname -m)" | sha256sum | cut -c1-16)"
TARBALL="$CACHE_DIR/rootfs-$SUITE-$KEY.tar"
mkdir -p "$CACHE_DIR"

START=$(date +%s)

if [ "$NO_CACHE" -eq 1 ] || [ ! -s "$TARBALL" ]; then
  command -v debootstrap >/dev/null || { echo "debootstrap not found (apt-get install -y debootstrap)" >&2; exit 1; }
  ROOTFS="$(mktemp -d /tmp/countersign-rootfs.XXXXXX)"
  trap '$SUDO rm -rf "$ROOTFS"' EXIT
  log "debootstrap $SUITE minbase with $PACKAGES (takes ~1-2 min)"
  DEBOOTSTRAP_LOG="$CACHE_DIR/debootstrap.log"
  if ! $SUDO debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" 2>&1 \
    | tee "$DEBOOTSTRAP_LOG" \
    | grep -E --line-buffered '^I: (Retrieving Release|Resolving dependencies of base|Installing core|Configuring required|Base system installed)' \
    | sed -u 's/^/  /'; then
    : # grep finding nothing is not a failure; the python3 check below decides
  fi
  if [ ! -x "$ROOTFS/usr/bin/python3" ]; then
    echo "debootstrap failed (full log: $DEBOOTSTRAP_LOG):" >&2
    tail -20 "$DEBOOTSTRAP_LOG" >&2
    exit 1
  fi

  log "hardening rootfs: removing package managers, installers and setuid bits"
  # Nothing may be installed at runtime: no pip/ensurepip, no apt/dpkg.
  $SUDO rm -rf \
    "$ROOTFS"/usr/lib/python3*/ensurepip "$ROOTFS"/usr/lib/python3/dist-packages/pip \
    "$ROOTFS"/usr/bin/pip* "$ROOTFS"/usr/bin/apt* "$ROOTFS"/usr/bin/dpkg* \
    "$ROOTFS"/usr/lib/apt "$ROOTFS"/etc/apt "$ROOTFS"/var/lib/apt "$ROOTFS"/var/cache/apt \
    "$ROOTFS"/var/lib/dpkg "$ROOTFS"/usr/share/doc "$ROOTFS"/usr/share/man "$ROOTFS"/usr/share/info \
    "$ROOTFS"/usr/share/locale "$ROOTFS"/var/log/* "$ROOTFS"/root/.[!.]* 2>/dev/null || true
  $SUDO find "$ROOTFS" -xdev -type f -perm /6000 -exec chmod ug-s {} + 2>/dev/null || true
  # Bytecode cannot be written at runtime (read-only root), so compile it now for a fast start.
  $SUDO chroot "$ROOTFS" /usr/bin/python3 -m compileall -q /usr/lib/python3 /usr/lib/python3.11 >/dev/null 2>&1 || true

  log "writing cached rootfs tarball $TARBALL"
  $SUDO tar -C "$ROOTFS" --numeric-owner -cf "$TARBALL.tmp" .
  $SUDO chown "$(id -u):$(id -g)" "$TARBALL.tmp"
  mv "$TARBALL.tmp" "$TARBALL"
else
  log "reusing cached rootfs $TARBALL"
fi

log "docker import -> $IMAGE"
docker import \
  --change 'USER 65534:65534' \
  --change 'WORKDIR /tmp' \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8' \
  --change 'CMD ["python3", "-"]' \
  --change 'LABEL org.opencontainers.image.title=countersign-sandbox' \
  "$TARBALL" "$IMAGE" >/dev/null

log "smoke test (no network, read-only, nobody)"
SMOKE='import json, csv, statistics; print("python ok")'
case ",$PACKAGES," in
  *,python3-pandas,*) SMOKE='import json, csv, statistics, numpy, pandas; print("python ok, numpy", numpy.__version__, "pandas", pandas.__version__)' ;;
esac
docker run --rm --network none --read-only --user 65534:65534 --cap-drop ALL "$IMAGE" python3 -c "$SMOKE"
if docker run --rm --network none "$IMAGE" python3 -c 'import pip' >/dev/null 2>&1; then
  echo "pip is importable in the image; refusing" >&2; exit 1
fi

ID="$(docker image inspect --format '{{.Id}}' "$IMAGE")"
SIZE="$(docker image inspect --format '{{.Size}}' "$IMAGE")"
log "done in $(( $(date +%s) - START ))s: $IMAGE = $ID ($(( SIZE / 1024 / 1024 )) MB)"
extract_bwrap_rootfs
