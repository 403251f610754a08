#!/usr/bin/env bash
# usage: few_cpus.sh N COMMAND...
# Runs COMMAND on the first N CPUs this process may use (all of them when fewer):
# every process it starts shares them. Exits 77 (skipped) without taskset.
set -euo pipefail
n=$1
shift
if ! command -v taskset >/dev/null; then
    echo "few_cpus.sh: taskset (util-linux) is absent: skipped" >&2
    exit 77
fi
cpus=()
IFS=, read -ra items < <(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
for item in "${items[@]}"; do
    lo=${item%-*} hi=${item#*-}
    for ((c = lo; c <= hi && ${#cpus[@]} < n; c++)); do cpus+=("$c"); done
done
list=$(IFS=,; echo "${cpus[*]}")
exec taskset -c "$list" "$@"
