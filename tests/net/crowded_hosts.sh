#!/usr/bin/env bash
# Network namespaces stand in for hosts but share this machine's CPUs (twrun's
# TW_MACHINE_SIZE): 4 ranks, 2 on each of two hosts, on 2 CPUs (taskset, unbound by
# twrun) are more ranks than CPUs, so every rank's waits sleep (TW_WAIT=auto; the
# statistics line "waits slept" says so). A host that counted the 2 CPUs as its own
# would have its 2 ranks spin on time slices the other host's ranks need.
# usage: crowded_hosts.sh TWRUN PROGRAM   (inside two_hosts.sh)
set -euo pipefail
twrun=$1 prog=$2
cpus=$(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(",".join(map(str, c[:2])) if len(c) >= 2 else "")')
[ -n "$cpus" ] || { echo "crowded_hosts: fewer than 2 CPUs: skipped"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
TW_STATS=1 taskset -c "$cpus" "$twrun" --bind-to none --hosts "$HOST_A:2,$HOST_B:2" -n 4 --timeout 120 "$prog" >"$out" 2>&1 || rc=$?
n=$(grep -c "endpoint 0: waits slept" "$out" || true)
if [ "$rc" != 0 ] || [ "$n" != 4 ]; then
    echo "crowded_hosts: FAILED: status $rc, $n of 4 ranks with sleeping waits"
    sed 's/^/    /' "$out"
    exit 1
fi
echo "crowded_hosts: 4 ranks on two hosts sharing CPUs $cpus: every rank's waits sleep"
