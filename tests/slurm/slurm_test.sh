#!/usr/bin/env bash
# Tollway jobs launched by Slurm on this machine: starts munged, slurmctld and slurmd
# with the configuration beside this script (slurm.conf.in, everything in a temporary
# directory), runs 4-rank MPI jobs under srun --mpi=pmi2 and srun --mpi=pmix (point to
# point, collectives, also over udp, MPI_Abort), spawns under pmi2 (and their refusal
# by Slurm's PMIx server), checks that srun --mpi=none is refused with the reason,
# runs a program built by mpicc.mpich on Tollway's face of MPICH's ABI (through mpiexec
# and through srun with the faces directory on LD_LIBRARY_PATH),
# and stops every daemon it started, whatever happens.
# usage: slurm_test.sh BINDIR   (BINDIR holds mpi_p2p, mpi_coll, mpi_abort and
# mpi_dynamic_spawn, mpi_dynamic_nest)
# SLURM_TEST_VERBOSE=1 shows the output of the steps that passed too.
# Needs root, slurmd slurmctld slurm-client munge; exits 77 when something is absent.
set -euo pipefail

bindir=$(cd "${1:?usage: slurm_test.sh BINDIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
skip() {
    echo "slurm test skipped: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "it needs root to start slurmctld and slurmd"
for cmd in munged slurmctld slurmd srun scontrol sinfo; do
    command -v "$cmd" >/dev/null ||
        skip "$cmd is not installed (apt-get install slurmd slurmctld slurm-client munge)"
done
for prog in mpi_p2p mpi_coll mpi_abort mpi_dynamic_spawn mpi_dynamic_nest; do
    [ -x "$bindir/$prog" ] || { echo "slurm test: $bindir/$prog is missing" >&2; exit 1; }
done

dir=$(mktemp -d /tmp/tollway-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
failed=0
stop_daemons() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        # bounded: a daemon that ignores SIGTERM for 10 s gets SIGKILL
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$failed" != 0 ]; then
        for log in "$dir"/*.log "$dir"/munge/*.log; do
            [ -f "$log" ] && { echo "--- $log (last lines)"; tail -n 30 "$log"; }
        done
    fi
    rm -rf "$dir"
}
trap stop_daemons EXIT
trap 'exit 1' INT TERM

# munge: a key and a socket of its own
mkdir -m 711 "$dir/munge" # the socket in it reachable, the key not
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --foreground --force --socket="$dir/munge/munge.socket" \
    --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
    >"$dir/munge/munged.stderr" 2>&1 &
pids+=($!)

# ports away from Slurm's defaults, different for runs at once on one machine: the
# first pair from this process's own that nothing listens on (a port taken makes
# slurmctld exit with "Address already in use")
port_taken() { ss -Htan "( sport = :$1 )" 2>/dev/null | grep -q .; }
base=
for k in $(seq 0 63); do
    b=$((20000 + (($$ + k * 37) % 2000) * 8))
    port_taken "$b" || port_taken $((b + 1)) || { base=$b; break; }
done
[ -n "$base" ] || { failed=1; echo "slurm test: no free pair of ports found" >&2; exit 1; }
host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
sed -e "s|@HOST@|$host|g" -e "s|@DIR@|$dir|g" -e "s|@CTLD_PORT@|$base|g" \
    -e "s|@SLURMD_PORT@|$((base + 1))|g" \
    "$here/slurm.conf.in" >"$dir/slurm.conf"
# a test run inside another job (a Slurm step, an mpirun) must not take its variables
# along into this cluster's steps
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(SLURM_|SALLOC_|SBATCH_|SRUN_|PMI_|PMIX_|OMPI_)' | grep -vx SLURM_TEST_VERBOSE || true)
unset TW_LAUNCHER # mpiexec inside this cluster's allocations decides for itself (make test sets fork)
export SLURM_CONF=$dir/slurm.conf
for _ in $(seq 100); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$dir/munge/munge.socket" ] || { failed=1; echo "slurm test: munged did not start" >&2; exit 1; }

slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.stderr" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$dir/slurmd.stderr" 2>&1 &
pids+=($!)

# wait_idle SECONDS: until the node is idle (no job on it, none completing), within
# SECONDS of wall time; a daemon that exited ends the wait. $state says what it was.
wait_idle() {
    local deadline=$((SECONDS + $1)) pid
    state=
    while [ $SECONDS -lt $deadline ]; do
        state=$(timeout 10 sinfo -h -N -o %T 2>/dev/null || true)
        [ "$state" = idle ] && return 0
        for pid in "${pids[@]}"; do
            kill -0 "$pid" 2>/dev/null || { state="a daemon (pid $pid) exited"; return 1; }
        done
        sleep 0.5
    done
    return 1
}
wait_idle 120 || true
if [ "$state" != idle ]; then
    failed=1
    echo "slurm test: the node did not become idle (state: '${state:-no answer}')" >&2
    exit 1
fi
echo "slurm test: node $host idle, Slurm $(srun --version)"

# run [!] NAME EXPECT [UNWANTED] -- COMMAND...: the output must hold EXPECT (and not
# UNWANTED); with "!" the command must fail (non-zero), else succeed.
run() {
    local want_fail=0 unwanted=
    if [ "$1" = "!" ]; then want_fail=1; shift; fi
    local name=$1 expect=$2 out rc=0
    shift 2
    if [ "$1" != "--" ]; then unwanted=$1; shift; fi
    shift
    out=$(timeout 180 "$@" 2>&1) || rc=$?
    if [ "$want_fail" = 1 ] && [ "$rc" = 0 ]; then
        echo "FAIL $name: exit 0, a failure was expected"; failed=1
    elif [ "$want_fail" = 0 ] && [ "$rc" != 0 ]; then
        echo "FAIL $name: exit $rc"; failed=1
    elif ! grep -qF -- "$expect" <<<"$out"; then
        echo "FAIL $name: the output lacks '$expect'"; failed=1
    elif [ -n "$unwanted" ] && grep -qF -- "$unwanted" <<<"$out"; then
        echo "FAIL $name: the output holds '$unwanted'"; failed=1
    else
        echo "ok   $name (exit $rc)"
        [ -z "${SLURM_TEST_VERBOSE:-}" ] && return 0
    fi
    echo "$out" | sed 's/^/    /' | tail -n 40
}

mpis=$(srun --mpi=list 2>&1 || true)
for mpi in pmi2 pmix; do
    if ! grep -qw "$mpi" <<<"$mpis"; then
        echo "FAIL: srun offers no --mpi=$mpi (srun --mpi=list: $mpis)"
        failed=1
        continue
    fi
    run "$mpi p2p" "p2p: all checks passed on 4 ranks" -- srun --mpi="$mpi" -n 4 "$bindir/mpi_p2p"
    run "$mpi coll" "coll: 4 ranks ok" -- srun --mpi="$mpi" -n 4 "$bindir/mpi_coll"
    run ! "$mpi abort" "rank 1 called MPI_Abort(7)" -- srun --mpi="$mpi" -n 4 "$bindir/mpi_abort" abort
    # the manager says all 4 ranks are on this node: no udp link is opened
    run "$mpi one node, shm only" "coll: 4 ranks ok" "links:" -- \
        env TW_STATS=1 srun --mpi="$mpi" -n 4 "$bindir/mpi_coll"
    # over udp the link is kept going while a rank waits in a fence
    run "$mpi p2p over udp" "p2p: all checks passed on 4 ranks" -- \
        env TW_LINK=udp srun --mpi="$mpi" -n 4 "$bindir/mpi_p2p"
done
# spawns through the pmi2 plugin run another srun in the allocation: it needs room and
# may share the CPUs of the running step (SLURM_OVERLAP, inherited by that srun)
run "pmi2 spawn nested" "" -- env SLURM_OVERLAP=1 salloc -Q -n 12 \
    srun --mpi=pmi2 -n 3 "$bindir/mpi_dynamic_nest"
run ! "pmix spawn refused" "PMIx_Spawn" -- \
    srun --mpi=pmix -n 2 "$bindir/mpi_dynamic_spawn"
run ! "none refused" "run with srun --mpi=pmi2 or srun --mpi=pmix" -- \
    srun --mpi=none -n 2 "$bindir/mpi_p2p"
# a step of one task, and a batch script's own process, are jobs of one
run "none, one task" "coll: 1 ranks ok" -- srun --mpi=none -n 1 "$bindir/mpi_coll"
run "batch script" "coll: 1 ranks ok" -- bash -c "sbatch -n 4 --wait -Q -o '$dir/batch.out' \
    --wrap 'env | grep ^SLURM_; $bindir/mpi_coll' && cat '$dir/batch.out'"

# ---- mpiexec (twrun) inside an allocation: it hands the job to srun ----
# salloc's shell has SLURM_JOB_ID and no SLURM_STEP_ID: mpiexec without -n runs a rank
# per task, through srun (the size the ranks see is checked); more ranks than tasks are
# refused with the count and the variable; -x reaches the ranks (a value with ',' too);
# -v shows the srun line; -launcher fork runs here; inside a step (srun mpiexec) and a
# batch script's mpiexec behave as they must; --timeout ends srun (exit status 124).
salloc_mpiexec_steps() {
    local mpiexec=$bindir/mpiexec
    if [ ! -x "$mpiexec" ]; then
        echo "FAIL salloc mpiexec: $mpiexec is missing"; failed=1; return
    fi
    run "salloc mpiexec, a rank per task" "p2p: all checks passed on 4 ranks" -- \
        salloc -Q -n 4 "$mpiexec" "$bindir/mpi_p2p"
    run ! "salloc mpiexec, more ranks than tasks" \
        "not enough slots: 6 ranks asked for (-n 6), but Slurm job" "p2p:" -- \
        salloc -Q -n 2 "$mpiexec" -n 6 "$bindir/mpi_p2p"
    run "salloc mpiexec, the message names the variable" "holds 2 tasks (SLURM_NTASKS=2)" -- \
        bash -c "salloc -Q -n 2 '$mpiexec' -n 6 '$bindir/mpi_p2p' 2>&1; exit 0"
    run "salloc mpiexec -n 2 of 2" "coll: 2 ranks ok" -- \
        salloc -Q -n 2 "$mpiexec" -n 2 "$bindir/mpi_coll"
    run "salloc mpiexec -x" "rank 1 of 2: TW_X=a,b Y=yes" "TW_NONE set" -- \
        env Y=yes salloc -Q -n 2 "$mpiexec" -x TW_X=a,b -x Y -x TW_NONE -l \
        sh -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS: TW_X=$TW_X Y=$Y${TW_NONE+ TW_NONE set}"'
    # a setting the MPI ranks refuse: it reached them
    run ! "salloc mpiexec -x, MPI ranks" "invalid TW_COLL_BCAST='nope'" "coll: 4 ranks ok" -- \
        salloc -Q -n 4 "$mpiexec" -x TW_COLL_BCAST=nope "$bindir/mpi_coll"
    run "salloc mpiexec -v" "running: srun --mpi=" -- \
        salloc -Q -n 2 "$mpiexec" -v "$bindir/mpi_coll"
    run "salloc mpiexec -launcher fork" "coll: 3 ranks ok" -- \
        salloc -Q -n 1 "$mpiexec" -launcher fork -n 3 "$bindir/mpi_coll"
    run "salloc TW_LAUNCHER=fork" "coll: 3 ranks ok" -- \
        env TW_LAUNCHER=fork salloc -Q -n 1 "$mpiexec" -n 3 "$bindir/mpi_coll"
    # srun started mpiexec: its ranks are its own, no srun within srun
    run "srun mpiexec, no recursion" "coll: 3 ranks ok" "running: srun" -- \
        salloc -Q -n 2 srun -n 1 "$mpiexec" -v -n 3 "$bindir/mpi_coll"
    run "batch script mpiexec" "p2p: all checks passed on 3 ranks" -- \
        bash -c "sbatch -n 3 --wait -Q -o '$dir/batch-mpiexec.out' \
            --wrap '$mpiexec $bindir/mpi_p2p' ; cat '$dir/batch-mpiexec.out'"
    run ! "salloc mpiexec --timeout" "job exceeded --timeout 2 s" -- \
        salloc -Q -n 1 "$mpiexec" --timeout 2 sleep 120
    # MPI_UNIVERSE_SIZE: through mpiexec the allocation's tasks; started by srun itself
    # what Slurm's PMI-2 and PMIx say, the step's
    run "salloc mpiexec, universe of the allocation" "MPI_UNIVERSE_SIZE 4" -- \
        salloc -Q -n 4 "$mpiexec" -n 2 "$bindir/mpi_defects_universe_size" print
    run "salloc srun pmi2, universe of the step" "MPI_UNIVERSE_SIZE 2" -- \
        salloc -Q -n 4 srun --mpi=pmi2 -n 2 "$bindir/mpi_defects_universe_size" print
}
salloc_mpiexec_steps

# ---- a program built for MPICH's ABI (Debian's mpicc.mpich) on Tollway's face ----
# through mpiexec in an allocation (twrun checks it and hands srun the faces directory)
# and started by srun itself with the one documented setting (docs/launching.md)
abi_steps() {
    local src prog=$dir/abi_hello_mpich abidir
    src=$(cd "$(dirname "$0")/../launcher" && pwd)/abi_hello.c
    if ! command -v mpicc.mpich >/dev/null; then
        echo "skip abi: no mpicc.mpich (Debian's libmpich-dev)"; return
    fi
    mpicc.mpich -o "$prog" "$src" || { echo "FAIL abi: mpicc.mpich $src"; failed=1; return; }
    abidir=$("$bindir/twinfo" --abi-dir)
    run "salloc mpiexec, a program of MPICH's" "rank 1 of 2: Tollway MPI" -- \
        salloc -Q -n 2 "$bindir/mpiexec" "$prog"
    run "srun pmi2, a program of MPICH's with the faces directory" "rank 1 of 2: Tollway MPI" -- \
        env LD_LIBRARY_PATH="$abidir" srun --mpi=pmi2 -n 2 "$prog"
}
abi_steps

# ---- a killed job leaves nothing in /dev/shm (the node's watcher, src/link/shm/watch.c) ----
# shm_after_scancel MPI: a 2-rank step of mpi_shm_sleeper under srun --mpi=MPI is
# scancel'ed once its ranks have printed the job id; within 60 s, no rank of it may
# live and no object of it may stay in /dev/shm
shm_after_scancel() {
    local mpi=$1 name="tw-shm-$1-$$" out="$dir/shm-$1.out" srun_pid job lines=0 left=
    if [ ! -x "$bindir/mpi_shm_sleeper" ]; then
        echo "FAIL $mpi scancel: $bindir/mpi_shm_sleeper is missing"; failed=1; return
    fi
    # the job scancel'ed before this one gone: a step sent to a node still completing
    # one was refused ("task launch failed: Unspecified error") in one run of many
    wait_idle 60 || true
    timeout 300 srun --mpi="$mpi" -n 2 -J "$name" "$bindir/mpi_shm_sleeper" >"$out" 2>&1 &
    srun_pid=$!
    for _ in $(seq 1200); do
        lines=$(grep -c '^shm_sleeper: rank' "$out" 2>/dev/null || true)
        [ "$lines" -ge 2 ] && break
        kill -0 "$srun_pid" 2>/dev/null || break
        sleep 0.1
    done
    job=$(awk '/^shm_sleeper: rank/ {print $7}' "$out" | sort -u)
    if [ "$lines" -lt 2 ] || ! [[ $job =~ ^[0-9a-f]+$ ]]; then
        echo "FAIL $mpi scancel: the step's 2 ranks did not start (or disagree on the job id)"
        sed 's/^/    /' "$out" | tail -n 20
        kill -9 "$srun_pid" 2>/dev/null || true
        failed=1
        return
    fi
    compgen -G "/dev/shm/tw-$job-ep*" >/dev/null ||
        { echo "FAIL $mpi scancel: the job has no object in /dev/shm to leave"; failed=1; }
    scancel -n "$name" || true
    wait "$srun_pid" || true
    for _ in $(seq 600); do
        left=$(find /dev/shm -maxdepth 1 \( -name "tw-$job-*" -o -name "tollway-ids-*-$job" \) -printf '%f ')
        for pid in $(awk '/^shm_sleeper: rank/ {print $5}' "$out"); do
            [ -d "/proc/$pid" ] && ! grep -q '^State:.*zombie' "/proc/$pid/status" 2>/dev/null &&
                left="$left rank-pid:$pid"
        done
        [ -z "${left// /}" ] && break
        sleep 0.1
    done
    if [ -n "${left// /}" ]; then
        echo "FAIL $mpi scancel: 60 s after scancel, still there: $left"
        failed=1
    else
        echo "ok   $mpi scancel: job $job left nothing in /dev/shm"
    fi
}
for mpi in pmi2 pmix; do
    grep -qw "$mpi" <<<"$mpis" && shm_after_scancel "$mpi"
done
# ---- end of the /dev/shm checks ----

exit "$failed"
