#!/usr/bin/env bash
# Starts and stops the bundled local Cosmos DB endpoint (Emulator/server) for the integration tests.
#
#   Emulator/emulator.sh run -- <command...>   start, run the command with the variables below exported,
#                                             stop, and exit with the command's exit code
#   eval "$(Emulator/emulator.sh start)"       start in the background and print the variables to export
#   Emulator/emulator.sh stop                  stop the server that `start` started
#   Emulator/emulator.sh install               only install the server's dependencies (for its unit tests)
#
# Exported for the tests: COSMOS_ENDPOINT (https://127.0.0.1:<free port>/), COSMOS_KEY (the well-known
# emulator key) and COSMOS_ENDPOINT_KIND=bundled, which tells the tests where a few answers differ (constant
# request charges, content returned on writes).
#
# When COSMOS_ENDPOINT is already set (Microsoft's emulator or an account, with COSMOS_KEY), nothing is
# started: `run` runs the command against that endpoint and `start`/`stop` do nothing.
#
# The server's npm dependencies are installed with `npm ci` (from the committed package-lock.json) when
# node_modules is missing or was installed from a different lock file. The server log is kept and its tail
# printed when the command fails. The server is always stopped by the process id it was started with, also
# on failure and on Ctrl-C.
set -euo pipefail

emulator_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
server_dir="$emulator_dir/server"
state_root="$emulator_dir/.run"
readonly well_known_key='C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=='
readonly start_timeout_seconds=30

