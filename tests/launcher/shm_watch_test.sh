#!/usr/bin/env bash
# A killed job leaves nothing in /dev/shm, whatever started it: the node's watcher
# (src/link/shm/watch.c) removes the job's objects once its ranks are gone.
# usage: shm_watch_test.sh CASE TWRUN SLEEPER
#   CASE: alone_killed | twrun_rank_killed | twrun_killed | hydra_timeout |
#         hydra_rank_killed | openmpi_timeout | openmpi_rank_killed | dead_job_swept
#   SLEEPER: mpi_shm_sleeper (prints its job id, holds heap and collective segments)
# Exits 77 when the case's launcher (mpiexec.hydra, mpirun.openmpi) is not installed.
set -euo pipefail
case_name=${1:?usage: shm_watch_test.sh CASE TWRUN SLEEPER}
twrun=${2:?usage: shm_watch_test.sh CASE TWRUN SLEEPER}
sleeper=${3:?usage: shm_watch_test.sh CASE TWRUN SLEEPER}

tmp=$(mktemp -d)
launcher=
cleanup() {
    [ -n "$launcher" ] && kill -KILL "$launcher" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
# a test run inside another job must not hand its variables to the launchers' ranks
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(SLURM_|PMI_|PMIX_|OMPI_|TW_JOB_|TWRUN_|MPIEXEC_)' || true)

fail() {
    echo "FAIL ($case_name): $*" >&2
    for f in "$tmp"/out "$tmp"/err; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
    done
    exit 1
}
skip() {
    echo "shm_watch ($case_name) skipped: $*"
    exit 77
}

# start COMMAND...: runs the launcher in the background, output in $tmp/out, $tmp/err
start() {
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
    launcher=$!
}

# wait_ranks N: until N ranks printed their line (at most 120 s); sets job (their job
# id, the same for all) and pids (theirs); the job's objects must exist
job=
pids=()
# (with "soft": returns 1 instead when the launcher ended first)
wait_ranks() {
    local n=$1 lines=0
    for _ in $(seq 1200); do
        lines=$(grep -c '^shm_sleeper: rank' "$tmp/out" 2>/dev/null || true)
        ((lines >= n)) && break
        if ! kill -0 "$launcher" 2>/dev/null; then
            [ "${2:-}" = soft ] && return 1
            fail "the launcher ended before $n ranks started"
        fi
        sleep 0.1
    done
    ((lines >= n)) || fail "$lines of $n ranks started within 120 s"
    local ids
    ids=$(awk '/^shm_sleeper: rank/ {print $7}' "$tmp/out" | sort -u)
    [ "$(wc -l <<<"$ids")" = 1 ] || fail "the ranks disagree on the job id: $ids"
    job=$ids
    [[ $job =~ ^[0-9a-f]{1,32}$ ]] || fail "job id '$job' is not hex"
    mapfile -t pids < <(awk '/^shm_sleeper: rank/ {print $5}' "$tmp/out")
    # each rank: its endpoint, its window's heap block; rank 0 the collective block too
    local count
    count=$(find /dev/shm -maxdepth 1 -name "tw-$job-*" \( -name "*-ep*" -o -name "*-heap*" \) | wc -l)
    local want=$((2 * n + (n > 1)))
    ((count >= want)) || fail "the job has $count objects in /dev/shm, expected at least $want"
    [ -e "/dev/shm/tw-$job-alive" ] || fail "no /dev/shm/tw-$job-alive while the job runs"
}

# wait_launcher: the launcher ends (bounded by the timeout it was started under)
wait_launcher() {
    set +e
    wait "$launcher"
    rc=$?
    set -e
    launcher=
}

# expect_clean: within 60 s, no rank of the job lives and nothing of it is in /dev/shm
expect_clean() {
    local left=
    for _ in $(seq 600); do
        left=
        for pid in "${pids[@]}"; do
            [ -d "/proc/$pid" ] && ! grep -q '^State:.*zombie' "/proc/$pid/status" 2>/dev/null &&
                left="$left rank-pid:$pid"
        done
        left="$left $(find /dev/shm -maxdepth 1 \( -name "tw-$job-*" -o -name "tollway-ids-*-$job" \) -printf '%f ')"
        [ -z "${left// /}" ] && break
        sleep 0.1
    done
    [ -z "${left// /}" ] || fail "60 s after the job ended, still there:$left"
    echo "ok   $case_name: job $job left nothing in /dev/shm (launcher exit $rc)"
}

need() { command -v "$1" >/dev/null || skip "$1 is not installed"; }

rc=0
case $case_name in
alone_killed) # no launcher: a job of one, SIGKILLed
    start timeout 300 "$sleeper"
    wait_ranks 1
    kill -KILL "${pids[0]}"
    wait_launcher
    expect_clean
    ;;
