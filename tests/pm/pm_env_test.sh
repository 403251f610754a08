#!/usr/bin/env bash
# An MPI program started with the environment of a process manager it cannot reach
# stops at once with the reason and a non-zero exit; one started alone, or as the only
# task of a step, runs as a job of one. The environments are made up here: no
# manager runs.
# usage: pm_env_test.sh PROGRAM HAVE_PMIX   (PROGRAM: mpi_coll; HAVE_PMIX: 1 or 0)
set -euo pipefail
prog=${1:?usage: pm_env_test.sh PROGRAM HAVE_PMIX}
have_pmix=${2:?usage: pm_env_test.sh PROGRAM HAVE_PMIX}
failed=0

# check NAME ok|fail EXPECT VAR=VALUE...: runs PROGRAM with only PATH, HOME and the
# variables given, bounded by a timeout (a hang is a failure too)
check() {
    local name=$1 want=$2 expect=$3 out rc=0
    shift 3
    out=$(env -i PATH="$PATH" HOME="${HOME:-/}" "$@" timeout 60 "$prog" 2>&1) || rc=$?
    if [ "$rc" = 124 ]; then
        echo "FAIL $name: still running after 60 s"; failed=1
    elif [ "$want" = ok ] && [ "$rc" != 0 ]; then
        echo "FAIL $name: exit $rc"; failed=1
    elif [ "$want" = fail ] && [ "$rc" = 0 ]; then
        echo "FAIL $name: exit 0, an error was expected"; failed=1
    elif ! grep -qF -- "$expect" <<<"$out"; then
        echo "FAIL $name: the output lacks '$expect'"; failed=1
    else
        echo "ok   $name (exit $rc)"
        return 0
    fi
    echo "$out" | sed 's/^/    /'
}

check "alone" ok "coll: 1 ranks ok"
check "slurm step of one task" ok "coll: 1 ranks ok" \
    SLURM_JOB_ID=42 SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_NTASKS=4 SLURM_PROCID=0
check "slurm batch script" ok "coll: 1 ranks ok" \
    SLURM_JOB_ID=42 SLURM_NTASKS=4 SLURM_PROCID=0 SLURM_LOCALID=0
check "srun --mpi=none" fail "run with srun --mpi=pmi2 or srun --mpi=pmix" \
    SLURM_JOB_ID=42 SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2 SLURM_PROCID=1
check "open mpi without pmix" fail "started by Open MPI's mpirun" \
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1
check "pmi without PMI_FD" fail "PMI_SIZE=2 is set" PMI_RANK=1 PMI_SIZE=2
check "PMI_FD not a number" fail "PMI_FD, PMI_RANK and PMI_SIZE must be set" \
    PMI_FD=x PMI_RANK=0 PMI_SIZE=2
if [ "$have_pmix" = 1 ]; then
    check "pmix server gone" fail "its server cannot be reached" \
        PMIX_NAMESPACE=gone PMIX_RANK=0 "PMIX_SERVER_URI41=gone.0;tcp4://127.0.0.1:1"
    check "pmix, no server address" fail "its server cannot be reached" \
        PMIX_NAMESPACE=gone PMIX_RANK=1
else
    check "pmix in a build without it" fail "has no PMIx client" \
        PMIX_NAMESPACE=gone PMIX_RANK=0
fi
exit "$failed"
