#!/usr/bin/env bash
# Sourced by eng/test.sh and eng/sdk-matrix.sh (or executed, below): runs a built xunit v3 test project by starting
# its own executable.
#
# An xunit v3 test project is a program that runs its tests; `dotnet test` starts MSBuild and the VSTest host
# around it, which cost about 5 s per project here (Encryption.Custom.Tool.Tests: 13.5 s through `dotnet test`,
# 8.4 s run directly, same 323 tests), six times per eng/test.sh. Run directly, it writes the same trx report
# (print_failed_tests in eng/test.sh reads it) and prints each failure and a summary line. VSTest's hang timeout is
# replaced by `timeout` over the whole run; while a test hangs, xunit names it every 30 s
# (longRunningTestSeconds in the project's xunit.runner.json), so a killed run still says which test it was.

# run_xunit EXECUTABLE TRX_FILE TIME_LIMIT [xunit arguments...]   e.g. run_xunit bin/X artifacts/X.trx 10m -trait "Category=SdkSmoke"
run_xunit() {
  local executable=$1 trx=$2 limit=$3
  shift 3
  if [[ ! -x $executable ]]; then
    printf 'no test executable at %s (build the solution first)\n' "$executable" >&2
    return 1
  fi
  mkdir -p "$(dirname "$trx")"
  timeout --kill-after=30s "$limit" "$executable" -noLogo -noColor -trx "$trx" "$@"
  local status=$?
  if ((status == 124 || status == 137)); then
    printf '%s ran past %s and was stopped\n' "$(basename "$executable")" "$limit" >&2
  fi
  return $status
}

# The executable of a test project built by the solution's Release build: PROJECT_DIR/bin/Release/<framework>/NAME.
xunit_executable() {
  local project_dir=$1
  local name
  name=$(basename "$project_dir")
  printf '%s/bin/Release/net10.0/%s\n' "$project_dir" "$name"
}

# Executed rather than sourced (e.g. under Emulator/emulator.sh run): eng/lib/xunit.sh EXECUTABLE TRX_FILE TIME_LIMIT [...]
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  run_xunit "$@"
fi
