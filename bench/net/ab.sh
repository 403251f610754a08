#!/usr/bin/env bash
# Two builds across two hosts (network namespaces, tests/net/two_hosts.sh), A/B in one
# run: mpibench latency (8 B .. 64 KiB) and bandwidth (64 KiB .. 4 MiB) through each
# build's own twrun and library, the rounds rotating which goes first; the table gives
# the medians and the median of the per-round ratios to A (bench/ab_summary.py). A third
# way, C, is B's build under other settings (AB_C), when given. On this virtual machine
# a run lands in a fast or a slow mode, whatever the library: the rounds' ratios, not
# the medians, say what a change does. Root; run from the source tree.
# usage: bench/net/ab.sh BUILD_A BUILD_B
#   env: ROUNDS (5), ITERS (--iters 2000), MTU of the veth pair (65535; 1500 and 9000
#        are Ethernet's), AB_B and AB_C (settings of B and of C, "NAME=value"), LABEL_B
#        and LABEL_C (their names in the table), AB_LIBS (a library path searched after
#        the build's: another libfabric for TW_LINK=ofi)
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
A=$(cd "$1" && pwd) B=$(cd "$2" && pwd)
export A B ROUNDS=${ROUNDS:-5} ITERS=${ITERS:---iters 2000} AB_B=${AB_B:-AB_BUILD=B} AB_C=${AB_C:-}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-mpibench" bench/mpi/mpibench.c; done
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
MTU=${MTU:-65535} tests/net/two_hosts.sh bash -c '
ways="A B${AB_C:+ C}"
for r in $(seq 1 $ROUNDS); do
  set -- $ways
  for k in $(seq 2 $((r % $# + 1))); do set -- "$@" "$1"; shift; done # rotate
  for x in "$@"; do
    case $x in A) d=$A e=AB_BUILD=A ;; B) d=$B e=$AB_B ;; C) d=$B e=$AB_C ;; esac
    run() { env "$e" LD_LIBRARY_PATH="$d/lib${AB_LIBS:+:$AB_LIBS}" "$d/bin/twrun" --hosts "$HOST_A,$HOST_B" -n 2 --timeout 300 "$@"; }
    run "$d/bin/ab-mpibench" latency --min 8 --max 64K $ITERS --csv | sed "s/^/$x,$r,/"
    run "$d/bin/ab-mpibench" bandwidth --min 64K --max 4M $ITERS --csv | sed "s/^/$x,$r,/"
  done
done' >"$csv"
cat "$csv"
labels=(A "B=${LABEL_B:-B}")
[ -n "$AB_C" ] && labels+=("C=${LABEL_C:-C}")
python3 bench/ab_summary.py "$csv" "${labels[@]}"
