#!/usr/bin/env bash
# PnetCDF (the classic netCDF formats written straight through MPI-IO, with its C,
# C++, Fortran 77 and Fortran 90 interfaces), built with this build's mpicc, mpicxx
# and mpifort, passes its own tests under this build's mpiexec: `make check` (each
# program on one rank, and the error-path tests), `make ptest` (4 ranks) and
# `make ptests` (3, 4, 6 and 8 ranks). The source is Debian's (apt-get source;
# deb-src must be enabled), pinned to the version measured in docs/io.md; Debian's
# tree has no configure, so autoreconf (autoconf, automake, libtool) makes it.
# usage: tests/external/pnetcdf.sh [--prepare] [BUILD] [TARGET...]
#   (default TARGET: check ptest ptests)
#   --prepare: only the source and the build, no tests
# Results: a line per target, its log in BUILD/pnetcdf/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/external/common.sh
external_start pnetcdf.sh "$@"
targets=("${rest[@]}")
[ ${#targets[@]} -gt 0 ] || targets=(check ptest ptests)
version=1.12.3-1
work=$build/pnetcdf
jobs=${PNETCDF_MAKE_JOBS:-2}
for tool in autoreconf libtoolize; do
    command -v $tool >/dev/null ||
        { echo "pnetcdf.sh: no $tool: apt-get install autoconf automake libtool" >&2; exit 2; }
done

mkdir -p "$work"
src=$(debian_source pnetcdf.sh pnetcdf "$version" "$work" configure.ac)
[ -x "$src/configure" ] || external_step pnetcdf.sh autoreconf "$work/autoreconf.log" "$src" autoreconf -fi
obj=$work/obj
if [ ! -f "$obj/config.status" ] || [ include/mpi.h -nt "$obj/config.status" ]; then
    rm -rf "$obj" && mkdir -p "$obj"
    external_step pnetcdf.sh configure "$work/configure.log" "$obj" "$src/configure" \
        MPICC="$build/bin/mpicc" MPICXX="$build/bin/mpicxx" MPIF77="$build/bin/mpifort" \
        MPIF90="$build/bin/mpifort" TESTMPIRUN="$build/bin/mpiexec -n NP" --prefix="$work/install"
fi
external_step pnetcdf.sh "the build" "$work/build.log" "$obj" make -j"$jobs"
[ -z "$prepare" ] || exit 0

status=0
for target in "${targets[@]}"; do
    start=$(date +%s) rc=0
    log=$work/$target.log
    make -C "$obj" "$target" >"$log" 2>&1 || rc=$?
    # each program prints a line ending in "pass", "skip" or "fail"/"FAIL", or
    # (the parallel examples) begins with PASS: or FAIL:
    pass=$(grep -cE -- '-+ pass$|^PASS:' "$log" || true)
    skip=$(grep -cE -- '-+ skip$|^SKIP:' "$log" || true)
    xfail=$(grep -c '^XFAIL:' "$log" || true) # failures the test expects
    fail=$(grep -ciE -- '-+ fail|^FAIL:|^ERROR:' "$log" || true)
    printf 'pnetcdf: %-6s %s programs passed, %s failed as expected, %s skipped, %s failed, make exit %d (%ds)\n' \
        "$target" "$pass" "$xfail" "$skip" "$fail" $rc $(($(date +%s) - start))
    grep -iE -- '-+ fail|^FAIL:|^ERROR:' "$log" | sed 's/^/    /' || true
    [ $rc = 0 ] && [ "$fail" = 0 ] || status=1
done
echo "pnetcdf: $(basename "$src"); logs in $work"
exit $status
