#!/usr/bin/env bash
# A peer lost, across two hosts: 4 ranks in an Allreduce / Alltoall loop
# (tests/mpi/peer_lost.c), TW_UDP_TIMEOUT=T ms.
# fatal: under MPI_ERRORS_ARE_FATAL (the default),
#   - rank 3 stopped for 4 T, then continued: the job ends with a message naming a
#     rank, the lost peer and the cause, and a non-zero status, within T + 30 s of
#     the stop (a generous bound: the machine may be busy; twrun's --timeout is the
#     ceiling);
#   - the link taken down for 3 T, then up: the same;
#   - a stop, and an outage, of a third of the timeout, with a timeout of 4 T:
#     survived, every round's data verified.
# return: under MPI_ERRORS_RETURN, rank 3 stopped for 4 T, then continued: every rank
#   reports each kind of operation failed as it should ("peer_lost: rank N: ok").
# usage: peer_lost.sh fatal|return TWRUN PROGRAM   (inside two_hosts.sh)   env: T (1500)
set -euo pipefail
mode=$1 twrun=$2 prog=$3
export TW_UDP_TIMEOUT=${T:-1500}
t=$TW_UDP_TIMEOUT
bound=$((t / 1000 + 30))
out=$(mktemp)
trap 'rm -f "$out" "$out.down" "$out.up"' EXIT
message='tollway MPI: rank [0-9]+: process failed: rank [0-9]+ lost: (it did not answer|it had declared)'
fail() {
    echo "peer_lost: FAILED: $*"
    sed 's/^/    /' "$out"
    exit 1
}
run() { "$twrun" --hosts "$HOST_A,$HOST_B" -n 4 --timeout 120 "$prog" "$@" >"$out" 2>&1; }
now() { date +%s; }

# ends_with_message WHAT START: the job ended non-zero with the message, by START + bound
ends_with_message() {
    local what=$1 start=$2 rc=$3 end
    end=$(now)
    [ "$rc" != 0 ] || fail "$what: the job ended with status 0"
    grep -Eq "$message" "$out" || fail "$what: no message naming the rank, the peer and the cause"
    [ $((end - start)) -le "$bound" ] || fail "$what: ended $((end - start)) s after the fault (bound $bound s)"
    echo "peer_lost: $what: ended $((end - start)) s after the fault: $(grep -Eo "$message[^;]*" "$out" | head -1)"
}

link() { ip -n "$HOST_B" link set "$HOST_B_DEV" "$1"; }
# outage AT_SECONDS FOR_MS: the link of the second host goes down, and up again; when
# each happened in $out.down and $out.up (seconds, to the nanosecond)
outage() {
    sleep "$1"
    link down
    date +%s.%N >"$out.down"
    sleep "$(awk -v ms="$2" 'BEGIN {printf "%.3f", ms / 1000}')"
    link up
    date +%s.%N >"$out.up"
}
# when the link was down, to the millisecond, against the job's end (a survived outage
# that failed: how long it really lasted on this machine then)
outage_times() {
    local down up end
    down=$(cat "$out.down" 2>/dev/null || echo 0) up=$(cat "$out.up" 2>/dev/null || echo 0) end=$(date +%s.%N)
    awk -v d="$down" -v u="$up" -v e="$end" \
        'BEGIN {printf "the link was down %.0f ms; the job ended %.0f ms after it came up", (u - d) * 1000, (e - u) * 1000}'
}

if [ "$mode" = return ]; then
    run 30 3 2 $((4 * t)) return || fail "under MPI_ERRORS_RETURN: the job failed"
    n=$(grep -c "peer_lost: rank [0-9]: ok" "$out" || true)
    [ "$n" = 4 ] || fail "under MPI_ERRORS_RETURN: $n of 4 ranks ok"
    grep "peer_lost: rank 0: " "$out"
    echo "peer_lost: under MPI_ERRORS_RETURN every rank ok"
    exit 0
fi

# a stop longer than the timeout
start=$(now)
rc=0
run 60 3 2 $((4 * t)) || rc=$?
ends_with_message "rank 3 stopped for $((4 * t)) ms" $((start + 2)) $rc

# the link down for longer than the timeout
outage 3 $((3 * t)) &
rc=0
run 60 || rc=$?
wait
ends_with_message "the link down for $((3 * t)) ms" "$(cut -d. -f1 "$out.down")" $rc
rm -f "$out.down" "$out.up"

# A stop, and an outage, of a third of the timeout are survived. These two runs take a
# timeout of 4 T: the stopped rank is woken by a child it forked, and on a busy machine
# that child, or the stopped rank's threads, may run a second late; 2 T of margin
# would then make a false alarm of the machine's load.
long=$((4 * t))

# a stop shorter than the timeout
TW_UDP_TIMEOUT=$long run 8 3 2 $((long / 3)) || fail "rank 3 stopped for $((long / 3)) ms (TW_UDP_TIMEOUT=$long): the job failed"
grep -q "rounds verified" "$out" || fail "rank 3 stopped for $((long / 3)) ms: data not verified"
echo "peer_lost: rank 3 stopped for $((long / 3)) ms (TW_UDP_TIMEOUT=$long): survived, $(grep -o '[0-9]* rounds verified' "$out")"

# an outage shorter than the timeout
outage 3 $((long / 3)) &
rc=0
TW_UDP_TIMEOUT=$long run 8 || rc=$?
wait
times=$(outage_times)
rm -f "$out.down" "$out.up"
[ $rc = 0 ] || fail "the link down for $((long / 3)) ms (TW_UDP_TIMEOUT=$long): the job failed ($times)"
grep -q "rounds verified" "$out" || fail "the link down for $((long / 3)) ms: data not verified"
echo "peer_lost: the link down for $((long / 3)) ms (TW_UDP_TIMEOUT=$long): survived, $(grep -o '[0-9]* rounds verified' "$out")"
