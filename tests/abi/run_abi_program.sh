#!/bin/sh
# Builds abi_program.c (or .F90) with an MPI's mpicc_abi, mpicc (or mpifort) and runs it on Tollway through
# the face of its ABI: it must pass every check and report Tollway's library version.
# With TOOL (abi_tool.c), that PMPI tool is built by the same wrapper and preloaded:
# it must see the program's MPI_Send calls.
# usage: run_abi_program.sh MPICC SOURCE BINARY RANKS MPIEXEC FACE_LIBDIR JOB_TIMEOUT [TOOL]
# env: ABI_PROGRAM_LIBRARY, a system library the program links (scalapack-openmpi);
# ABI_PROGRAM_FLAGS, more options for the wrapper
# MPICC is a path or a command on the PATH (mpicc.mpich). FACE_LIBDIR "-" sets nothing:
# the launcher must find the face by itself; then nothing on stderr may be the loader's
# complaint about a copy relocation's size (a predefined object of Open MPI's face not
# of the size Open MPI gives it). Exits 77 (skipped) when MPICC is not there.
set -u
wrapper=$1 source=$2 binary=$3 ranks=$4 mpiexec=$5 libdir=$6 timeout=$7 tool=${8:-}
if ! command -v "$wrapper" >/dev/null 2>&1; then
    echo "SKIP: $wrapper is not installed: the program cannot be built with it"
    exit 77
fi
# a directory of its own: a wrapper may leave its objects in the current one (h5pcc's
# abi_hdf5.o), which the tests of other rank counts share
mkdir -p "$binary.dir" && cd "$binary.dir" || { echo "FAIL: no directory $binary.dir"; exit 1; }
flags=
case $source in
# a program through mpif.h passes an INTEGER to MPI_SEND in one place and a REAL in
# another, which gfortran 10 and later reject without this (Open MPI's mpifort does not
# add it, MPICH's does)
*.F90) flags=-fallow-argument-mismatch ;;
esac
# ABI_PROGRAM_LIBRARY: a library of the system the program links (-l), skipped when absent
libs=
if [ -n "${ABI_PROGRAM_LIBRARY:-}" ]; then
    if ! ldconfig -p | grep -q "lib$ABI_PROGRAM_LIBRARY\.so "; then
        echo "SKIP: lib$ABI_PROGRAM_LIBRARY.so is not installed"
        exit 77
    fi
    libs=-l$ABI_PROGRAM_LIBRARY
fi
# ABI_PROGRAM_FLAGS: more options for the wrapper (h5pcc's -shlib)
"$wrapper" -O2 $flags ${ABI_PROGRAM_FLAGS:-} -o "$binary" "$source" $libs || { echo "FAIL: $wrapper could not build $source"; exit 1; }
preload=
if [ -n "$tool" ]; then
    "$wrapper" -O2 -shared -fPIC -o "$binary.tool.so" "$tool" || { echo "FAIL: $wrapper could not build $tool"; exit 1; }
    preload=$binary.tool.so
fi
if [ "$libdir" = - ]; then
    # nothing set: the launcher finds the face the program needs by itself
    out=$(LD_PRELOAD="$preload" "$mpiexec" -n "$ranks" --timeout "$timeout" "$binary" 2>&1)
else
    out=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$preload" \
        "$mpiexec" -n "$ranks" --timeout "$timeout" "$binary" 2>&1)
fi
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || { echo "FAIL: the program built by $wrapper ended with status $status"; exit 1; }
printf '%s\n' "$out" | grep -q '^library: Tollway' ||
    { echo "FAIL: MPI_Get_library_version is not Tollway's: the program ran on another MPI"; exit 1; }
if printf '%s\n' "$out" | grep -q "has different size"; then
    echo "FAIL: the loader says a symbol of the face has another size than the program's copy"
    exit 1
fi
printf '%s\n' "$out" | grep -q "every check passed" || { echo "FAIL: the program did not finish its checks"; exit 1; }
if [ -n "$tool" ]; then
    printf '%s\n' "$out" | grep -Eq '^abi_tool: rank 0 saw [1-9][0-9]* MPI_Send calls' ||
        { echo "FAIL: the preloaded PMPI tool did not see the program's MPI_Send calls"; exit 1; }
fi
