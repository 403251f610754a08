#!/usr/bin/env bash
# A Fortran program built by the mpifort wrapper alone, as a user's makefile builds it
# (NPB's: MPIFC = mpifort), then run: mpifort's flags must be enough to compile it.
# usage: tests/fortran/mpifort_build.sh BUILD_BIN_DIR SOURCE RANKS [MPIEXEC_ARGS...]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: mpifort_build.sh BUILD_BIN_DIR SOURCE RANKS [MPIEXEC_ARGS...]" >&2; exit 2; }
bin=$(cd "$1" && pwd)
src=$2
ranks=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=$(basename "${src%.*}")
# compile and link in two steps, as make does
(cd "$work" && "$bin/mpifort" -c -O2 "$src" -o "$name.o" && "$bin/mpifort" -O2 "$name.o" -o "$name") ||
    { echo "mpifort_build.sh: mpifort could not build $src ($("$bin/mpifort" -showme -c "$src"))" >&2; exit 1; }
"$bin/mpiexec" -n "$ranks" "$@" "$work/$name"
