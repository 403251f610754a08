# shellcheck shell=bash
# What the install tests share: failing and skipping with a clear message, and the
# proof that a program built by a recipe is Tollway's: it loads the library from the
# installed prefix, and run under that prefix's mpiexec it prints what only Tollway
# prints. Sourced by install.sh and deb.sh.

# the recipes' programs and projects
# shellcheck disable=SC2034 # used by the scripts that source this one
projects=$(cd "$(dirname "${BASH_SOURCE[0]}")/projects" && pwd)
# nothing from the environment may lead a program to another library
unset LD_LIBRARY_PATH LD_PRELOAD

fail() {
    echo "${0##*/}: FAILED: $*" >&2
    exit 1
}

# need TOOL DEBIAN_PACKAGE: skip (77) when a tool a recipe uses is missing.
need() {
    command -v "$1" >/dev/null ||
        { echo "${0##*/}: SKIPPED: $1 is not installed (Debian package $2)"; exit 77; }
}

# run_logged LOG CMD...: runs CMD, its output into LOG, shown when it fails.
run_logged() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "$* (log above)"; }
}

# is_tollway PREFIX BINARY SONAME PATTERN: BINARY loads SONAME from PREFIX's library
# directory, and under PREFIX/bin/mpiexec -n 2 prints PATTERN.
is_tollway() {
    local prefix=$1 bin soname=$3 pattern=$4 libdir loaded out
    bin=$(readlink -f "$2")
    libdir=$("$prefix/bin/mpicc" -showme:libdirs)
    loaded=$(ldd "$bin" | awk -v l="$soname" '$1 == l { print $3 }')
    if [ -z "$loaded" ] || [ "$(readlink -f "$loaded")" != "$(readlink -f "$libdir/$soname")" ]; then
        fail "$bin loads $soname from ${loaded:-nowhere}, not from $libdir"
    fi
    out=$("$prefix/bin/mpiexec" -n 2 --timeout 120 "$bin" 2>&1) ||
        fail "$bin under $prefix/bin/mpiexec -n 2: $out"
    grep -q "$pattern" <<<"$out" || fail "$bin printed \"$out\", not \"$pattern\""
    echo "${0##*/}: $bin: $soname from $libdir; $out"
}

# twinfo_paths TWINFO RUNNING_FROM PREFIX INSTALLED_PREFIX: twinfo --paths says it
# runs from RUNNING_FROM at PREFIX, installed into INSTALLED_PREFIX.
twinfo_paths() {
    local out want
    out=$("$1" --parsable --paths) || fail "$1 --paths: $out"
    for want in "running_from:$2" "prefix:$3" "installed_prefix:$4"; do
        grep -qxF "paths:$want" <<<"$out" || fail "$1 does not say $want: $out"
    done
    echo "${0##*/}: $1: $2 at $3, installed into $4"
}

# An MPI program, and a program on the native API, as each prints on two ranks.
# shellcheck disable=SC2034 # used by the scripts that source this one
mpi_says="^Tollway MPI [0-9.]* (MPI 4.1): 2 ranks, sum 1$"
# shellcheck disable=SC2034
native_says="^Tollway native API [0-9.]*: 2 ranks, rank 0 got 1$"
