#!/usr/bin/env bash
# A job's end under loss: every closing is bounded even when the last
# acknowledgements are lost. Runs a 2-host job RUNS times with 10 % of packets dropped
# and a peer timeout of 10 minutes; a close that waited for an acknowledgement from a
# peer that had gone would wait that long, and twrun's --timeout of RUN_TIMEOUT
# (300 s: half that, and a hundred times a run's usual length, for a loaded machine)
# ends it and fails the test.
# usage: close_under_drop.sh TWRUN PROGRAM [ARGS...]   (inside two_hosts.sh)
# env: RUNS (20), RUN_TIMEOUT (300, below TW_UDP_TIMEOUT's 600 s)
set -euo pipefail
twrun=$1
shift
export TW_UDP_TIMEOUT=600000 TW_UDP_FAULTS=drop=0.1
for run in $(seq "${RUNS:-20}"); do
    if ! "$twrun" --hosts "$HOST_A,$HOST_B" -n 2 --timeout "${RUN_TIMEOUT:-300}" "$@" >/dev/null; then
        echo "close_under_drop: run $run of ${RUNS:-20} did not end by itself"
        exit 1
    fi
done
echo "close_under_drop: ${RUNS:-20} runs at 10 % loss, each ended by itself"
