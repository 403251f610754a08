#!/usr/bin/env bash
# A Tollway MPI program started by Open MPI's mpirun joins its job through PMIx:
# 2 ranks of collectives, 4 of point to point (also over udp), MPI_Abort ending the
# job, and MPI_Comm_spawn through PMIx_Spawn.
# usage: openmpi_test.sh BINDIR   (mpi_coll, mpi_p2p, mpi_abort, mpi_dynamic_*); 77 without mpirun.openmpi
set -euo pipefail
bindir=$(cd "${1:?usage: openmpi_test.sh BINDIR}" && pwd) # spawns need it absolute
mpirun=$(command -v mpirun.openmpi || true)
[ -n "$mpirun" ] || { echo "openmpi test skipped: mpirun.openmpi is not installed (openmpi-bin)"; exit 77; }
args=(--oversubscribe)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
# a test run inside another job must not hand its variables to mpirun's ranks
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(SLURM_|PMI_|PMIX_|OMPI_)' || true)
failed=0
# Open MPI 4.1's own runtime (ORTE) now and then leaves a spawned child's PMIx_Init
# unanswered on a loaded machine (once in a CI run; never in 12 runs alone or beside two
# busy loops): the child ends after 60 s naming it (pm_pmix.c's watchdog), and the job
# is run once more, saying so; a second such end, or any other failure, fails the test
pmix_unanswered="has not answered PMIx_Init"
run() {
    local name=$1 want=$2 expect=$3 out rc=0
    shift 3
    out=$(timeout 120 "$mpirun" "${args[@]}" "$@" 2>&1) || rc=$?
    if [ "$rc" != 0 ] && grep -qF -- "$pmix_unanswered" <<<"$out"; then
        echo "note $name: Open MPI's runtime left a PMIx_Init unanswered; run again"
        rc=0
        out=$(timeout 120 "$mpirun" "${args[@]}" "$@" 2>&1) || rc=$?
    fi
    if { [ "$want" = ok ] && [ "$rc" != 0 ]; } || { [ "$want" = fail ] && [ "$rc" = 0 ]; } ||
        ! grep -qF -- "$expect" <<<"$out"; then
        echo "FAIL $name (exit $rc, expected $want and '$expect')"
        echo "$out" | sed 's/^/    /' | tail -n 40
        failed=1
    else
        echo "ok   $name (exit $rc)"
    fi
}
run "coll on 2" ok "coll: 2 ranks ok" -np 2 "$bindir/mpi_coll"
run "p2p on 4" ok "p2p: all checks passed on 4 ranks" -np 4 "$bindir/mpi_p2p"
run "p2p on 4 over udp" ok "p2p: all checks passed on 4 ranks" -x TW_LINK=udp -np 4 "$bindir/mpi_p2p"
run "abort" fail "rank 1 called MPI_Abort(7)" -np 2 "$bindir/mpi_abort" abort
# PMIx_Spawn: 1, 3 and 1+2 children that talk to their parents; spawns two levels deep
run "spawn" ok "" -np 2 "$bindir/mpi_dynamic_spawn"
run "spawn nested" ok "" -np 3 "$bindir/mpi_dynamic_nest"
exit "$failed"
