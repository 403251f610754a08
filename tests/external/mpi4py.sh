#!/usr/bin/env bash
# mpi4py passes its own test suite on 1 to 4 ranks under this build's mpiexec, in
# one of two forms:
# - built against this build's mpicc (the default): the release is pinned and its
#   sha256 checked; it, Cython and NumPy (which widens the suite) come from PyPI into
#   BUILD/mpi4py (a virtual environment);
# - --wheel mpich|openmpi: PyPI's binary wheel of the same release, which carries a
#   module for MPICH's ABI and one for Open MPI's and loads the MPI library at run time,
#   on Tollway's face of that ABI (docs/abi.md): with nothing set for MPICH's (the faces'
#   directory's libmpi.so is that face), MPI4PY_LIBMPI for Open MPI's. Its venv is
#   BUILD/mpi4py/wheel-venv; the suite comes from the checked source release.
# Skipped: the suite's optional packages other than NumPy. test_util_dtlib runs on one
# rank only (below).
# usage: tests/external/mpi4py.sh [--prepare] [--wheel mpich|openmpi] [BUILD] [RANKS...]
#   (default: build 1 2 3 4); --prepare: only the environment and the build, no suite
set -euo pipefail
cd "$(dirname "$0")/../.."
prepare= wheel=
[ "${1:-}" = --prepare ] && { prepare=1; shift; }
if [ "${1:-}" = --wheel ]; then
    wheel=$2
    shift 2
    case $wheel in mpich | openmpi) ;; *) echo "mpi4py.sh: --wheel mpich or openmpi, not $wheel" >&2; exit 2 ;; esac
fi
build=$(cd "${1:-build}" && pwd)
shift || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2 3 4)
version=4.1.2
sha256=56860286dc45f20e8821e93cb06669e30462348bf866f685553fa4b712d58d02
work=$build/mpi4py
src=$work/mpi4py-$version
py=$work/venv/bin/python
[ -z "$wheel" ] || py=$work/wheel-venv/bin/python
mkdir -p "$work"

[ -x "$build/bin/mpicc" ] || { echo "mpi4py.sh: no $build/bin/mpicc: build first (make)" >&2; exit 2; }
# made again when it lacks what the build needs: an install cut short (no network, the
# job killed) leaves a venv without them, which would fail every later build
if [ -n "$wheel" ]; then
    if ! { [ -x "$py" ] && "$py" -c 'import mpi4py, numpy' 2>/dev/null; }; then
        python3 -m venv --clear "$work/wheel-venv"
        "$py" -m pip install -q --only-binary=:all: "mpi4py==$version" numpy
    fi
elif ! { [ -x "$py" ] && "$py" -c 'import Cython, numpy, setuptools' 2>/dev/null; }; then
    python3 -m venv --clear "$work/venv"
    "$py" -m pip install -q 'cython>=3.0' setuptools wheel numpy
fi
if [ ! -f "$src/setup.py" ]; then
    tarball=$work/mpi4py-$version.tar.gz
    "$py" - "$version" "$tarball" <<'PY'
import re, sys, urllib.request
version, out = sys.argv[1:]
index = urllib.request.urlopen("https://pypi.org/simple/mpi4py/").read().decode()
url = next(u for u in re.findall(r'href="([^"]+)"', index) if f"mpi4py-{version}.tar.gz" in u)
open(out, "wb").write(urllib.request.urlopen(url.split("#")[0]).read())
PY
    echo "$sha256  $tarball" | sha256sum -c --quiet
    tar xzf "$tarball" -C "$work"
fi
# built in place against Tollway; rebuilt when mpi.h is newer than the module (what
# mpi4py finds there decides what it builds; libmpi it loads at run time)
module=$(ls "$src"/src/mpi4py/MPI.*.so 2>/dev/null | head -1 || true)
if [ -z "$wheel" ] && { [ -z "$module" ] || [ include/mpi.h -nt "$module" ]; }; then
    # unoptimised: the generated module is large, and the suite tests the library
    (cd "$src" && rm -rf build && MPICC=$build/bin/mpicc CFLAGS="${CFLAGS:--O0}" \
        "$py" setup.py -q build_ext --inplace >"$work/build.log" 2>&1) ||
        { tail -30 "$work/build.log"; echo "mpi4py.sh: the build failed ($work/build.log)" >&2; exit 1; }
fi
[ -z "$prepare" ] || exit 0
# suite N [-i|-e MODULES]: the suite on N ranks (only, or all but, the modules main.py's
# regular expression names), its log in $work/test-N.log (test-N-MODULES.log with -i);
# prints one line (or the failures) and returns non-zero when it failed
suite() {
    local n=$1 log=$work/test${wheel:+-$wheel-wheel}-$1.log
    shift
    [ "${1:-}" != -i ] || log=${log%.log}-$2.log
    if ! (cd "$src" && run_suite "$n" "$@" >"$log" 2>&1); then
        echo "mpi4py: test suite on $n rank(s) $*:"
        grep -E "^(ERROR|FAIL):" "$log" | sort | uniq -c | head -40 || true
        tail -5 "$log"
        echo "mpi4py: FAILED on $n rank(s) $* ($log)"
        return 1
    fi
    echo "mpi4py: test suite on $n rank(s) $*: $(grep -E "^Ran |^OK" "$log" | tail -2 | tr '\n' ' ')"
}
# run_suite N ARGS...: test/main.py on N ranks, with the module built in place or the wheel's
run_suite() {
    local n=$1
    shift
    local run=("$build/bin/mpiexec" -n "$n" --timeout "${TW_TEST_JOB_TIMEOUT:-900}")
    case $wheel in
    "") PYTHONPATH=$src/src "${run[@]}" "$py" test/main.py --inplace -q "$@" ;;
    mpich) "${run[@]}" "$py" test/main.py -q "$@" ;;
    openmpi) MPI4PY_LIBMPI=$build/lib/abi/libmpi.so.40 "${run[@]}" "$py" test/main.py -q "$@" ;;
    esac
}
# test_util_dtlib converts NumPy's dtypes to datatypes and back in each process alone,
# the same on every rank: on 3 ranks it took 98 s of the suite's 250 s, the ranks
# competing for 2 cores. It runs on one rank only: in the suite there when 1 is among
# RANKS, else alone beside the run on the most ranks.
solo=test_util_dtlib
status=0
most=$(printf '%s\n' "${ranks[@]}" | sort -n | tail -1)
one=
[[ " ${ranks[*]} " == *" 1 "* ]] && one=1
for n in "${ranks[@]}"; do
    [ "$n" = 1 ] && [ "$most" != 1 ] && continue # beside the run on the most ranks
    if [ "$n" = "$most" ] && [ "$n" != 1 ]; then
        # the run on 1 rank keeps one core busy; it runs beside the one on the most
        # ranks (more ranks than cores: they sleep while they wait, and leave cores idle)
        if [ -n "$one" ]; then suite 1 & else suite 1 -i "$solo" & fi
        beside=$!
        suite "$n" -e "$solo" || status=1
        wait "$beside" || status=1
    elif [ "$n" = 1 ]; then
        suite 1 || status=1
    else
        suite "$n" -e "$solo" || status=1
    fi
done
exit $status
