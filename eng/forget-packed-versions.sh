#!/usr/bin/env bash
# Removes, from a NuGet packages folder (the global packages folder, or a project's own RestorePackagesPath), the
# exact id and version of every package in a folder of .nupkg files. NuGet never re-extracts a version it already
# holds, so without this a package repacked under the same version is silently taken from the cache
# (docs/packaging.md). Ids come from the package files themselves, so a new package cannot be forgotten here.
#
#   eng/forget-packed-versions.sh <folder of .nupkg files> <NuGet packages folder>
set -euo pipefail
[[ $# -eq 2 ]] || { printf 'usage: %s <folder of .nupkg files> <NuGet packages folder>\n' "$0" >&2; exit 2; }
packed=$1
cache=$2
[[ -d $cache ]] || exit 0

shopt -s nullglob
for package in "$packed"/*.nupkg; do
  name=$(basename "$package" .nupkg)
  # <id>.<version>: the version starts at the first dot followed by a digit (no id part starts with one).
  id=${name%%.[0-9]*}
  version=${name#"$id".}
  [[ $id != "$name" ]] || continue
  id=${id,,}
  version=${version,,}
  if [[ -d "$cache/$id/$version" ]]; then
    printf 'forgetting the cached %s %s in %s\n' "$id" "$version" "$cache"
    rm -rf "${cache:?}/${id:?}/${version:?}"
  fi
done
