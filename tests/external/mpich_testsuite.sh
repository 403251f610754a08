#!/usr/bin/env bash
# MPICH's own test suite (test/mpi of its source: some 1100 programs in C and Fortran,
# each run on the ranks its testlist says, passing when it prints "No Errors"), built
# with this build's mpicc and mpifort and run under this build's mpiexec. The source
# is Debian's (apt-get source, which checks it against the archive's signed lists;
# deb-src must be enabled), pinned to the version measured in docs/mpi.md.
# Configured as a strict MPI sees it: --enable-strictmpi (no MPIX_ calls, no MPICH
# internals), the threads tests at MPI_THREAD_MULTIPLE, no C++ (MPI-3 removed the C++
# bindings), no fault-tolerance tests. The spawn tests read MPI_UNIVERSE_SIZE and skip
# in a spawned job whose universe is full, so the jobs run with 8 slots on this host
# (--host localhost:8, Hydra's way of giving them): the parent then spawns and its
# children take part.
# Everything goes to BUILD/mpich-tests: the results as TAP (summary.tap: a failed
# program's output under its "not ok" line), XML and JUnit, and one line a test in
# run.log. Prints the counts.
# usage: tests/external/mpich_testsuite.sh [--prepare] [BUILD] [DIR...]
#   --prepare: only the source and the build, no tests
#   DIR: only these directories of test/mpi (e.g. "pt2pt coll f90/pt2pt"), each with
#   its testlist
#   MPITEST_TIMEOUT: seconds a program may run (default here 60)
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/external/common.sh
external_start mpich_testsuite.sh "$@"
dirs=("${rest[@]}")
version=4.0.2-3
work=$build/mpich-tests
export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-60}

mkdir -p "$work"
tests=$(debian_source mpich_testsuite.sh mpich "$version" "$work" test/mpi/configure)/test/mpi
# configured again when mpi.h is newer than the configuration (what configure finds
# there decides which tests build)
if [ ! -f "$tests/config.status" ] || [ include/mpi.h -nt "$tests/config.status" ]; then
    (cd "$tests" && ./configure --with-mpi="$build" --disable-cxx --enable-fortran=all \
        --enable-strictmpi --enable-threads=multiple --disable-ft-tests \
        >"$work/configure.log" 2>&1) ||
        { tail -30 "$work/configure.log"; echo "mpich_testsuite.sh: configure failed ($work/configure.log)" >&2; exit 1; }
fi
# -k: a program that does not compile is a failed test of its own (runtests says so)
make -C "$tests" -k -j"${MPICH_TESTS_MAKE_JOBS:-2}" >"$work/build.log" 2>&1 || true
[ -z "$prepare" ] || exit 0

only=()
[ ${#dirs[@]} -eq 0 ] || only=(-testdirs="$(IFS=,; echo "${dirs[*]}")")
(cd "$tests" && RUNTESTS_SHOWPROGRESS=1 MPITEST_MPIEXECARG="--host localhost:8" \
    ./runtests -srcdir=. -tests=testlist "${only[@]}" -mpiexec="$build/bin/mpiexec" \
    -xmlfile="$work/summary.xml" -tapfile="$work/summary.tap" \
    -junitfile="$work/summary.junit.xml") >"$work/run.log" 2>&1 || true
passed=$(grep -c '^ok ' "$work/summary.tap" || true)
skipped=$(grep -c '^ok .*# SKIP' "$work/summary.tap" || true)
failed=$(grep -c '^not ok ' "$work/summary.tap" || true)
echo "mpich_testsuite.sh: MPICH $version's test suite: $((passed - skipped)) passed," \
    "$failed failed, $skipped skipped ($work/summary.tap)"
# (a run without a failure is a success: grep finding nothing is no error)
{ grep '^not ok ' "$work/summary.tap" || true; } | awk '{print "  failed: " $4 " on " $5 " ranks"}'
