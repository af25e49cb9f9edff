#!/usr/bin/env bash
# Registers gVisor's runsc as the Docker runtime "runsc" (the "gvisor" isolation level), where it
# can: merges {"runtimes":{"runsc":{...}}} into /etc/docker/daemon.json (keeping everything else)
# and has a running dockerd reload it with SIGHUP (never a restart: running sandboxes go on).
# Always exits 0; when it cannot, it says why in one line, and the other sandboxes still work.
set -u

DAEMON_JSON="${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}"
PIDFILE="${DOCKERD_PIDFILE:-/var/run/docker.pid}"
RUNSC="$(command -v runsc 2>/dev/null || true)"

say() { echo "register-gvisor: $*"; }

[ -n "${DOCKER_HOST:-}" ] && { say "DOCKER_HOST is set; register runsc on that Docker host yourself (gVisor stays unavailable until then)"; exit 0; }
[ -n "$RUNSC" ] || { say "runsc is not installed (apt-get install runsc as root); gVisor is unavailable"; exit 0; }
[ "$(id -u)" = "0" ] || { say "not root, cannot edit $DAEMON_JSON; gVisor is unavailable unless it is already registered"; exit 0; }
# The runtime must be able to start a sandbox on this kernel at all.
if ! out="$("$RUNSC" --rootless=false --network=none do /bin/true 2>&1)"; then
  say "runsc does not run on this machine ($(echo "$out" | tail -1)); gVisor is unavailable"
  exit 0
fi

mkdir -p "$(dirname "$DAEMON_JSON")"
# --network=none: sandboxes have no network anyway, and runsc's own networking refuses a
# namespace without interfaces (Docker's "none").
if ! changed="$(python3 - "$DAEMON_JSON" "$RUNSC" <<'PY'
import json, os, sys
path, runsc = sys.argv[1], sys.argv[2]
config = {}
if os.path.exists(path) and os.path.getsize(path) > 0:
    with open(path) as f:
        config = json.load(f)
want = {"path": runsc, "runtimeArgs": ["--network=none"]}
runtimes = config.setdefault("runtimes", {})
if runtimes.get("runsc") == want:
    print("no")
else:
    runtimes["runsc"] = want
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    print("yes")
PY
)"; then
  say "could not update $DAEMON_JSON (is it valid JSON?); gVisor is unavailable"
  exit 0
fi

if [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  if [ "$changed" = "yes" ]; then
    kill -HUP "$(cat "$PIDFILE")" && sleep 1
  fi
  if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
    say "runsc is registered with Docker (gVisor available)"
  else
    say "dockerd did not pick up runsc from $DAEMON_JSON; gVisor is unavailable until dockerd reloads it"
  fi
else
  say "runsc registered in $DAEMON_JSON; dockerd picks it up when it starts"
fi
exit 0
