#!/usr/bin/env bash
# Two builds across two hosts (network namespaces, tests/net/two_hosts.sh), A/B in one
# run: how soon a waiting rank takes a late sender's message (bench/mpi/latewait.c),
# RANKS ranks half on each host, the sender on the first host and the receiver on the
# second, waits under TW_WAIT (sleep by default: where a rank whose link must be polled
# sleeps). The rounds alternate which build goes first; the table gives the medians and
# the median of the per-round ratios B/A (bench/ab_summary.py). Root; run from the
# source tree.
# usage: bench/net/ab_latewait.sh BUILD_A BUILD_B
#   env: ROUNDS (5), RANKS (4), WAIT (sleep), LATE_ROUNDS (200), LATE_US (3000), MTU (65535)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ab_lib.sh"
ab_builds "$@"
export A B ROUNDS=${ROUNDS:-5} RANKS=${RANKS:-4} WAIT=${WAIT:-sleep}
export LATE_ROUNDS=${LATE_ROUNDS:-200} LATE_US=${LATE_US:-3000}
case $RANKS in '' | *[!0-9]* | 0 | 1 | *[13579]) echo "$0: RANKS must be even, 2 or more" >&2; exit 2 ;; esac
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-latewait" "$here/../mpi/latewait.c"; done
MTU=${MTU:-65535} "$here/../../tests/net/two_hosts.sh" bash -c '
for r in $(seq 1 $ROUNDS); do
  order="A B"
  [ $((r % 2)) = 0 ] && order="B A"
  for x in $order; do
    if [ $x = A ]; then d=$A; else d=$B; fi
    TW_WAIT=$WAIT LD_LIBRARY_PATH="$d/lib" "$d/bin/twrun" -x TW_WAIT \
      --hosts "$HOST_A:$((RANKS / 2)),$HOST_B:$((RANKS / 2))" -n $RANKS --timeout 300 \
      "$d/bin/ab-latewait" $LATE_ROUNDS $LATE_US | sed "s/^/$x,$r,/"
  done
  echo "round $r of $ROUNDS done" >&2
done' >"$ab_csv"
cat "$ab_csv"
ab_summary
