#!/usr/bin/env bash
# The Microsoft.Azure.Cosmos version matrix (docs/dependencies.md, "Cosmos SDK versions"): builds the endpoint tests
# as an application on each supported SDK version and runs them on the bundled endpoint (or COSMOS_ENDPOINT).
#
#   eng/sdk-matrix.sh [VERSION...]     default: every version in CosmosSdkVersions (Directory.Packages.props)
#
# The library itself is always built against the floor (CosmosSdkFloor), as its package is: what an application
# meets is that binary with whatever newer SDK it references, and a newer SDK that added an abstract member to a
# type the encryption container derives from fails there, not in a build. -p:CosmosSdkVersion=X changes only the
# SDK the test application references. Each version builds the test project into artifacts/sdk-matrix/<version>/;
# its project references drop that property and the output tree (GlobalPropertiesToRemove in its project file), so
# the library, hosting and tool are the ordinary Release build, compiled once rather than once per version. The test
# project itself is compiled without analyzers (-p:RunAnalyzers=false): the solution build already ran them on the
# same sources, and what a version can break here is compilation and behaviour, not style; it halves the compile.
#
# Depth: the newest version runs the whole endpoint suite; every other version runs the SDK smoke set (the tests
# marked [SdkSmoke], Infrastructure/SdkSmokeAttribute.cs): every SDK type the library derives from and every SDK
# behaviour it builds on (point operations, queries and read-many through its feed iterators, change feed iterators
# and processor, batch, bulk, patch, the client's serializer, the DEK container, and one migration run for the
# processor, estimator and leases underneath). docs/dependencies.md says why that is what varies by version.
# eng/test.sh already ran the whole suite on the default version (the newest), so it passes SKIP_DEFAULT=1.
# Exits non-zero when a version fails to restore, build or pass.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

readonly project=Emulator/Encryption.Custom.Emulator.Tests/Encryption.Custom.Emulator.Tests.csproj
# shellcheck source=eng/lib/xunit.sh
source eng/lib/xunit.sh
readonly smoke_trait='Category=SdkSmoke'
results_dir="$root/artifacts/test-results"

property() {
  dotnet msbuild Encryption.Custom/Encryption.Custom.csproj -nologo -getProperty:"$1" | tr -d '\r'
}

# Runs inside Emulator/emulator.sh run: the endpoint is up and exported. The whole suite (the newest version, when it
# is in the list) runs first and alone: some of its tests need a writer faster than a request-unit budget, which a
# machine busy with other runs cannot guarantee. The smoke runs then go at the same time: each test class creates a
# database of its own (CosmosDatabaseFixture), so the runs do not see each other's data, and a run mostly waits on
# the endpoint (the three one after the other took 46 s of the matrix's 1:46, together 13 s). Each run writes its own
# log, printed whole and in version order once all have finished, so the output reads as if they ran in turn.
run_version() {
  local version=$1 newest=$2
  local args=(-trait "$smoke_trait")
  [[ $version == "$newest" ]] && args=()
  local started=$SECONDS status
  run_xunit "artifacts/sdk-matrix/$version/bin/Encryption.Custom.Emulator.Tests/release/Encryption.Custom.Emulator.Tests" \
    "$results_dir/sdk-matrix-$version.trx" 20m "${args[@]}"
  status=$?
  printf 'tests on %s took %d s\n' "$version" $((SECONDS - started))
  return $status
}

if [[ ${1:-} == --run-tests ]]; then
  shift
  newest=$1
  shift
  logs_dir="$root/artifacts/sdk-matrix/logs"
  mkdir -p "$logs_dir"
  failed=()
  smoke=()
  for version in "$@"; do
    if [[ $version == "$newest" ]]; then
      printf '\n==> endpoint tests on Microsoft.Azure.Cosmos %s (full)\n' "$version"
      run_version "$version" "$newest" || failed+=("$version")
    else
      smoke+=("$version")
    fi
  done
  pids=()
  for version in "${smoke[@]}"; do
    run_version "$version" "$newest" >"$logs_dir/$version.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    version=${smoke[i]}
    wait "${pids[i]}" || failed+=("$version")
    printf '\n==> endpoint tests on Microsoft.Azure.Cosmos %s (smoke)\n' "$version"
    cat "$logs_dir/$version.log"
  done
  if ((${#failed[@]})); then
    printf 'endpoint tests FAILED on Microsoft.Azure.Cosmos %s\n' "${failed[@]}"
    exit 1
  fi
  exit 0
fi

floor=$(property CosmosSdkFloor)
newest=$(property CosmosSdkNewestTested)
if (($#)); then
  versions=("$@")
else
  IFS=';' read -r -a versions <<<"$(property CosmosSdkVersions)"
fi
if [[ ${SKIP_DEFAULT:-0} == 1 ]]; then
  default=$(property CosmosSdkVersion)
  kept=()
  for version in "${versions[@]}"; do
    [[ $version == "$default" ]] || kept+=("$version")
  done
  versions=("${kept[@]}")
fi
printf 'Microsoft.Azure.Cosmos matrix: floor %s, newest tested %s, running %s\n' "$floor" "$newest" "${versions[*]}"

built=()
failures=()
for version in "${versions[@]}"; do
  printf '\n==> build the endpoint tests on Microsoft.Azure.Cosmos %s\n' "$version"
  out="artifacts/sdk-matrix/$version"
  build_started=$SECONDS
  if ! dotnet build "$project" -c Release -p:CosmosSdkVersion="$version" -p:RunAnalyzers=false --artifacts-path "$out" -v q -nologo; then
    failures+=("build $version")
    continue
  fi
  # The application must really run on this version (a resolution quirk would silently test another).
  deps=$(find "$out/bin" -name Encryption.Custom.Emulator.Tests.deps.json | head -n 1)
  if [[ -z $deps ]] || ! grep -q "\"Microsoft.Azure.Cosmos/$version\"" "$deps"; then
    printf 'the endpoint tests did not resolve Microsoft.Azure.Cosmos %s (%s)\n' "$version" "${deps:-no deps.json}"
    failures+=("resolve $version")
    continue
  fi
  built+=("$version")
  printf 'built in %d s\n' $((SECONDS - build_started))
done

if ((${#built[@]})); then
  if ! Emulator/emulator.sh run -- "$0" --run-tests "$newest" "${built[@]}"; then
    failures+=("endpoint tests")
  fi
fi

if ((${#failures[@]})); then
  printf 'SDK matrix FAILED: %s\n' "${failures[@]}"
  exit 1
fi
printf 'SDK matrix passed on Microsoft.Azure.Cosmos %s\n' "${versions[*]}"
