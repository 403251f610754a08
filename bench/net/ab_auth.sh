#!/usr/bin/env bash
# Packet authentication's cost across two hosts (network namespaces), A/B in one run:
# A = a build before it, B = a build with it (header MAC, the default), P = the same
# build with TW_UDP_AUTH=payload. Rounds rotate the order; the table gives medians
# and the median of the per-round ratios to A. Root; run from the source tree.
# usage: bench/net/ab_auth.sh BUILD_A BUILD_B   env: ROUNDS (5), ITERS (--iters 2000)
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
export A=$(cd "$1" && pwd) B=$(cd "$2" && pwd) ROUNDS=${ROUNDS:-5} ITERS=${ITERS:---iters 2000}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-mpibench" bench/mpi/mpibench.c; done
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
MTU=${MTU:-65535} tests/net/two_hosts.sh bash -c '
for r in $(seq 1 $ROUNDS); do
  case $((r % 3)) in 1) order="A B P" ;; 2) order="B P A" ;; 0) order="P A B" ;; esac
  for x in $order; do
    case $x in A) d=$A e=AB_BUILD=A ;; B) d=$B e=TW_UDP_AUTH=header ;; P) d=$B e=TW_UDP_AUTH=payload ;; esac
    run() { env "$e" LD_LIBRARY_PATH="$d/lib" "$d/bin/twrun" --hosts "$HOST_A,$HOST_B" -n 2 --timeout 300 "$@"; }
    run "$d/bin/ab-mpibench" latency --min 8 --max 64K $ITERS --csv | sed "s/^/$x,$r,/"
    run "$d/bin/ab-mpibench" bandwidth --min 64K --max 4M $ITERS --csv | sed "s/^/$x,$r,/"
  done
done' >"$csv"
cat "$csv"
python3 bench/ab_summary.py "$csv" A "B=B (header MAC)" "P=P (payload MAC)"
