#!/usr/bin/env bash
# The single-threaded paths, A/B in one run: 8 B-4 KiB latency and the 8 B message
# rate of two ranks on this node, A = a build before a change, B = a build with it
# (MPI_Init, so MPI_THREAD_SINGLE). Rounds alternate the order; the table gives
# medians and the median of the per-round ratios B/A (latency: lower is better).
# usage: bench/mpi/ab_single.sh BUILD_A BUILD_B      env: ROUNDS (11), ITERS (20000)
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
A=$(cd "$1" && pwd) B=$(cd "$2" && pwd) ROUNDS=${ROUNDS:-11} ITERS=${ITERS:-20000}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-mpibench" bench/mpi/mpibench.c; done
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
for r in $(seq 1 "$ROUNDS"); do
    order="A B"
    [ $((r % 2)) = 0 ] && order="B A"
    for x in $order; do
        d=$A
        [ "$x" = B ] && d=$B
        run() { "$d/bin/mpiexec" -n 2 --timeout 300 "$d/bin/ab-mpibench" "$@"; }
        run latency --min 8 --max 4K --iters "$ITERS" --csv | sed "s/^/$x,$r,/" >>"$csv"
        run rate --min 8 --max 8 --iters "$((ITERS / 20))" --csv | sed "s/^/$x,$r,/" >>"$csv"
    done
done
python3 bench/ab_summary.py "$csv" A B
