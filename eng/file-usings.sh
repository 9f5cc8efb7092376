#!/usr/bin/env bash
# Replaces the library's global usings (the <Using Include="..."/> items of Encryption.Custom/Encryption.Custom.csproj)
# with file-level using directives, so that each file names the namespaces it depends on (docs/architecture.md):
#   1. every .cs file of the library gets a using for each of those namespaces, except its own;
#   2. the <Using> items leave the project file;
#   3. `dotnet format` removes every using a file does not need (IDE0005), and the build checks the result.
# Mechanical and repeatable: run it again after a merge that brought new files or new global usings.
#
#   eng/file-usings.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

project=Encryption.Custom/Encryption.Custom.csproj
mapfile -t namespaces < <(sed -n 's/^ *<Using Include="\([^"]*\)" *\/> *$/\1/p' "$project" | sort -u)
if ((${#namespaces[@]} == 0)); then
  echo "no global usings in $project: nothing to do"
  exit 0
fi
printf 'replacing %d global usings with file-level ones\n' "${#namespaces[@]}"

# 1. Each file: the namespaces' usings after its own using directives (or just before its namespace declaration).
python3 - "${namespaces[@]}" <<'PYTHON'
import pathlib, re, sys

namespaces = sys.argv[1:]
for path in sorted(pathlib.Path("Encryption.Custom").rglob("*.cs")):
    if {"bin", "obj"} & set(path.parts):
        continue
    lines = path.read_text(encoding="utf-8").split("\n")
    own = next((m.group(1) for l in lines if (m := re.match(r"namespace\s+([\w.]+)", l))), None)
    present = {m.group(1) for l in lines if (m := re.match(r"using\s+([\w.]+)\s*;", l))}
    wanted = [f"using {n};" for n in namespaces if n != own and n not in present]
    if not wanted:
        continue
    usings = [i for i, l in enumerate(lines) if re.match(r"using\s+(static\s+)?[\w.]+(\s*=\s*[\w.<>,\s]+)?\s*;", l)]
    if usings:
        at = usings[-1] + 1
    else:
        at = next(i for i, l in enumerate(lines) if re.match(r"namespace\s", l))
        wanted.append("")
    lines[at:at] = wanted
    path.write_text("\n".join(lines), encoding="utf-8")
PYTHON

# 2. The project file: the <Using> items and the comment that introduces them go.
python3 - "$project" <<'PYTHON'
import re, sys

path = sys.argv[1]
text = open(path, encoding="utf-8").read()
text = re.sub(r"\n(  <!--(?:(?!-->).)*?-->\n)?  <ItemGroup>\n(    <Using Include=\"[^\"]*\" />\n)+  </ItemGroup>\n", "", text, flags=re.S)
open(path, "w", encoding="utf-8").write(text)
PYTHON
if grep -q '<Using ' "$project"; then
  echo "could not remove the <Using> items from $project" >&2
  exit 1
fi

# 3. Unneeded usings out (IDE0005 is silent by default, so a temporary .editorconfig raises it for this one run),
#    then the build (warnings are errors) proves every file still compiles.
editorconfig=Encryption.Custom/.editorconfig
[[ ! -e $editorconfig ]] || { echo "$editorconfig exists; this script needs that name for a moment" >&2; exit 1; }
trap 'rm -f "$editorconfig"' EXIT
printf '[*.cs]\ndotnet_diagnostic.IDE0005.severity = warning\n' >"$editorconfig"
dotnet format style "$project" --diagnostics IDE0005 --severity warn
rm -f "$editorconfig"
dotnet build "$project" -c Release -nologo -v q
