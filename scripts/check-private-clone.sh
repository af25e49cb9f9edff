#!/usr/bin/env bash
# Proves the console starts from a private folder (mode 0700), as root and as an ordinary user.
# For each: a real `git clone` of this checkout's commit into a private folder (root: `mktemp -d`;
# the user: a folder in their 0700 home), with a private TMPDIR; then the README's start command
# (`bash scripts/up.sh`) up to a healthy GET /api/health and a Ctrl-C, and the test command's
# database set-up: vitest's global setup (with lib/db/embedded-postgres.test.ts) and Playwright's
# server (e2e/serve.ts, on the build the start made). node_modules is hard-linked from this
# checkout instead of downloaded again; the clones start from a copy of this checkout's build of
# the commit (the suite's), or root's clone builds it when there is none.
# Fails when the console cannot start there, and leaves no process behind. Needs root (it creates
# the ordinary user); .ci/run calls it after the main suite. Only committed work is cloned.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
ci_user=countersign-ci
began=$SECONDS

fail() { echo "✖ private clone: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run this as root: it starts the console as root and as a user it creates"
[ -d "$repo/node_modules" ] || fail "run npm ci in $repo first: the clones reuse its node_modules"
# The CI checkout may belong to another user; it is ours to clone.
git() { command git -c safe.directory='*' "$@"; }
commit="$(git -C "$repo" rev-parse HEAD)"

workdirs=()
built=""
group=""
private_tmp=""
AS=()

# Ctrl-C to the console's process group, as in a terminal; anything still there after 30 s is
# killed and the check fails.
stop_console() {
  local leader=$group
  [ -n "$leader" ] || return 0
  group=""
  kill -INT -- "-$leader" 2>/dev/null || true
  for _ in $(seq 1 60); do
    pgrep -g "$leader" >/dev/null || { wait "$leader" 2>/dev/null || true; return 0; }
    sleep 0.5
  done
  echo "✖ private clone: still running 30 s after Ctrl-C, killed:" >&2
  ps -o pid,user,args -g "$leader" >&2 || true
  kill -KILL -- "-$leader" 2>/dev/null || true
  return 1
}

cleanup() {
  local status=$?
  stop_console || status=1
  for dir in "${workdirs[@]}"; do
    # As root the cluster lives outside the checkout (lib/db/embedded-postgres.ts): drop this run's.
    for origin in /var/lib/countersign/clusters/*/origin; do
      if [ -f "$origin" ] && grep -qF "$dir/" "$origin"; then rm -rf "$(dirname "$origin")"; fi
    done
    rm -rf "$dir"
  done
  exit "$status"
}
trap cleanup EXIT

# as_user USER DIR: sets AS to the prefix that runs a command in DIR as root, or as the user with
# the environment of a fresh login; both with the private TMPDIR.
as_user() {
  local who=$1 dir=$2 home
  if [ "$who" = root ]; then AS=(env --chdir="$dir" TMPDIR="$private_tmp"); return; fi
  home="$(getent passwd "$who" | cut -d: -f6)"
  AS=(runuser -u "$who" -- env -i --chdir="$dir" HOME="$home" USER="$who" LOGNAME="$who" SHELL=/bin/bash PATH="$PATH"
    LANG="${LANG:-C.UTF-8}" TMPDIR="$private_tmp" NEXT_TELEMETRY_DISABLED=1 npm_config_update_notifier=false)
}

# The first port from $1 on that nothing listens on.
free_port() {
  local port=$1
  while (: <>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

# serve WHAT URL LOG DONE COMMAND...: runs COMMAND in its own process group (so Ctrl-C reaches it
# and its PostgreSQL only), waits up to 6 minutes for URL to answer 200 with a healthy database and
# for the line DONE (if any) in its output, then stops it as a person would, with Ctrl-C.
serve() {
  local what=$1 url=$2 log=$3 done=$4 health="" t0=$SECONDS
  shift 4
  setsid "$@" >"$log" 2>&1 </dev/null &
  group=$!
  for _ in $(seq 1 720); do
    health="$(curl -fsS --max-time 5 "$url" 2>/dev/null)" && break
    pgrep -g "$group" >/dev/null || break
    sleep 0.5
  done
  if [ -z "$health" ]; then
    tail -n 40 "$log" >&2
    fail "$what did not answer $url (log above)"
  fi
  echo "  GET $url after $((SECONDS - t0)) s → $health"
  case "$health" in *'"database":{"ok":true'*) ;; *) fail "$what answered, but its database is not healthy" ;; esac
  for _ in $(seq 1 60); do
    [ -z "$done" ] || grep -qF "$done" "$log" && break
    sleep 0.5
  done
  [ -z "$done" ] || grep -qF "$done" "$log" || { tail -n 40 "$log" >&2; fail "$what never printed \"$done\" (log above)"; }
  stop_console || fail "$what did not stop on Ctrl-C"
}

# check_as USER CONSOLE_PORT E2E_PORT: the first free ports from these are the clone's.
check_as() {
  local who=$1 console_port=$2 e2e_port=$3 private clone port t0=$SECONDS
  if [ "$who" = root ]; then
    private="$(mktemp -d)"
  else
    id "$who" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$who"
    local home
    home="$(getent passwd "$who" | cut -d: -f6)"
    chmod 700 "$home"
    private="$(runuser -u "$who" -- mktemp -d -p "$home")"
  fi
  workdirs+=("$private")
  [ "$(stat -c %a "$private")" = 700 ] || fail "$private is not private (mode $(stat -c %a "$private"))"
  echo "› As $who: git clone into $private (mode 700, in $(stat -c '%a' "$(dirname "$private")") $(dirname "$private"))"

  clone="$private/countersign"
  git clone --quiet --no-hardlinks "$repo" "$clone"
  git -C "$clone" checkout --quiet --detach "$commit"
  private_tmp="$private/tmp"
  mkdir "$private_tmp"
  as_user "$who" "$clone"
  # Hard links where the file system allows, else a copy; a fresh lock copy so up.sh sees node_modules as installed.
  cp -al "$repo/node_modules" "$clone/node_modules" 2>/dev/null || { rm -rf "$clone/node_modules"; cp -a "$repo/node_modules" "$clone/node_modules"; }
  cp --remove-destination "$repo/node_modules/.package-lock.json" "$clone/node_modules/.package-lock.json"
  if [ -n "$built" ]; then
    # A build of the same commit (this checkout's, or root's clone's), so no clone spends minutes
    # on `next build`; fresh mtimes, so the start sees the build as current.
    mkdir "$clone/.next"
    tar -C "$built" --exclude=./cache -cf - . | tar -C "$clone/.next" -xmf -
  fi
  if [ "$who" != root ]; then
    # The clone is the user's; node_modules' files stay shared with this checkout (read-only to the user).
    find "$private" -path "$clone/node_modules" -prune -o -exec chown "$who:" {} +
    find "$clone/node_modules" -type d -exec chown "$who:" {} +
    chown "$who:" "$clone/node_modules/.package-lock.json"
  fi

  echo "› As $who: bash scripts/up.sh, then GET /api/health and Ctrl-C"
  port="$(free_port "$console_port")"
  serve "as $who, the console" "http://localhost:$port/api/health" "$private/up.log" "Countersign is running" \
    "${AS[@]}" PORT="$port" bash scripts/up.sh
  grep -E '^ *(Countersign is running|Data in|Sandbox:)' "$private/up.log" | sed 's/^ */  /'

  echo "› As $who: the test command's database set-up: npx vitest run lib/db/embedded-postgres.test.ts"
  if ! "${AS[@]}" npx vitest run --reporter=dot lib/db/embedded-postgres.test.ts 2>&1 | sed 's/^/  /'; then
    fail "as $who, the database tests failed in $clone"
  fi

  echo "› As $who: Playwright's server (e2e/serve.ts), then GET /api/health and Ctrl-C"
  port="$(free_port "$e2e_port")"
  serve "as $who, e2e/serve.ts" "http://127.0.0.1:$port/api/health" "$private/e2e-serve.log" "" \
    "${AS[@]}" E2E_PORT="$port" node --import tsx e2e/serve.ts
  echo "› As $who: passed in $((SECONDS - t0)) s"
  built="$clone/.next"
}

# The suite's own production build of this commit (npm run test:e2e made it), when it is there
# and current: neither clone spends minutes building the same sources again.
if [ -f "$repo/.next/BUILD_ID" ] && [ -z "$(git -C "$repo" status --porcelain -- app components lib prisma)" ]; then
  built="$repo/.next"
  echo "› Reusing this checkout's build ($repo/.next) for the clones"
fi

if [ -z "$built" ]; then
  # Root's clone builds; the user's starts from that build.
  check_as root 3900 3960
  check_as "$ci_user" 3900 3960
else
  # Both start from the suite's build, so they run side by side (each with its own ports, clone and
  # clean-up), their output kept apart and shown in turn.
  logs="$(mktemp -d)"
  (trap cleanup EXIT; check_as root 3900 3960) >"$logs/root" 2>&1 &
  root_pid=$!
  (trap cleanup EXIT; check_as "$ci_user" 3930 3990) >"$logs/user" 2>&1 &
  user_pid=$!
  root_status=0 user_status=0
  wait "$root_pid" || root_status=$?
  wait "$user_pid" || user_status=$?
  cat "$logs/root" "$logs/user"
  rm -rf "$logs"
  [ "$root_status" = 0 ] && [ "$user_status" = 0 ] || fail "a clone did not start (its output is above)"
fi
echo "› Private clones start as root and as $ci_user ($((SECONDS - began)) s)"
