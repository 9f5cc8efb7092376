#!/usr/bin/env bash
# The README's main command: packs the library and builds the sample application (samples/Encryption.Custom.Sample)
# against that package (eng/build-sample.sh), starts the bundled local Cosmos DB endpoint unless
# COSMOS_ENDPOINT/COSMOS_KEY name one (Emulator/emulator.sh), and runs the sample against it: a DEK wrapped by a
# local KEK, encrypted writes, a stored document beside its decrypted form, a query, the change feed, a KEK rotation
# and reads after it, then the README's example, docs/migrating.md's example (Microsoft's idioms) and
# docs/key-management.md's local-key example, docs/queries.md's lookups and docs/policy.md's nested selectors with
# binding. Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

project=samples/Encryption.Custom.Sample/Encryption.Custom.Sample.csproj

# The sample consumes the packed library, like an application would: pack, then build it against the package.
eng/build-sample.sh

printf '\n==> run the sample (endpoint: %s)\n' "${COSMOS_ENDPOINT:-bundled server}"
exec Emulator/emulator.sh run -- dotnet run --project "$project" -c Release --no-build
