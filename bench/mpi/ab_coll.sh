#!/usr/bin/env bash
# Collectives A/B in one run: collbench (bench/mpi/collbench.c, built against each)
# on N ranks of this node, A = a build before a change, B = a build with it. Rounds
# alternate the order; the table gives medians and the median of the per-round
# ratios B/A (time: lower is better).
# usage: bench/mpi/ab_coll.sh BUILD_A BUILD_B
#   env: ROUNDS (7), RANKS (2), TESTS (every collbench test), SIZES (8 1K 64K 1M)
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
A=$(cd "$1" && pwd) B=$(cd "$2" && pwd) ROUNDS=${ROUNDS:-7} RANKS=${RANKS:-2}
TESTS=${TESTS:-barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter scan}
SIZES=${SIZES:-8 1K 64K 1M}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-collbench" bench/mpi/collbench.c; done
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
for r in $(seq 1 "$ROUNDS"); do
    order="A B"
    [ $((r % 2)) = 0 ] && order="B A"
    for t in $TESTS; do
        sizes=$SIZES
        [ "$t" = barrier ] && sizes=0
        for s in $sizes; do
            for x in $order; do
                d=$A
                [ "$x" = B ] && d=$B
                args=(--min "$s" --max "$s")
                [ "$t" = barrier ] && args=()
                "$d/bin/mpiexec" -n "$RANKS" --timeout 300 "$d/bin/ab-collbench" "$t" "${args[@]}" --csv |
                    sed "s/^/$x,$r,/" >>"$csv"
            done
        done
    done
done
python3 bench/ab_summary.py "$csv" A B
