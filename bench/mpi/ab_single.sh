#!/usr/bin/env bash
# The single-threaded paths, A/B in one run: 8 B-4 KiB latency and the 8 B message
# rate of two ranks on this node, A = a build before a change, B = a build with it
# (MPI_Init, so MPI_THREAD_SINGLE). Rounds alternate the order; the table gives
# medians and the median of the per-round ratios B/A (latency: lower is better).
# usage: bench/mpi/ab_single.sh BUILD_A BUILD_B      env: ROUNDS (11), ITERS (20000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ab_lib.sh"
ab_builds "$@"
ROUNDS=${ROUNDS:-11} ITERS=${ITERS:-20000}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-mpibench" "$here/mpibench.c"; done
measure() { # LABEL BUILD ROUND
    run() { "$2/bin/mpiexec" -n 2 --timeout 300 "$2/bin/ab-mpibench" "${@:4}"; }
    run "$@" latency --min 8 --max 4K --iters "$ITERS" --csv | sed "s/^/$1,$3,/" >>"$ab_csv"
    run "$@" rate --min 8 --max 8 --iters "$((ITERS / 20))" --csv | sed "s/^/$1,$3,/" >>"$ab_csv"
}
ab_rounds "$ROUNDS" measure
ab_summary
