#!/usr/bin/env bash
# Packs the library (eng/pack.sh) and builds the sample (samples/Encryption.Custom.Sample) against that package,
# as an application that adopts it would: restored from artifacts/packages (samples/NuGet.config) into the sample's
# own packages folder, from which the previous copy of the same version is removed first. A package that does not
# restore, or an API the sample uses that the package lacks, fails here. Used by eng/test.sh and eng/run.sh.
#
#   eng/build-sample.sh            pack, then build
#   eng/build-sample.sh --no-pack  build against the packages already in artifacts/packages
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

project=samples/Encryption.Custom.Sample/Encryption.Custom.Sample.csproj

if [[ ${1:-} != --no-pack ]]; then
  eng/pack.sh
fi

# NuGet never re-extracts a version it already has: drop the last build's copy so this build gets the new packages.
eng/forget-packed-versions.sh artifacts/packages artifacts/sample-packages

printf '\n==> build %s (Release, Encryption.Custom from artifacts/packages)\n' "$project"
dotnet build "$project" -c Release
