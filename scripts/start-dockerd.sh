#!/usr/bin/env bash
# Starts a local Docker daemon for the sandbox when none answers. Idempotent.
# Exits 0 even when it cannot start one: the sandbox then falls back to bubblewrap or refuses to run.
set -u

SOCK="${DOCKER_SOCK:-/var/run/docker.sock}"
LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"
WAIT_SECONDS="${DOCKERD_WAIT_SECONDS:-30}"

daemon_answers() {
  if command -v docker >/dev/null 2>&1; then
    docker version --format '{{.Server.Version}}' >/dev/null 2>&1
  else
    [ -S "$SOCK" ] && curl -fsS --unix-socket "$SOCK" http://localhost/_ping >/dev/null 2>&1
  fi
}

if [ -n "${DOCKER_HOST:-}" ]; then
  if daemon_answers; then
    echo "start-dockerd: remote Docker at DOCKER_HOST answers; nothing to start"
  else
    echo "start-dockerd: DOCKER_HOST=$DOCKER_HOST does not answer; not starting a local daemon"
  fi
  exit 0
fi

if daemon_answers; then
  echo "start-dockerd: Docker daemon already answers on $SOCK"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "start-dockerd: not root; cannot start dockerd (sandbox will fall back)"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "start-dockerd: dockerd not installed (apt-get install -y docker.io); sandbox will fall back"
  exit 0
fi

# A stale socket from a dead daemon makes dockerd refuse to start.
if [ -S "$SOCK" ] && ! daemon_answers; then
  rm -f "$SOCK"
fi

echo "start-dockerd: starting dockerd (log: $LOG)"
# --bridge=none/--iptables=false: sandboxes run with NetworkMode none, so no bridge is needed.
# overlay2: vfs makes every run take seconds instead of ~0.35 s.
nohup dockerd --iptables=false --bridge=none --storage-driver=overlay2 >"$LOG" 2>&1 &

for _ in $(seq 1 $((WAIT_SECONDS * 2))); do
  if daemon_answers; then
    echo "start-dockerd: daemon ready"
    exit 0
  fi
  sleep 0.5
done

echo "start-dockerd: daemon did not answer within ${WAIT_SECONDS}s (see $LOG); sandbox will fall back"
exit 0
