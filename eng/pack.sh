#!/usr/bin/env bash
# Packs the library (Encryption.Custom), its hosting integration (Encryption.Custom.Hosting) and the tool
# (Encryption.Custom.Tool) into artifacts/packages: Release,
# deterministic (ContinuousIntegrationBuild), pack warnings as errors, a symbols package (.snupkg) beside each.
# Then opens every package and fails unless the README, the XML docs, the assemblies, the license, the declared
# dependencies and the symbols are where a consumer expects them (docs/packaging.md). Finally removes this version
# from the machine's NuGet global packages folder, so repacking the same version during development is safe.
#
#   eng/pack.sh                        version from Directory.Packages.props (EncryptionCustomPackageVersion)
#   PACKAGE_VERSION=1.2.3 eng/pack.sh  another version
#   eng/pack.sh --no-build             pack the solution's Release build as it is (eng/test.sh, which builds the
#                                      solution with -p:ContinuousIntegrationBuild=true so the library compiles once)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

out="$root/artifacts/packages"
args=(-c Release -o "$out" -p:ContinuousIntegrationBuild=true -p:TreatWarningsAsErrors=true)
if [[ ${1:-} == --no-build ]]; then
  # The ordinary Release output, which must be a ContinuousIntegrationBuild: the PDB path check below refuses
  # anything else, since an incremental build never recompiles for a changed property.
  args+=(--no-build)
elif (($#)); then
  echo "usage: eng/pack.sh [--no-build]" >&2
  exit 2
else
  # A build tree of its own: an incremental build never recompiles for a changed property, so packing over the
  # solution's ordinary Release output would ship whatever build that was (a non-CI one, say).
  args+=(--artifacts-path "$root/artifacts/pack-build")
fi
if [[ -n ${PACKAGE_VERSION:-} ]]; then
  args+=("-p:EncryptionCustomPackageVersion=$PACKAGE_VERSION")
fi

fail() { printf 'pack: %s\n' "$*" >&2; exit 1; }

# Old packages of other versions would otherwise sit next to the new ones and be picked up by a floating restore.
mkdir -p "$out"
rm -f "$out"/Encryption.Custom.*.nupkg "$out"/Encryption.Custom.*.snupkg

for project in Encryption.Custom/Encryption.Custom.csproj Encryption.Custom.Hosting/Encryption.Custom.Hosting.csproj \
  Encryption.Custom.Tool/Encryption.Custom.Tool.csproj; do
  printf '\n==> pack %s\n' "$project"
  dotnet pack "$project" "${args[@]}"
done

# The one package of each id that was just written (a version has no fixed shape, so match by id and extension).
package() {
  local found=("$out/$1".[0-9]*."$2")
  [[ ${#found[@]} -eq 1 && -f ${found[0]} ]] || fail "expected exactly one $1 .$2 in $out, found: ${found[*]}"
  printf '%s' "${found[0]}"
}
# Listings are read whole first: `grep -q` on a pipe would stop unzip early and pipefail would report that.
has_entry() {
  local listing
  listing=$(unzip -Z1 "$1")
  grep -xF "$2" <<<"$listing" >/dev/null || fail "$(basename "$1") lacks $2"
}
nuspec_has() {
  local nuspec
  nuspec=$(unzip -p "$1" '*.nuspec')
  grep -F "$2" <<<"$nuspec" >/dev/null || fail "$(basename "$1") nuspec lacks $2"
}

printf '\n==> inspect the packages\n'
library=$(package Encryption.Custom nupkg)
for entry in README.md lib/net10.0/Encryption.Custom.dll lib/net10.0/Encryption.Custom.xml; do
  has_entry "$library" "$entry"
done
nuspec_has "$library" '<license type="expression">MIT</license>'
nuspec_has "$library" '<readme>README.md</readme>'
for dependency in Microsoft.Azure.Cosmos Newtonsoft.Json Azure.Core Microsoft.Extensions.Caching.Abstractions \
  Microsoft.Extensions.Logging.Abstractions; do
  nuspec_has "$library" "<dependency id=\"$dependency\""
done
has_entry "$(package Encryption.Custom snupkg)" lib/net10.0/Encryption.Custom.pdb

# The hosting package: its own assembly only, depending on the library (same version) and the Microsoft.Extensions
# abstractions; the library itself must not have picked up any of the hosting dependencies.
hosting=$(package Encryption.Custom.Hosting nupkg)
for entry in README.md lib/net10.0/Encryption.Custom.Hosting.dll lib/net10.0/Encryption.Custom.Hosting.xml; do
  has_entry "$hosting" "$entry"
done
nuspec_has "$hosting" '<license type="expression">MIT</license>'
for dependency in Encryption.Custom Microsoft.Extensions.DependencyInjection.Abstractions Microsoft.Extensions.Hosting.Abstractions \
  Microsoft.Extensions.Options.ConfigurationExtensions Microsoft.Extensions.Options.DataAnnotations \
  Microsoft.Extensions.Diagnostics.HealthChecks; do
  nuspec_has "$hosting" "<dependency id=\"$dependency\""
done
library_nuspec=$(unzip -p "$library" '*.nuspec')
if grep -F 'Microsoft.Extensions.Hosting' <<<"$library_nuspec" >/dev/null; then
  fail "Encryption.Custom depends on a hosting package; only Encryption.Custom.Hosting may"
fi
has_entry "$(package Encryption.Custom.Hosting snupkg)" lib/net10.0/Encryption.Custom.Hosting.pdb

tool=$(package Encryption.Custom.Tool nupkg)
for entry in README.md tools/net10.0/any/Encryption.Custom.Tool.dll tools/net10.0/any/Encryption.Custom.dll \
  tools/net10.0/any/DotnetToolSettings.xml; do
  has_entry "$tool" "$entry"
done
nuspec_has "$tool" '<packageType name="DotnetTool" />'
nuspec_has "$tool" '<license type="expression">MIT</license>'
has_entry "$(package Encryption.Custom.Tool snupkg)" tools/net10.0/any/Encryption.Custom.Tool.pdb

# Deterministic: the assembly names its PDB by the mapped path /_/..., not by a path of this machine.
pdb_path=$(unzip -p "$library" lib/net10.0/Encryption.Custom.dll | strings | grep -F 'Encryption.Custom.pdb' || true)
[[ $pdb_path == /_/* ]] || fail "Encryption.Custom.dll is not a ContinuousIntegrationBuild (PDB path: ${pdb_path:-none})"

# NuGet never re-extracts a version its global packages folder already holds: an application that restored the
# previous build of this same version would silently keep it. Drop exactly the versions of the packages just written
# from that folder so the next restore anywhere on this machine takes them (docs/packaging.md).
global_packages=$(dotnet nuget locals global-packages --list | sed -n 's/^global-packages: //p')
if [[ -n $global_packages ]]; then
  eng/forget-packed-versions.sh "$out" "$global_packages"
  # ...and put the new build there at once, so an application built earlier does not meet a folder without it.
  eng/reinstall-packed-versions.sh "$out" "$global_packages"
fi

printf '\nPackages in %s:\n' "${out#"$root"/}"
(cd "$out" && ls -l Encryption.Custom.*nupkg)
