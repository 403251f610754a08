#!/usr/bin/env bash
# Collectives A/B in one run: collbench (bench/mpi/collbench.c, built against each)
# on N ranks of this node, A = a build before a change, B = a build with it (or one
# build twice, launched two ways: A_OPTIONS, B_OPTIONS). Rounds alternate the order;
# the table gives medians and the median of the per-round ratios B/A (time: lower is
# better).
# usage: bench/mpi/ab_coll.sh BUILD_A BUILD_B
#   env: ROUNDS (7), RANKS (2; a list runs each), TESTS (every collbench test),
#        SIZES (8 1K 64K 1M), ITERS (collbench's default when unset),
#        A_OPTIONS, B_OPTIONS (mpiexec's options for A and B, e.g. --bind-to none)
# e.g. how twrun's placement of more ranks than cores pays (docs/performance.md):
#   RANKS="4 8 16" SIZES="8 64K" ITERS=200 ROUNDS=5 B_OPTIONS="--bind-to none" \
#     bench/mpi/ab_coll.sh build build
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ab_lib.sh"
ab_builds "$@"
ROUNDS=${ROUNDS:-7} RANKS=${RANKS:-2} SIZES=${SIZES:-8 1K 64K 1M}
TESTS=${TESTS:-barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter scan}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-collbench" "$here/collbench.c"; done
measure() { # LABEL BUILD ROUND
    local t s n sizes args options
    options=${A_OPTIONS:-}
    [ "$1" = B ] && options=${B_OPTIONS:-}
    for n in $RANKS; do
        for t in $TESTS; do
            sizes=$SIZES
            [ "$t" = barrier ] && sizes=0
            for s in $sizes; do
                args=(--min "$s" --max "$s")
                [ "$t" = barrier ] && args=()
                [ -n "${ITERS:-}" ] && args+=(--iters "$ITERS")
                # shellcheck disable=SC2086 # options split into their words
                "$2/bin/mpiexec" $options -n "$n" --timeout 300 "$2/bin/ab-collbench" "$t" \
                    "${args[@]}" --csv | sed "s/^[^,]*,/$1,$3,n$n,/" >>"$ab_csv"
            done
        done
    done
}
ab_rounds "$ROUNDS" measure
ab_summary
