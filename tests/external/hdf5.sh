#!/usr/bin/env bash
# HDF5, built with this build's mpicc in its parallel configuration, passes its
# parallel tests (testpar: the programs `make check` runs there) on 2 to 4 ranks under
# this build's mpiexec. The source is Debian's (apt-get source, which checks it against
# the archive's signed lists; deb-src must be enabled), pinned to the version measured
# in docs/io.md; when the archive has another, that one is built, its program list
# read from its testpar/Makefile.am. Only what the tests need is built (the library,
# test/libh5test, testpar), into BUILD/hdf5; it is configured with the high-level
# library too, which netcdf.sh builds and installs from the same tree.
# A program passes when it exits 0, with two exceptions taken from HDF5's own harness:
# t_pflush1 always exits non-zero (it leaves without MPI_Finalize on purpose;
# testpflush.sh ignores its status), so it passes when it printed PASSED and no
# error; a program that says it needs more ranks than it was given is a skip (t_cache,
# which then frees a datatype it never made and so exits non-zero under every MPI,
# t_pread on 2 ranks).
# usage: tests/external/hdf5.sh [--prepare] [BUILD] [RANKS...]   (default: build 2 3 4)
#   --prepare: only the source and the build, no tests
#   HDF5_TEST_TIMEOUT: seconds a program may run (default 1800; t_cache_image is the
#   slow one, 8 minutes and more on 2 busy cores)
#   HDF5_PROGRAMS: only these programs (names as in testpar), e.g. "testphdf5 t_cache"
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/external/common.sh
external_start hdf5.sh "$@"
ranks=("${rest[@]}")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 3 4)
version=1.10.8+repack1-1
work=$build/hdf5
timeout=${HDF5_TEST_TIMEOUT:-1800}

mkdir -p "$work"
src=$(debian_source hdf5.sh hdf5 "$version" "$work" configure)
obj=$work/obj
# configured again when mpi.h is newer than the configuration (what configure finds
# there decides what HDF5 builds; libmpi it loads at run time)
if [ ! -f "$obj/config.status" ] || [ include/mpi.h -nt "$obj/config.status" ]; then
    rm -rf "$obj" && mkdir -p "$obj"
    external_step hdf5.sh configure "$work/configure.log" "$obj" env CC="$build/bin/mpicc" \
        "$src/configure" --enable-parallel --enable-shared --disable-static --disable-fortran \
        --disable-cxx --disable-tools --disable-java --prefix="$work/install"
fi
# the programs testpar's `make check` runs (TEST_PROG_PARA), and the two of testpflush.sh
progs=($(awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }' "$src/testpar/Makefile.am" |
    sed -n 's/^TEST_PROG_PARA *= *//p') t_pflush1 t_pflush2)
[ -z "${HDF5_PROGRAMS:-}" ] || progs=($HDF5_PROGRAMS)
jobs=${HDF5_MAKE_JOBS:-2}
if ! { make -C "$obj/src" -j"$jobs" && make -C "$obj/test" -j"$jobs" libh5test.la &&
    make -C "$obj/testpar" -j"$jobs" "${progs[@]}"; } >"$work/build.log" 2>&1; then
    tail -30 "$work/build.log"
    echo "hdf5.sh: the build failed ($work/build.log)" >&2
    exit 1
fi
[ -z "$prepare" ] || exit 0

# run N PROG: PROG on N ranks in testpar (where its files go), its log in
# $work/test-N/PROG.log; prints one line and counts it
passed=0 failed=0 skipped=0
run() {
    local n=$1 prog=$2 log=$work/test-$1/$2.log status=0 verdict start
    start=$(date +%s)
    # line-buffered, so that what a rank printed before a fatal error is in the log
    (cd "$obj/testpar" && "$build/bin/mpiexec" -n "$n" --timeout "$timeout" stdbuf -oL ./"$prog") >"$log" 2>&1 ||
        status=$?
    if grep -qE "Need at least [0-9]+ processes" "$log"; then
        verdict=skip
    elif [ "$prog" = t_pflush1 ]; then
        grep -q PASSED "$log" && ! grep -q "ERROR" "$log" && verdict=pass || verdict=FAIL
    else
        [ $status = 0 ] && verdict=pass || verdict=FAIL
    fi
    case $verdict in
    pass) passed=$((passed + 1)) ;;
    skip) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
    printf 'hdf5: %d ranks: %-20s %s (exit %d, %ds)\n' "$n" "$prog" "$verdict" "$status" \
        $(($(date +%s) - start))
    if [ $verdict = FAIL ]; then
        tail -5 "$log" | sed 's/^/    /'
    fi
}
for n in "${ranks[@]}"; do
    mkdir -p "$work/test-$n"
    for prog in "${progs[@]}"; do
        run "$n" "$prog"
    done
done
echo "hdf5: $(basename "$src"), ranks ${ranks[*]}"
echo "hdf5: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