twrun_rank_killed)
    start "$twrun" -n 3 --timeout 300 "$sleeper"
    wait_ranks 3
    kill -KILL "${pids[1]}"
    wait_launcher
    [ "$rc" != 0 ] || fail "twrun exited 0 after a rank was killed"
    expect_clean
    ;;
twrun_killed)
    start "$twrun" -n 3 --timeout 300 "$sleeper"
    wait_ranks 3
    kill -KILL "$launcher"
    wait_launcher
    expect_clean
    ;;
hydra_timeout) # Hydra's own timeout kills the job
    need mpiexec.hydra
    for limit in 20 60 180; do # a machine too busy to start the ranks in time: longer
        start env MPIEXEC_TIMEOUT=$limit timeout 300 mpiexec.hydra -n 2 "$sleeper"
        wait_ranks 2 soft && break
        wait_launcher
        [ "$limit" = 180 ] && fail "the ranks did not start within Hydra's timeout of 180 s"
    done
    wait_launcher
    [ "$rc" != 0 ] || fail "mpiexec.hydra exited 0 after its timeout"
    expect_clean
    ;;
hydra_rank_killed)
    need mpiexec.hydra
    start timeout 300 mpiexec.hydra -n 3 "$sleeper"
    wait_ranks 3
    kill -KILL "${pids[2]}"
    wait_launcher
    expect_clean
    ;;
openmpi_timeout | openmpi_rank_killed)
    need mpirun.openmpi
    args=(--oversubscribe)
    [ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
    if [ "$case_name" = openmpi_timeout ]; then
        for limit in 20 60 180; do # a machine too busy to start the ranks in time: longer
            start timeout 300 mpirun.openmpi "${args[@]}" --timeout $limit -np 2 "$sleeper"
            wait_ranks 2 soft && break
            wait_launcher
            [ "$limit" = 180 ] && fail "the ranks did not start within mpirun's timeout of 180 s"
        done
    else
        start timeout 300 mpirun.openmpi "${args[@]}" -np 3 "$sleeper"
        wait_ranks 3
        kill -KILL "${pids[0]}"
    fi
    wait_launcher
    [ "$rc" != 0 ] || fail "mpirun exited 0 after the job was killed"
    expect_clean
    ;;
dead_job_swept) # leftovers of a job whose watcher died too go at the next job's start;
    # those of a job whose alive file is held stay
    dead=$(printf '5ead%08x%04x' $((RANDOM * 32768 + RANDOM)) $$)
    live=$(printf '11fe%08x%04x' $((RANDOM * 32768 + RANDOM)) $$)
    (umask 077 && : >"/dev/shm/tw-$dead-alive" && : >"/dev/shm/tw-$dead-ep0-0" &&
        : >"/dev/shm/tw-$dead-heap0-0-1")
    # the holder: a process holding a shared lock on the live job's alive file, as a rank.
    # The file is locked under another name and then renamed into place, so that the
    # sweep of a job another test starts meanwhile never finds it unheld (and removes
    # the job as dead); the job's other objects come once it is there
    (umask 077 && exec 9>"/dev/shm/.tw-$live-alive" && flock -s 9 &&
        mv "/dev/shm/.tw-$live-alive" "/dev/shm/tw-$live-alive" && exec sleep 300) >/dev/null 2>&1 &
    holder=$!
    trap 'kill "$holder" 2>/dev/null; rm -f /dev/shm/tw-$live-* /dev/shm/.tw-$live-* /dev/shm/tw-$dead-*; cleanup' EXIT
    for _ in $(seq 600); do
        [ -e "/dev/shm/tw-$live-alive" ] && break
        sleep 0.1
    done
    [ -e "/dev/shm/tw-$live-alive" ] || fail "the holder did not lock the live job's alive file"
    (umask 077 && : >"/dev/shm/tw-$live-ep0-0" && : >"/dev/shm/tw-$live-heap0-0-1")
    start timeout 300 "$sleeper" 0
    wait_launcher
    [ "$rc" = 0 ] || fail "the job failed (exit $rc)"
    for _ in $(seq 600); do
        [ -e "/dev/shm/tw-$dead-ep0-0" ] || break
        sleep 0.1
    done
    left=$(find /dev/shm -maxdepth 1 -name "tw-$dead-*" -printf '%f ')
    [ -z "$left" ] || fail "a dead job's leftovers stayed: $left"
    for f in alive ep0-0 heap0-0-1; do
        [ -e "/dev/shm/tw-$live-$f" ] || fail "tw-$live-$f of a job whose alive file is held was removed"
    done
    echo "ok   $case_name: the dead job's objects removed, the held job's kept"
    ;;
*)
    echo "shm_watch_test.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
