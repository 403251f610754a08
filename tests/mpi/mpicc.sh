#!/usr/bin/env bash
# mpicc as build systems use it: Open MPI's and MPICH's query flags, the compiler's own
# answer to --version (meson), a program built with the flags alone, and CMake's
# FindMPI finding Tollway from the wrapper and building against it.
# usage: tests/mpi/mpicc.sh BUILD_BIN_DIR
set -euo pipefail
bin=$(cd "$1" && pwd)
mpicc=$bin/mpicc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "mpicc.sh: $*" >&2; exit 1; }

compiler=$("$mpicc" -compile-info | cut -d' ' -f1)
[ -x "$(command -v "$compiler")" ] || fail "-compile-info names no compiler: $compiler"
[ "$("$mpicc" --version)" = "$("$compiler" --version)" ] || fail "--version is not the compiler's"
"$mpicc" -showme:version | grep -q "Tollway MPI" || fail "-showme:version"
for f in -showme:compile --showme:compile; do
    [ "$("$mpicc" $f)" = "-I$("$mpicc" -showme:incdirs)" ] || fail "$f"
done
[ -f "$("$mpicc" -showme:incdirs)/mpi.h" ] || fail "-showme:incdirs holds no mpi.h"
[ -f "$("$mpicc" -showme:libdirs)/libmpi.so" ] || fail "-showme:libdirs holds no libmpi.so"
[ "$("$mpicc" -showme:libs)" = "mpi tollway" ] || fail "-showme:libs"
"$mpicc" -link-info | grep -q -- "-lmpi" || fail "-link-info lacks -lmpi"
[ "$("$mpicc" -showme:link)" = "$("$mpicc" --showme:link)" ] || fail "-showme:link"
"$mpicc" -show x.c -o x | grep -q "^$compiler .*x.c -o x .*-lmpi" || fail "-show"

cat >"$work/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("hello from %d ranks, sum %d\n", size, sum);
    MPI_Finalize();
    return sum != size * (size - 1) / 2;
}
C
# the flags alone, through the plain compiler, as a Makefile that asks for them does
"$compiler" $("$mpicc" -showme:compile) -c "$work/hello.c" -o "$work/hello.o"
"$compiler" "$work/hello.o" -o "$work/hello" $("$mpicc" -showme:link)
"$bin/mpiexec" -n 2 --timeout 120 "$work/hello" | grep -q "hello from 2 ranks, sum 1" || fail "flags alone"

# CMake's FindMPI, told only the wrapper
mkdir "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(hello C)
find_package(MPI REQUIRED COMPONENTS C)
message(STATUS "FindMPI: MPI_C_VERSION=${MPI_C_VERSION} MPI_C_INCLUDE_DIRS=${MPI_C_INCLUDE_DIRS}")
add_executable(hello ../hello.c)
target_link_libraries(hello PRIVATE MPI::MPI_C)
CM
cmake -S "$work/cmake" -B "$work/cmake/b" -DMPI_C_COMPILER="$mpicc" >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log"; fail "FindMPI did not find MPI through the wrapper"; }
grep -q "MPI_C_VERSION=3.1 MPI_C_INCLUDE_DIRS=$("$mpicc" -showme:incdirs)" "$work/cmake.log" ||
    { cat "$work/cmake.log"; fail "FindMPI: not Tollway's MPI 3.1"; }
cmake --build "$work/cmake/b" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "FindMPI's build"; }
"$bin/mpiexec" -n 3 --timeout 120 "$work/cmake/b/hello" | grep -q "hello from 3 ranks, sum 3" || fail "FindMPI's program"
echo "mpicc.sh: ok"
