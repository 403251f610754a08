#!/usr/bin/env bash
# A gfortran-built Tollway used from LLVM flang through `mpifort -fc=FLANG`
# (docs/fortran.md, Compilers): mpif.h always (libmpifort's entry points serve both
# compilers); with the modules Tollway built for that flang (TW_FORTRAN_SECOND_COMPILER),
# `use mpi` and `use mpi_f08` too, sections included; without them, `use mpi` fails
# naming the module file, not misreading gfortran's.
#   second_compiler.sh BIN_DIR SOURCE_DIR WORK_DIR JOB_TIMEOUT [FLANG]
# FLANG: the second compiler Tollway was configured with, else the first flang on PATH;
# none: skipped (77).
set -euo pipefail
bin=$1 src=$2 work=$3 timeout=$4 fc=${5-}
fail() { echo "second_compiler.sh: FAILED: $*"; exit 1; }
if [ -z "$fc" ]; then
    fc=$(compgen -c flang | sort -u | grep -E '^flang(-new)?(-[0-9]+)?$' | head -n 1 || true)
fi
if [ -z "$fc" ] || ! command -v "$fc" >/dev/null; then
    echo "second_compiler.sh: SKIPPED: no LLVM flang installed (Debian: flang-19)"
    exit 77
fi
major=$("$fc" --version | sed -n '1s/.*flang\(-new\)\{0,1\} version \([0-9][0-9]*\).*/\2/p')
[ -n "$major" ] || fail "$fc --version names no flang version"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# build_run NAME SOURCE RANKS [EXTRA...]: built by mpifort -fc=$fc, run, its "ok" line seen
build_run() {
    local name=$1 source=$2 ranks=$3 out
    shift 3
    "$bin/mpifort" -fc="$fc" "$source" "$@" -o "$name" >"$name.build.log" 2>&1 ||
        { cat "$name.build.log"; fail "mpifort -fc=$fc $source"; }
    out=$("$bin/mpiexec" -n "$ranks" --timeout "$timeout" "./$name" 2>&1) ||
        { echo "$out"; fail "$name on $ranks ranks"; }
    grep -q "$name: ok on $ranks" <<<"$out" || { echo "$out"; fail "$name printed no ok line"; }
    echo "second_compiler.sh: $name built by $fc: ok on $ranks ranks"
}

build_run f77_basics "$src/f77_basics.f" 3
if [ -d "$("$bin/mpifort" -showme:libdirs)/fortran/LLVMFlang-$major" ]; then
    # the tests' shared check module, compiled first (test_check.mod)
    "$bin/mpifort" -fc="$fc" -c "$src/check.f90" -o check.o || fail "mpifort -fc=$fc check.f90"
    build_run f90_module "$src/f90_module.f90" 3
    # f08_module's C helper, by the C compiler mpicc runs
    "$bin/mpicc" -c "$src/f08_helpers.c" -o f08_helpers.o
    build_run f08_module "$src/f08_module.f90" 4 f08_helpers.o check.o
    build_run f08_sections "$src/f08_sections.f90" 3 check.o
else
    # no modules for this flang: gfortran's are not offered to it
    echo "program p; use mpi; end program" >use_mpi.f90
    if "$bin/mpifort" -fc="$fc" -c use_mpi.f90 >use_mpi.log 2>&1; then
        fail "use mpi compiled with $fc, which has no module files here"
    fi
    grep -q "mpi.mod' was not found" use_mpi.log || { cat use_mpi.log; fail "use mpi failed otherwise"; }
    echo "second_compiler.sh: no modules for $fc (configure with -DTW_FORTRAN_SECOND_COMPILER=$fc): use mpi fails naming mpi.mod"
fi
