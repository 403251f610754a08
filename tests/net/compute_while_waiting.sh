#!/usr/bin/env bash
# A healthy job is never declared failed: ranks 0, 3, 6 … of RANKS (4) compute for COMPUTE
# timeouts without a call into MPI while the others wait on them in PATTERN
# (tests/mpi/compute_while_waiting.c), once with most pairs meeting for the first time
# in the pattern and once after every pair exchanged a message. Both jobs must end
# with status 0 and every rank's "ok"; a peer declared lost ends the job non-zero.
# usage: compute_while_waiting.sh TWRUN PROGRAM PATTERN [TWRUN OPTIONS...]
#   env: TW_UDP_TIMEOUT (1000 ms here), COMPUTE (timeouts of computing: 1.5; a false
#        alarm would come one timeout and a probe interval, 1.1 timeouts, into the
#        silence), RANKS (4)
set -euo pipefail
twrun=$1 prog=$2 pattern=$3
shift 3
export TW_UDP_TIMEOUT=${TW_UDP_TIMEOUT:-1000}
ranks=${RANKS:-4}
seconds=$(awk -v t="$TW_UDP_TIMEOUT" -v n="${COMPUTE:-1.5}" 'BEGIN {print t * n / 1000}')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for contact in first talked; do
    rc=0
    "$twrun" "$@" -n "$ranks" --timeout 300 "$prog" "$pattern" "$seconds" \
        "$([ $contact = talked ] && echo talked || echo first)" >"$out" 2>&1 || rc=$?
    oks=$(grep -c "compute_while_waiting: rank [0-9]*: ok" "$out" || true)
    if [ "$rc" != 0 ] || [ "$oks" != "$ranks" ]; then
        echo "compute_while_waiting: FAILED: $pattern, $contact contact: status $rc, $oks of $ranks ranks ok"
        sed 's/^/    /' "$out"
        exit 1
    fi
    computing=$(((ranks + 2) / 3))
    echo "compute_while_waiting: $pattern, $contact contact: $computing of $ranks ranks computed" \
        "${seconds} s (TW_UDP_TIMEOUT=$TW_UDP_TIMEOUT ms) while the others waited: no false alarm"
done
