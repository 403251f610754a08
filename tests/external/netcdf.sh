#!/usr/bin/env bash
# NetCDF-C, built with this build's mpicc on HDF5's parallel configuration (hdf5.sh's
# tree, its library and high-level library installed into BUILD/hdf5/install), passes
# `make check` in the directories that hold its parallel tests: h5_test (HDF5 alone,
# tst_h_par), nc_test4 (netCDF-4 files through MPI-IO: run_par_test.sh, up to 16
# ranks, beside the directory's serial tests) and examples/C (parallel_vara), each
# parallel program started by this build's mpiexec. The source is Debian's (apt-get
# source; deb-src must be enabled), pinned to the version measured in docs/io.md.
# Remote data (DAP, byte ranges), NCZarr and plugins are left out: they test no MPI.
# usage: tests/external/netcdf.sh [--prepare] [BUILD] [DIR...]
#   (default DIR: h5_test nc_test4 examples/C)
#   --prepare: only the sources and the builds, no tests
# Results: a line per directory; each directory's test-suite.log under BUILD/netcdf.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/external/common.sh
external_start netcdf.sh "$@"
dirs=("${rest[@]}")
[ ${#dirs[@]} -gt 0 ] || dirs=(h5_test nc_test4 examples/C)
version=1:4.9.0-3
work=$build/netcdf
jobs=${NETCDF_MAKE_JOBS:-2}

# HDF5 with its high-level library (netCDF-4 needs both), installed once
bash tests/external/hdf5.sh --prepare "$build"
hdf5=$build/hdf5/install
if [ ! -f "$hdf5/lib/libhdf5_hl.so" ] || [ "$build/hdf5/obj/src/.libs/libhdf5.so" -nt "$hdf5/lib/libhdf5_hl.so" ]; then
    external_step netcdf.sh "HDF5's install" "$build/hdf5/install.log" "$build/hdf5/obj" \
        sh -c "make -C src install && make -C hl/src -j$jobs install"
fi

mkdir -p "$work"
src=$(debian_source netcdf.sh netcdf "$version" "$work" configure)
obj=$work/obj
if [ ! -f "$obj/config.status" ] || [ "$hdf5/lib/libhdf5.so" -nt "$obj/config.status" ]; then
    rm -rf "$obj" && mkdir -p "$obj"
    external_step netcdf.sh configure "$work/configure.log" "$obj" env CC="$build/bin/mpicc" \
        CPPFLAGS="-I$hdf5/include" LDFLAGS="-L$hdf5/lib -Wl,-rpath,$hdf5/lib" \
        "$src/configure" --enable-parallel-tests --with-mpiexec="$build/bin/mpiexec" \
        --disable-dap --disable-byterange --disable-nczarr --disable-plugins \
        --disable-filter-testing --disable-shared --prefix="$work/install"
    grep -q "^#define USE_PARALLEL 1" "$obj/config.h" ||
        { echo "netcdf.sh: configure did not find parallel HDF5 ($work/configure.log)" >&2; exit 1; }
fi
external_step netcdf.sh "the build" "$work/build.log" "$obj" make -j"$jobs"
[ -z "$prepare" ] || exit 0

status=0
for d in "${dirs[@]}"; do
    start=$(date +%s)
    log=$work/check-${d//\//_}.log
    make -C "$obj/$d" -j1 check >"$log" 2>&1 || status=1
    counts=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\): *\([0-9]*\)/\1 \2/p' "$obj/$d/test-suite.log" 2>/dev/null |
        tr '\n' ' ' || true)
    printf 'netcdf: %-12s %s(%ds)\n' "$d" "${counts:-no test-suite.log }" $(($(date +%s) - start))
    grep -E "^(FAIL|ERROR):" "$log" | sed 's/^/    /' || true
done
echo "netcdf: $(basename "$src"); logs in $work and $obj/DIR/test-suite.log"
exit $status
