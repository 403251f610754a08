#!/usr/bin/env bash
# mpicc as build systems use it: Open MPI's and MPICH's query flags, the compiler's own
# answer to --version (meson), the compile-only modes, the choice of compiler (-cc=,
# TW_CC, MPICH_CC, OMPI_CC), -v, a program built with the flags alone, and CMake's
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
"$mpicc" x.c -o x -showme | grep -q "^$compiler .*x.c -o x .*-lmpi" || fail "-showme after the arguments"
[ "$("$mpicc" -showme:command)" = "$compiler" ] || fail "-showme:command"
for q in -showme:help --showme:help; do
    "$mpicc" $q | grep -q -- "-showme:libdirs" || fail "$q"
done
if "$mpicc" -showme:nonsense 2>"$work/err"; then fail "-showme:nonsense succeeded"; fi
grep -q "unknown query nonsense" "$work/err" || fail "-showme:nonsense: $(cat "$work/err")"

# Compile-only modes get no link flags; each does what the compiler does with it.
for m in -c -E -S -M -MM -fsyntax-only; do
    shown=$("$mpicc" -show $m x.c)
    [ "$shown" = "$compiler $("$mpicc" -showme:compile) $m x.c" ] || fail "-show $m: $shown"
done

# The compiler: -cc= / -cxx=, then TW_CC, MPICH_CC, OMPI_CC (CXX for mpicxx), then the
# built-in one. Stand-in compilers say which of them ran, and with what.
for c in flag tw mpich ompi; do
    printf '#!/bin/sh\necho "%s $*"\n' "$c" >"$work/$c-cc"
    chmod +x "$work/$c-cc"
done
picked() { # WRAPPER ENV... : which stand-in the wrapper runs
    env "${@:2}" "$1" x.c | cut -d' ' -f1
}
for w in mpicc mpicxx; do
    if [ "$w" = mpicc ]; then L=CC; else L=CXX; fi
    ompi=OMPI_$L=$work/ompi-cc mpich=MPICH_$L=$work/mpich-cc tw=TW_$L=$work/tw-cc
    [ "$(picked "$bin/$w" "$ompi")" = ompi ] || fail "$w: OMPI_$L"
    [ "$(picked "$bin/$w" "$ompi" "$mpich")" = mpich ] || fail "$w: MPICH_$L"
    [ "$(picked "$bin/$w" "$ompi" "$mpich" "$tw")" = tw ] || fail "$w: TW_$L"
    [ "$(picked "$bin/$w" "$ompi" "$mpich" "$tw" TW_$L=)" = mpich ] || fail "$w: an empty TW_$L"
    for f in -cc -cxx; do
        [ "$(env "$tw" "$bin/$w" $f="$work/flag-cc" x.c | cut -d' ' -f1)" = flag ] || fail "$w $f="
    done
    # the compiler gets the program's arguments in order, the wrapper's own taken out
    ran=$("$bin/$w" -cc="$work/flag-cc" -O2 x.c -o "with space")
    [ "$ran" = "flag -I$("$mpicc" -showme:incdirs) -O2 x.c -o with space $("$mpicc" -showme:link)" ] ||
        fail "$w ran: $ran"
done
# a compiler that is the wrapper itself is refused, not run for ever
if MPICH_CC=$mpicc "$mpicc" x.c -o x 2>"$work/err"; then fail "MPICH_CC=mpicc succeeded"; fi
grep -q "called by itself" "$work/err" || fail "MPICH_CC=mpicc: $(cat "$work/err")"

# -v: Tollway's line, then the compiler's own -v; alone, it compiles nothing (MPICH's)
"$mpicc" -v >"$work/v.out" 2>&1 || { cat "$work/v.out"; fail "-v alone"; }
head -1 "$work/v.out" | grep -q "^mpicc: Tollway MPI" || fail "-v: $(head -1 "$work/v.out")"
grep -q "version" <(tail -n +2 "$work/v.out") || fail "-v did not run the compiler with -v"

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
# shellcheck disable=SC2046 # the flags are words
"$compiler" $("$mpicc" -showme:compile) -c "$work/hello.c" -o "$work/hello.o"
# shellcheck disable=SC2046
"$compiler" "$work/hello.o" -o "$work/hello" $("$mpicc" -showme:link)
"$bin/mpiexec" -n 2 --timeout 120 "$work/hello" | grep -q "hello from 2 ranks, sum 1" || fail "flags alone"

# the compile-only modes, run: an object, preprocessed source, a dependency line,
# assembly and a syntax check, none of them linked
(
    cd "$work"
    "$mpicc" -c hello.c -o modes.o || fail "-c"
    [ -s modes.o ] || fail "-c made no object"
    "$mpicc" -E hello.c >modes.i || fail "-E"
    grep -q "MPI_Init" modes.i || fail "-E: no MPI_Init in the preprocessed source"
    "$mpicc" -M hello.c >modes.d || fail "-M"
    grep -q "mpi.h" modes.d || fail "-M: mpi.h is not a dependency: $(cat modes.d)"
    "$mpicc" -MM hello.c >modes.d || fail "-MM"
    grep -q "^hello.o: hello.c" modes.d || fail "-MM: $(cat modes.d)"
    "$mpicc" -S hello.c -o modes.s || fail "-S"
    grep -q "MPI_Init" modes.s || fail "-S made no assembly calling MPI_Init"
    "$mpicc" -fsyntax-only hello.c || fail "-fsyntax-only"
    "$mpicc" -v -c hello.c -o verbose.o >verbose.out 2>&1 || { cat verbose.out; fail "-v -c"; }
    [ -s verbose.o ] || fail "-v -c made no object"
)

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
grep -q "MPI_C_VERSION=4.1 MPI_C_INCLUDE_DIRS=$("$mpicc" -showme:incdirs)" "$work/cmake.log" ||
    { cat "$work/cmake.log"; fail "FindMPI: not Tollway's MPI 4.1"; }
cmake --build "$work/cmake/b" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "FindMPI's build"; }
"$bin/mpiexec" -n 3 --timeout 120 "$work/cmake/b/hello" | grep -q "hello from 3 ranks, sum 3" || fail "FindMPI's program"
echo "mpicc.sh: ok"
