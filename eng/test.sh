#!/usr/bin/env bash
# The README's test command: from a fresh clone, restore, build Release, pack the library and the tool and build
# the sample against the package (eng/build-sample.sh), run every test project and print each runner's summary, then
# the endpoint tests on the other supported Cosmos SDK versions (eng/sdk-matrix.sh).
#
#   eng/test.sh            everything CI runs
#   eng/test.sh --quick    the inner loop: build, unit tests, and the endpoint tests' SDK smoke set (the tests marked
#                          [SdkSmoke], which eng/sdk-matrix.sh runs on the older SDKs); no pack, sample, tool tests
#                          or SDK matrix
# Exits non-zero when anything fails.
set -uo pipefail
quick=0
if [[ ${1:-} == --quick ]]; then
  quick=1
elif (($#)); then
  echo "usage: eng/test.sh [--quick]" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
root=$(pwd)
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
# Every build of this run is a ContinuousIntegrationBuild (deterministic source paths), as the packages must be: then
# eng/pack.sh packs the solution's build instead of compiling the packages' projects again, and the SDK matrix's
# builds find the library, hosting and tool projects up to date. An environment variable rather than -p, so that it
# reaches every build (MSBuild reads it as a property) without making them distinct global-property builds.
export ContinuousIntegrationBuild=true

# shellcheck source=eng/lib/xunit.sh
source eng/lib/xunit.sh
# The SDK smoke set's trait (Emulator/.../Infrastructure/SdkSmokeAttribute.cs), as eng/sdk-matrix.sh selects it.
sdk_smoke_trait=$(sed -n "s/^readonly smoke_trait='\(.*\)'$/\1/p" eng/sdk-matrix.sh)

results_dir="$root/artifacts/test-results"
mkdir -p "$results_dir"
started_marker="$results_dir/.started"
touch "$started_marker"
failures=()

# Each step's wall time, printed at the end (and the load average, since the machine may be shared).
step_names=()
step_seconds=()
step_started=$SECONDS
step() {
  end_step
  step_names+=("$*")
  step_started=$SECONDS
  printf '\n==> %s\n' "$*"
}
end_step() {
  ((${#step_names[@]} > ${#step_seconds[@]})) && step_seconds+=($((SECONDS - step_started)))
  return 0
}
print_timings() {
  end_step
  printf '\nStep times (load average now: %s):\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  local i
  for i in "${!step_names[@]}"; do
    printf '%4d:%02d  %s\n' $((step_seconds[i] / 60)) $((step_seconds[i] % 60)) "${step_names[i]}"
  done
  printf '%4d:%02d  total\n' $((SECONDS / 60)) $((SECONDS % 60))
}

step "restore"
dotnet restore Encryption.Custom.slnx || exit 1

step "build (Release)"
dotnet build Encryption.Custom.slnx -c Release --no-restore || exit 1

# The bundled endpoint's npm dependencies (`npm ci`, ~14 s on a fresh clone) install beside the steps that leave a
# core idle: packing and the sample build (55-80 % busy) and the tool tests. Not beside the solution build: that
# keeps both cores busy, and the build took as much longer as the install saved. Emulator/emulator.sh installs under
# a lock and only when needed, so whoever comes next (the node tests, or `emulator.sh run`) waits for this one.
install_log="$results_dir/emulator-install.log"
Emulator/emulator.sh install >"$install_log" 2>&1 &
install_pid=$!

# Runs one test project (eng/lib/xunit.sh); its runner prints each failure and the summary. A failure is recorded,
# and the remaining projects still run so that one report shows everything that is broken.
run_tests() {
  local project_dir=$1
  local name
  name=$(basename "$project_dir")
  step "test $name"
  if ! run_xunit "$(xunit_executable "$project_dir")" "$results_dir/$name.trx" 15m; then
    failures+=("$name")
  fi
}

# Unit tests of the bundled endpoint's compatibility layer (batch codec, query clauses), with Node's own test
# runner, which prints its summary (tests, pass, fail) at the end.
run_node_tests() {
  local name="Emulator/server (node --test)"
  step "test $name"
  local installed=0
  wait "$install_pid" && installed=1
  cat "$install_log"
  if ! { ((installed)) && node --test Emulator/server/test/*.test.mjs; }; then
    failures+=("$name")
  fi
}

# The integration tests drive the real Cosmos SDK against an endpoint: the bundled server, which
# Emulator/emulator.sh installs, starts and always stops (its log tail is printed when they fail), or the
# endpoint in COSMOS_ENDPOINT/COSMOS_KEY when set. The summary's "Skipped: 0" shows that none is skipped on either
# endpoint; the time limit keeps a stuck request from stalling the whole script.
run_emulator_tests() {
  local name=Encryption.Custom.Emulator.Tests
  local filter=()
  if ((quick)); then
    filter=(-trait "$sdk_smoke_trait")
  fi
  step "test $name (endpoint: ${COSMOS_ENDPOINT:-bundled server})"
  if ! Emulator/emulator.sh run -- eng/lib/xunit.sh "$(xunit_executable "Emulator/$name")" "$results_dir/$name.trx" 20m \
       "${filter[@]}"; then
    failures+=("$name")
  fi
}

# The failed tests of this run by name, with the first line of each message, read from the trx files: CI shows only
# the end of the log, so the names must be printed here, after everything else.
print_failed_tests() {
  local trx
  for trx in "$results_dir"/*.trx; do
    [[ -f $trx && $trx -nt $started_marker ]] || continue
    node -e '
      const text = require("fs").readFileSync(process.argv[1], "utf8");
      for (const m of text.matchAll(/<UnitTestResult [^>]*testName="([^"]*)"[^>]*outcome="Failed"[^>]*>([\s\S]*?)<\/UnitTestResult>/g)) {
        const message = (/<Message>([\s\S]*?)<\/Message>/.exec(m[2]) || [, ""])[1].split("\n")[0].slice(0, 300);
        const name = m[1].replace(/\\?&quot;/g, "\"");
        console.log(`  failed: ${name}\n          ${message}`);
      }' "$trx" || true
  done
}

summary() {
  print_timings
  step "summary"
  if ((${#failures[@]})); then
    print_failed_tests
    printf 'FAILED: %s\n' "${failures[@]}"
    exit 1
  fi
  echo "All test projects passed."
  exit 0
}

if ((quick)); then
  run_tests Encryption.Custom.Tests
  run_emulator_tests
  summary
fi

# A broken package (or one the sample cannot build against) fails CI here. The tool tests then install the tool
# package that was just packed rather than packing their own.
step "pack"
if eng/pack.sh --no-build; then
  export ENCRYPTION_CUSTOM_PACKAGES="$root/artifacts/packages"
  step "build the sample against the package"
  eng/build-sample.sh --no-pack || failures+=("sample")
else
  failures+=("pack")
fi

run_tests Encryption.Custom.Tests
run_tests Encryption.Custom.Tool.Tests
run_node_tests
run_emulator_tests

# The endpoint tests on every supported Microsoft.Azure.Cosmos version (docs/dependencies.md): the run above was the
# default, newest version, so the matrix runs the others.
step "Microsoft.Azure.Cosmos version matrix"
if ! SKIP_DEFAULT=1 eng/sdk-matrix.sh; then
  failures+=("SDK matrix")
fi

summary
