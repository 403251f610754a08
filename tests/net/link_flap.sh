#!/usr/bin/env bash
# A job started right after the second host's link went down and came up again (inside
# two_hosts.sh): the interface is running again a moment after `ip link set up`, and until
# then libfabric offers loopback alone, which the ofi link must not take for a job across
# hosts (its peers' connections were refused with EINVAL). Three times: each must pass.
# usage: link_flap.sh TWRUN PROGRAM [ARGS...]
set -euo pipefail
twrun=$1
shift
for i in 1 2 3; do
    ip -n "$HOST_B" link set "$HOST_B_DEV" down
    sleep 0.5
    ip -n "$HOST_B" link set "$HOST_B_DEV" up
    "$twrun" --hosts "$HOST_A,$HOST_B" -n 4 --timeout 120 "$@" ||
        { echo "link_flap: the job started right after the flap failed (run $i)"; exit 1; }
done
echo "link_flap: 3 jobs started right after a flap passed"
