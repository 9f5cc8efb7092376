#!/usr/bin/env bash
# Puts every package of a folder of .nupkg files into a NuGet packages folder (the global packages folder), extracted
# as a restore extracts it, right after eng/forget-packed-versions.sh removed the previous build of the same version.
# Removing alone broke applications built earlier against the local package: their incremental build trusts the restore
# it did before (obj/project.assets.json names files in that folder) and does not restore again, so the files were
# simply gone. With the new build put back, such a build finds the files, and they are the new ones.
# It is NuGet that extracts (a PackageDownload restore of exactly these ids and versions from the folder), so the
# layout and the metadata files are NuGet's own.
#
#   eng/reinstall-packed-versions.sh <folder of .nupkg files> <NuGet packages folder>
set -euo pipefail
[[ $# -eq 2 ]] || { printf 'usage: %s <folder of .nupkg files> <NuGet packages folder>\n' "$0" >&2; exit 2; }
packed=$(cd "$1" && pwd)
cache=$2

shopt -s nullglob
items=()
for package in "$packed"/*.nupkg; do
  name=$(basename "$package" .nupkg)
  # <id>.<version>: the version starts at the first dot followed by a digit (no id part starts with one).
  id=${name%%.[0-9]*}
  version=${name#"$id".}
  [[ $id != "$name" ]] || continue
  items+=("    <PackageDownload Include=\"$id\" Version=\"[$version]\" />")
done
((${#items[@]})) || exit 0

project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
{
  printf '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup>\n'
  printf '%s\n' "${items[@]}"
  printf '  </ItemGroup>\n</Project>\n'
} >"$project/reinstall.csproj"
# Only the packed folder as a source: nothing else is needed (a PackageDownload brings no dependencies) or asked for.
printf '<configuration><packageSources><clear /></packageSources></configuration>\n' >"$project/nuget.config"
dotnet restore "$project/reinstall.csproj" --source "$packed" --packages "$cache" --configfile "$project/nuget.config" --nologo -v quiet
printf 'reinstalled %d packed package(s) in %s\n' "${#items[@]}" "$cache"
