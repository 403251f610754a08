#!/usr/bin/env bash
# Instructions per call of the smallest collectives on 2 ranks (Barrier, Bcast of 8 B,
# Allreduce and Reduce of a double) outside their wait, counted by callgrind for each
# build given: every function but the wait loop (coll_shm.c's run) and what it calls
# while it spins (progress, peek, relax), whose count grows with the time the other
# rank takes. Counts do not depend on timing, so they compare two builds on a busy
# machine where a 5 ns difference is lost in the noise; the figure is the mean of the
# two ranks, and with two builds the last column is second / first.
# TESTS may add the persistent forms (MPI_Start and MPI_Wait of a request made once):
# pbarrier, pbcast, pallreduce, preduce, and iallreduce (MPI_Iallreduce and MPI_Wait). Their
# wait is MPI_Wait's loop, whose every pass runs the schedules' progress hook
# (sched_progress, advance, tw_mpi_request_finished): those are taken out whole, so
# the figure leaves out advance's own few instructions per step (the steps' sends,
# receives and reductions it calls are counted).
# Larger calls and other rank counts wait in the segment's wait (wait_flags) or in a
# blocking schedule's loop (tw_sched_run), and ranks that outnumber cores in a wait
# that may sleep (tw_ep_relax_until, the bell, and shm_step, the lines' steps that
# run's loop runs inline otherwise), taken out the same way; a persistent call on the
# shared-memory lines takes the same steps (shm_step) and waits in their progress hook
# (shm_started_progress) or, behind it, in a blocking call (shm_finish_started), whose
# end (shm_started_finish: the reduction, the request) is counted.
# usage: bench/hotpath/coll_instructions.sh BUILD_DIR [BUILD_DIR2]
#   env: N (default 2000), NP (ranks, default 2), TESTS (default "barrier bcast allreduce reduce")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${N:-2000}
np=${NP:-2}
command -v valgrind >/dev/null || { echo "coll_instructions: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BUILD_DIR [BUILD_DIR2]" >&2; exit 2; }
waits='(:run |:tw_mpi_progress |:tw_velo_peek |:tw_ep_relax |:tw_mpi_relax|sched_yield|/coll_count\]|coll_count.c:|ld-linux|dl-)'
# MPI_Wait's loop over the schedules, in the non-blocking and persistent forms
waits=${waits%)}'|:tw_mpi_wait |:sched_progress |:advance |:tw_mpi_request_finished )'
# the segment's and a blocking schedule's waits, and the shared-memory lines' hook
waits=${waits%)}'|:wait_flags |:flags_reached |:tw_sched_run |:tw_ep_relax_until |:tw_bell_sleep |:syscall |:shm_step |:shm_started_progress |:shm_finish_started )'

# count BUILD: prints "collective instructions-per-call" lines
count() {
    local build work what
    build=$(cd "$1" && pwd)
    work=$(mktemp -d)
    local persistent=
    case " ${TESTS:-} " in *" p"*) persistent=-DCOUNT_PERSISTENT ;; esac
    "$build/bin/mpicc" -std=c11 -O2 $persistent -o "$work/coll_count" "$here/coll_count.c"
    for what in ${TESTS:-barrier bcast allreduce reduce}; do
        LD_LIBRARY_PATH="$build/lib" "$build/bin/twrun" -n "$np" --bind-to none \
            valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/$what.%p" \
            "$work/coll_count" "$what" "$n" 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
        for f in "$work/$what".*.1; do
            callgrind_annotate --inclusive=no --threshold=100 "$f" | sed -n '/file:function/,$p' |
                grep -Ev "$waits" | awk '/^ *[0-9,]+ / {gsub(",", "", $1); t += $1} END {print t}'
        done | awk -v w="$what" -v n="$n" '{t += $1; r++} END {printf "%s %.1f\n", w, t / r / n}'
    done
    rm -rf "$work"
}

a=$(count "$1")
if [ $# -eq 1 ]; then
    printf '%-12s %12s\n' collective "instr/call"
    awk '{printf "%-12s %12s\n", $1, $2}' <<<"$a"
    exit 0
fi
b=$(count "$2")
printf '%-12s %12s %12s %8s\n' collective first second ratio
join <(sort <<<"$a") <(sort <<<"$b") | awk '{printf "%-12s %12s %12s %8.3f\n", $1, $2, $3, $3 / $2}'
