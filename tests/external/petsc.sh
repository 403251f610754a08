#!/usr/bin/env bash
# PETSc, built with this build's mpicc, passes its own tests under this build's
# mpiexec: `make check` (the installation check: SNES ex19 on 1 and 2 ranks, ex5f
# on 1 with Fortran) and the
# test harness's tests of chosen directories (gmakefile.test: each test built, run on
# the ranks its source says, its output compared with the expected one). The source
# is Debian's (apt-get source, which checks it against the archive's signed lists;
# deb-src must be enabled), pinned to the version measured in docs/testing.md. PETSc
# is configured with debugging on (its own argument and MPI-use checks), its Fortran
# interface when BUILD has an mpifort, no C++ or X, reference BLAS and LAPACK
# (Debian's libblas-dev and liblapack-dev), and no external package, into
# BUILD/petsc/<source>/arch-test. A test that needs what is left out is a skip.
# usage: tests/external/petsc.sh [--prepare] [BUILD] [SEARCH...]
#   --prepare: only the source and the build, no tests
#   SEARCH: the harness's test globs (its `search`), default the list below: the star
#   forest (PetscSF: one-sided windows, neighbourhood collectives, persistent requests,
#   derived datatypes), vectors, the system tests (communicators, attributes, shared
#   memory), the data managers' tests and tutorials (distributed arrays: ghost
#   exchanges, scatters), matrices' tests ex1*, KSP's tutorials, SNES's tests and
#   tutorials ex19, ex5 and ex5f, and TS's tutorials (C, and Fortran when built with it)
#   PETSC_TEST_TIMEOUT: seconds a test may run (default 120)
#   PETSC_MAKE_JOBS: parallel compiles (default 2)
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/external/common.sh
external_start petsc.sh "$@"
searches=("${rest[@]}")
[ ${#searches[@]} -gt 0 ] || searches=('vec_is_sf_*' 'vec_vec_*' 'sys_tests-*' 'dm_tests-*'
    'dm_tutorials-*' 'mat_tests-ex1*' 'ksp_ksp_tutorials-*' 'snes_tests-*' 'snes_tutorials-ex19*'
    'snes_tutorials-ex5_*' 'snes_tutorials-ex5f*' 'ts_tutorials-*')
version=3.18.5+dfsg1-1
work=$build/petsc
arch=arch-test
jobs=${PETSC_MAKE_JOBS:-2}
fortran=0
[ ! -x "$build/bin/mpifort" ] || fortran="$build/bin/mpifort"

# BLAS and LAPACK to link (PETSc's configure would say so only after a minute)
if ! echo 'int main(void) { return 0; }' | cc -x c - -llapack -lblas -o /dev/null 2>/dev/null; then
    echo "petsc.sh: no BLAS and LAPACK to link: apt-get install libblas-dev liblapack-dev" >&2
    exit 2
fi
mkdir -p "$work"
src=$(debian_source petsc.sh petsc "$version" "$work" configure)
conf=$src/$arch/lib/petsc/conf/petscvariables
# configured again when mpi.h is newer than the configuration (what configure finds
# there decides what PETSc uses of MPI)
if [ ! -f "$conf" ] || [ include/mpi.h -nt "$conf" ]; then
    rm -rf "${src:?}/$arch"
    external_step petsc.sh configure "$work/configure.log" "$src" python3 ./configure \
        PETSC_ARCH="$arch" --with-cc="$build/bin/mpicc" --with-cxx=0 --with-fc="$fortran" \
        --with-mpiexec="$build/bin/mpiexec" --with-blaslapack-lib="-llapack -lblas" \
        --with-x=0 --with-debugging=1 --with-shared-libraries=1 --with-ssl=0 \
        --with-yaml=0 --with-hwloc=0 --with-cuda=0 --with-opencl=0
fi
external_step petsc.sh build "$work/build.log" "$src" \
    make PETSC_DIR="$src" PETSC_ARCH="$arch" MAKE_NP="$jobs" all
[ -z "$prepare" ] || exit 0
# Debian's tree links PETSc's programs without a run path (build-no-rpath.patch)
export LD_LIBRARY_PATH=$src/$arch/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

failed=0
echo "petsc: $(basename "$src"), make check"
if (cd "$src" && make PETSC_DIR="$src" PETSC_ARCH="$arch" check) >"$work/check.log" 2>&1 &&
    ! grep -qi "error\|fail" "$work/check.log"; then
    grep -i "completed\|run successfully" "$work/check.log" | sed 's/^/  /'
else
    tail -20 "$work/check.log"
    echo "petsc: make check failed ($work/check.log)"
    failed=1
fi

# the harness prints "# success N/M tests", "# failed ...", "# todo ...", "# skip ..."
for search in "${searches[@]}"; do
    log=$work/test-${search//[^A-Za-z0-9_-]/_}.log
    (cd "$src" && make -f gmakefile.test PETSC_DIR="$src" PETSC_ARCH="$arch" \
        TIMEOUT="${PETSC_TEST_TIMEOUT:-120}" MAKE_NP="$jobs" search="$search" showreport=-s test) >"$log" 2>&1 || true
    summary=$(sed -n '/^# *Summary/,$p' "$log" | grep -E '^# (success|failed|todo|skip)' | tr -s ' ' | tr '\n' ';' || true)
    printf 'petsc: %-24s %s\n' "$search" "${summary:-no summary: see $log}"
    if [ -z "$summary" ] || grep -qE '# failed [1-9]' <<<"$summary"; then
        failed=1
        grep -E '^ *not ok' "$log" | head -20 | sed 's/^/    /' || true
    fi
done
echo "petsc: logs in $work"
[ $failed = 0 ] # a search with a failed test, or whose harness gave no summary, fails
