#!/usr/bin/env bash
# Loads the machine as other builds and tests do, to check that a measurement holds under load (issue 37: the
# scaling check at load >= 20): half the workers compute in registers, half copy 32 MB buffers round and round, so
# that the caches a measured process relies on are taken from it as a compiler's or a test run's would be.
#
# Usage: eng/load.sh <workers> <seconds>      e.g. eng/load.sh 24 600 & ... ; wait
#   The load average reaches about <workers> after a minute (it is an average). Every worker stops by itself after
#   <seconds>, and all of them at once when the script is interrupted or killed.
set -euo pipefail
workers=${1:?usage: eng/load.sh <workers> <seconds>}
seconds=${2:?usage: eng/load.sh <workers> <seconds>}
[[ $workers =~ ^[0-9]+$ && $seconds =~ ^[0-9]+$ && $workers -ge 1 && $seconds -ge 1 ]] || { echo "workers and seconds are positive integers" >&2; exit 2; }

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT INT TERM
for ((i = 0; i < workers; i++)); do
  if ((i % 2 == 0)); then
    timeout "$seconds" python3 -c 'while True: sum(range(100000))' &
  else
    timeout "$seconds" python3 -c '
a = bytearray(32 << 20); b = bytearray(32 << 20)
while True: b[:] = a; a[:] = b' &
  fi
  pids+=($!)
done
echo "eng/load.sh: $workers workers for $seconds s (pids ${pids[*]})"
wait || true
