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
[ $# = 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
A=$(cd "$1" && pwd) B=$(cd "$2" && pwd)
ROUNDS=${ROUNDS:-5} ITERS=${ITERS:-2000} NPS=${NPS:-4 8} CPUS=${CPUS:-2}
NP_IDLE=${NP_IDLE:-4} IDLE_SECONDS=${IDLE_SECONDS:-2}
here=$(cd "$(dirname "$0")" && pwd)
for x in "$A" "$B"; do
    "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-idlewait" "$here/idlewait.c"
    "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-collbench" "$here/collbench.c"
done
csv=$(mktemp) tm=$(mktemp)
trap 'rm -f "$csv" "$tm"' EXIT
few=("$here/../../tests/mpi/few_cpus.sh" "$CPUS")
for r in $(seq 1 "$ROUNDS"); do
    order="A B"
    [ $((r % 2)) = 0 ] && order="B A"
    for x in $order; do
        d=$A
        [ "$x" = B ] && d=$B
        /usr/bin/time -o "$tm" -f "%U %S %e" "${few[@]}" "$d/bin/mpiexec" -n "$NP_IDLE" \
            --timeout 300 "$d/bin/ab-idlewait" "$IDLE_SECONDS"
        read -r user sys wall <"$tm"
        burnt=$(python3 -c "print(max(0.0, $user + $sys - $IDLE_SECONDS))")
        echo "$x,$r,idlewait,waiters-cpu-s,$NP_IDLE,$burnt,s" >>"$csv"
        echo "$x,$r,idlewait,wall-s,$NP_IDLE,$wall,s" >>"$csv"
        for np in $NPS; do
            for t in barrier bcast allreduce; do
                "${few[@]}" "$d/bin/mpiexec" -n "$np" --timeout 300 "$d/bin/ab-collbench" "$t" \
                    --min 8 --max 8 --iters "$ITERS" --csv |
                    sed "s/^mpibench,\([a-z]*\),/mpibench,\1-${np}ranks,/; s/^/$x,$r,/" >>"$csv"
            done
        done
    done
    echo "round $r of $ROUNDS done; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
python3 "$here/../ab_summary.py" "$csv" A B
