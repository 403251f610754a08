#!/usr/bin/env bash
# Waiting when ranks outnumber cores, A/B in one run (A = a build before a change,
# B = with it), rounds alternating the order:
#   idle      the CPU seconds (user + system, /usr/bin/time) of a job of NP_IDLE ranks
#             where rank 0 computes IDLE_SECONDS and the others wait (idlewait.c),
#             less those IDLE_SECONDS: what the waiters burnt
#   collbench barrier, and 8-byte bcast and allreduce, at each rank count of NPS
# All ranks run on this machine's first CPUS CPUs (taskset). The table gives medians
# and the median of the per-round ratios B/A.
# usage: bench/mpi/ab_waiting.sh BUILD_A BUILD_B
#   env: ROUNDS (5), ITERS (2000), NPS ("4 8"), CPUS (2), NP_IDLE (4), IDLE_SECONDS (2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ab_lib.sh"
ab_builds "$@"
ROUNDS=${ROUNDS:-5} ITERS=${ITERS:-2000} NPS=${NPS:-4 8} CPUS=${CPUS:-2}
NP_IDLE=${NP_IDLE:-4} IDLE_SECONDS=${IDLE_SECONDS:-2}
for x in "$A" "$B"; do
    "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-idlewait" "$here/idlewait.c"
    "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-collbench" "$here/collbench.c"
done
tm=$(mktemp)
trap 'rm -f "$ab_csv" "$tm"' EXIT
few=("$here/../../tests/mpi/few_cpus.sh" "$CPUS")
measure() { # LABEL BUILD ROUND
    local x=$1 d=$2 r=$3 user sys wall burnt np t
    /usr/bin/time -o "$tm" -f "%U %S %e" "${few[@]}" "$d/bin/mpiexec" -n "$NP_IDLE" \
        --timeout 300 "$d/bin/ab-idlewait" "$IDLE_SECONDS"
    read -r user sys wall <"$tm"
    burnt=$(python3 -c "print(max(0.0, $user + $sys - $IDLE_SECONDS))")
    echo "$x,$r,idlewait,waiters-cpu-s,$NP_IDLE,$burnt,s" >>"$ab_csv"
    echo "$x,$r,idlewait,wall-s,$NP_IDLE,$wall,s" >>"$ab_csv"
    for np in $NPS; do
        for t in barrier bcast allreduce; do
            "${few[@]}" "$d/bin/mpiexec" -n "$np" --timeout 300 "$d/bin/ab-collbench" "$t" \
                --min 8 --max 8 --iters "$ITERS" --csv |
                sed "s/^mpibench,\([a-z]*\),/mpibench,\1-${np}ranks,/; s/^/$x,$r,/" >>"$ab_csv"
        done
    done
}
ab_rounds "$ROUNDS" measure
ab_summary
