#!/bin/sh
# Runs Debian's mpi4py (python3-mpi4py, built against Open MPI) on 2 ranks with Tollway's
# face of Open MPI's ABI, with nothing set: the launcher sees a python that needs no MPI
# library and puts the faces directory on its path for the module that does.
# usage: run_abi_mpi4py.sh PYTHON SCRIPT MPIEXEC JOB_TIMEOUT WORKDIR
# Exits 77 (skipped) when PYTHON has no mpi4py.
set -u
python=$1 script=$2 mpiexec=$3 timeout=$4 work=$5
if ! "$python" -c "import mpi4py" 2>/dev/null; then
    echo "SKIP: $python has no mpi4py (apt-get install python3-mpi4py)"
    exit 77
fi
mkdir -p "$work"
out=$("$mpiexec" -n 2 --timeout "$timeout" "$python" "$script" "$work/abi_mpi4py.dat" 2>&1)
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || { echo "FAIL: mpi4py's job ended with status $status"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c '^mpi4py rank [01]: every check passed$')
[ "$n" -eq 2 ] || { echo "FAIL: $n of 2 ranks passed every check"; exit 1; }
