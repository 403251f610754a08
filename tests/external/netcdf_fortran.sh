#!/usr/bin/env bash
# NetCDF-Fortran (the Fortran 77 and Fortran 90 interfaces of netCDF), built with this
# build's mpicc and mpifort on netcdf.sh's NetCDF-C (installed into
# BUILD/netcdf/install, on hdf5.sh's parallel HDF5), passes its own `make check`: the
# classic and netCDF-4 tests of both interfaces, their parallel I/O tests (4 and 8
# ranks through MPI-IO, nf_test4 and nf03_test4) and the examples, every parallel
# program started by this build's mpiexec (put first on PATH: some of the tests call
# plain mpiexec). The source is Debian's (apt-get source; deb-src must be enabled),
# pinned to the version measured in docs/io.md.
# usage: tests/external/netcdf_fortran.sh [--prepare] [BUILD]
#   --prepare: only the sources and the builds, no tests
# Results: a line per test directory; each directory's test-suite.log under
# BUILD/netcdf-fortran/obj.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/external/common.sh
external_start netcdf_fortran.sh "$@"
version=4.6.0+really4.5.4+ds-3
work=$build/netcdf-fortran
jobs=${NETCDF_MAKE_JOBS:-2}

# NetCDF-C, built by netcdf.sh and installed once
bash tests/external/netcdf.sh --prepare "$build"
nc=$build/netcdf/install
if [ ! -f "$nc/lib/libnetcdf.a" ] || [ "$build/netcdf/obj/liblib/.libs/libnetcdf.a" -nt "$nc/lib/libnetcdf.a" ]; then
    external_step netcdf_fortran.sh "NetCDF-C's install" "$build/netcdf/install.log" \
        "$build/netcdf/obj" make install
fi

mkdir -p "$work"
src=$(debian_source netcdf_fortran.sh netcdf-fortran "$version" "$work" configure)
obj=$work/obj
hdf5=$build/hdf5/install
if [ ! -f "$obj/config.status" ] || [ "$nc/lib/libnetcdf.a" -nt "$obj/config.status" ]; then
    rm -rf "$obj" && mkdir -p "$obj"
    # NetCDF-C is static: its own libraries come after it (nc-config --static)
    libs=$("$nc/bin/nc-config" --libs --static | tr ' ' '\n' | grep '^-l' | grep -vx -- -lnetcdf |
        tr '\n' ' ')
    external_step netcdf_fortran.sh configure "$work/configure.log" "$obj" env \
        CC="$build/bin/mpicc" FC="$build/bin/mpifort" F77="$build/bin/mpifort" \
        CPPFLAGS="-I$nc/include -I$hdf5/include" \
        LDFLAGS="-L$nc/lib -L$hdf5/lib -Wl,-rpath,$hdf5/lib" LIBS="$libs" \
        "$src/configure" --enable-parallel-tests --with-mpiexec="$build/bin/mpiexec" \
        --disable-shared --prefix="$work/install"
    grep -q "NetCDF4 Parallel IO: *yes" "$work/configure.log" ||
        { echo "netcdf_fortran.sh: configure found no parallel netCDF-4 ($work/configure.log)" >&2
          exit 1; }
fi
external_step netcdf_fortran.sh "the build" "$work/build.log" "$obj" make -j"$jobs"
[ -z "$prepare" ] || exit 0

start=$(date +%s)
status=0
PATH="$build/bin:$PATH" make -C "$obj" -k -j1 check >"$work/check.log" 2>&1 || status=1
for log in "$obj"/*/test-suite.log "$obj"/examples/*/test-suite.log; do
    [ -f "$log" ] || continue
    d=${log#"$obj"/}
    counts=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\): *\([0-9]*\)/\1 \2/p' "$log" | tr '\n' ' ')
    printf 'netcdf-fortran: %-12s %s\n' "${d%/test-suite.log}" "$counts"
    grep -E "^(FAIL|ERROR):" "$log" | sed 's/^/    /' || true
done
echo "netcdf-fortran: $(basename "$src"), $(($(date +%s) - start)) s; logs in $work and $obj/DIR/test-suite.log"
exit $status