say() { printf 'emulator: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# npm ci when node_modules is missing or stale (another lock file, or another Node major version).
ensure_installed() {
  command -v node >/dev/null || die "node (>= 20) is required"
  command -v npm >/dev/null || die "npm is required"
  node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' \
    || die "node >= 20 is required, found $(node --version)"
  mkdir -p "$state_root"
  # One installer at a time per checkout (two runs started together would race inside node_modules).
  exec 9>"$state_root/install.lock"
  flock 9
  local wanted stamp="$server_dir/node_modules/.emulator-install-stamp"
  wanted="$(sha256sum "$server_dir/package-lock.json" | cut -d' ' -f1) node-$(node -p 'process.versions.node.split(".")[0]')"
  if [[ ! -f $stamp || $(<"$stamp") != "$wanted" ]]; then
    say "installing the server's dependencies (npm ci)"
    (cd "$server_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2 \
      || die "npm ci failed"
    printf '%s\n' "$wanted" >"$stamp"
  fi
  flock -u 9
}

# GET / answers 200 (the certificate is self-signed, the endpoint is loopback).
probe() {
  node -e '
    const req = require("https").get(process.argv[1], { rejectUnauthorized: false, timeout: 2000 },
      (res) => { res.resume(); process.exit(res.statusCode === 200 ? 0 : 1); });
    req.on("error", () => process.exit(1));
    req.on("timeout", () => { req.destroy(); process.exit(1); });' "$1"
}

is_our_server() {
  local pid=$1
  [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q -- "$server_dir/start.mjs"
}

# start_server <state dir>: starts the server, waits until it answers, writes endpoint and pid files.
start_server() {
  local dir=$1 pid endpoint deadline
  mkdir -p "$dir"
  rm -f "$dir/ready.json" "$dir/server.pid" "$dir/endpoint"
  ensure_installed
  # setsid: the server gets its own session, so a Ctrl-C reaches this script's trap, which stops it by pid.
  local detach=()
  command -v setsid >/dev/null && detach=(setsid)
  "${detach[@]}" node "$server_dir/start.mjs" --host 127.0.0.1 --port 0 --ready-file "$dir/ready.json" \
    >"$dir/server.log" 2>&1 </dev/null &
  pid=$!
  printf '%s\n' "$pid" >"$dir/server.pid"
  deadline=$((SECONDS + start_timeout_seconds))
  until [[ -s $dir/ready.json ]]; do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$dir/server.log" >&2; die "the server exited during start"; }
    ((SECONDS < deadline)) || { stop_server "$dir"; die "the server did not listen within ${start_timeout_seconds}s"; }
    sleep 0.1
  done
  endpoint=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).endpoint' "$dir/ready.json")
  until probe "$endpoint"; do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$dir/server.log" >&2; die "the server exited during start"; }
    ((SECONDS < deadline)) || { stop_server "$dir"; die "GET / did not answer within ${start_timeout_seconds}s"; }
    sleep 0.2
  done
  printf '%s\n' "$endpoint" >"$dir/endpoint"
  say "bundled server (pid $pid) at $endpoint, log: $dir/server.log"
}

# stop_server <state dir>: stops the server whose pid the directory records, if it is still ours.
stop_server() {
  local dir=$1 pid
  [[ -f $dir/server.pid ]] || return 0
  pid=$(<"$dir/server.pid")
  if is_our_server "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      is_our_server "$pid" || break
      sleep 0.1
    done
    if is_our_server "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
    say "stopped the bundled server (pid $pid)"
  fi
  rm -f "$dir/server.pid" "$dir/ready.json" "$dir/endpoint"
}

print_exports() {
  printf 'export COSMOS_ENDPOINT=%q\nexport COSMOS_KEY=%q\nexport COSMOS_ENDPOINT_KIND=bundled\n' "$1" "$well_known_key"
}

external_endpoint() {
  [[ -n ${COSMOS_ENDPOINT:-} ]] || return 1
  [[ -n ${COSMOS_KEY:-} ]] || die "COSMOS_ENDPOINT is set but COSMOS_KEY is not"
  return 0
}

cmd_start() {
  if external_endpoint; then
    say "COSMOS_ENDPOINT is set ($COSMOS_ENDPOINT): not starting the bundled server"
    return 0
  fi
  local dir="$state_root/default"
  if [[ -f $dir/server.pid ]] && is_our_server "$(<"$dir/server.pid")" && [[ -f $dir/endpoint ]]; then
    say "already running (pid $(<"$dir/server.pid"))"
  else
    start_server "$dir"
  fi
  print_exports "$(<"$dir/endpoint")"
}

cmd_stop() {
  if external_endpoint && [[ ! -f $state_root/default/server.pid ]]; then
    say "COSMOS_ENDPOINT is set: nothing to stop"
    return 0
  fi
  stop_server "$state_root/default"
}

cmd_run() {
  (($#)) || usage
  if external_endpoint; then
    say "COSMOS_ENDPOINT is set ($COSMOS_ENDPOINT): running against it"
    local status=0
    "$@" || status=$?
    return "$status"
  fi

  # A directory per run, so that concurrent runs (and a `start`ed server) never share a pid file. A failed
  # run keeps its directory (with the server log) until the next run clears those of finished runs.
  local old
  for old in "$state_root"/run-*; do
    [[ -d $old ]] && ! kill -0 "${old##*/run-}" 2>/dev/null && rm -rf "$old"
  done
  run_dir="$state_root/run-$$"
  trap 'stop_server "$run_dir"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  start_server "$run_dir"

  local status=0
  COSMOS_ENDPOINT=$(<"$run_dir/endpoint") COSMOS_KEY=$well_known_key COSMOS_ENDPOINT_KIND=bundled \
    "$@" || status=$?

  stop_server "$run_dir"
  if ((status != 0)); then
    say "command failed (exit $status); last lines of the server log ($run_dir/server.log):"
    tail -n 40 "$run_dir/server.log" >&2
  else
    rm -rf "$run_dir"
  fi
  return "$status"
}

case "${1:-}" in
  start) shift; (($# == 0)) || usage; cmd_start ;;
  stop) shift; (($# == 0)) || usage; cmd_stop ;;
  install) shift; (($# == 0)) || usage; ensure_installed ;;
  run)
    shift
    [[ ${1:-} == -- ]] && shift
    cmd_run "$@" ;;
  *) usage ;;
esac
