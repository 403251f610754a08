#!/usr/bin/env bash
# MPI point to point and collectives, side by side in one run: mpibench
# (bench/mpi/mpibench.c: latency, bandwidth, rate) and collbench (bench/mpi/collbench.c:
# barrier, bcast, allreduce, allgather, alltoall) built with every MPI at hand, each
# test run round robin across the MPIs for ROUNDS rounds
# (the first MPI of a round rotates), two ranks pinned to the two cores. On a shared
# virtual machine absolute times drift from minute to minute; only figures taken
# seconds apart compare, so plot.py reports per-round ratios besides the medians.
#
# usage: bench/mpi/compare.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (default 5), TESTS (default "latency bandwidth rate barrier bcast
#        allreduce allgather alltoall"),
#        RUN_TIMEOUT seconds per run (default 120), CFLAGS (default -O2),
#        VARIANTS: Tollway run again with other settings, as more columns, e.g.
#        VARIANTS="split64k:TW_RNDV_SPLIT=65536 nosplit:TW_RNDV_SPLIT=0" adds
#        tollway-split64k and tollway-nosplit (settings separated by commas)
#
# MPIs, each used when it builds mpibench and passes a short smoke run, else skipped
# with a note (an MPI that cannot build collbench is skipped for the collective tests):
#   openmpi  mpicc.openmpi, mpirun.openmpi --allow-run-as-root -np 2 --bind-to core
#   mpich    mpicc.mpich,   mpirun.mpich -np 2 -bind-to core
#   tollway  BUILD_DIR/bin/mpicc, BUILD_DIR/bin/mpiexec -n 2 (twrun binds by itself)
# Debian: apt-get install -y openmpi-bin libopenmpi-dev mpich libmpich-dev
#
# Each run is framed by BUILD_DIR/bin/core_probe when it exists (cmake --build BUILD_DIR
# --target core_probe): a bare cache-line ping-pong between cores 0 and 1. The VM
# sometimes places the two cores on sibling hyperthreads, which makes every latency
# about three times shorter; plot.py leaves out, and counts, a run whose probes stray
# more than 25 % from the run's median probe.
#
# Output in BUILD_DIR/bench/mpi/:
#   mpibench-<mpi>, collbench-<mpi>  the binaries; a failed build leaves
#                   build-<mpi>.log or build-coll-<mpi>.log
#   raw.csv         mpi,test,size,round,value (us, MB/s, msg/s as mpibench prints them);
#                   probes are rows with test probe-before:<test> / probe-after:<test>,
#                   size 0, value in us
#   commands.txt    the command that produced each MPI's figures
#   summary.csv, mpibench.png, collbench.png   from plot.py, which also prints the
#                   summary table
# With the defaults the whole run takes about 3-4 minutes for three MPIs.
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
tests=${TESTS:-latency bandwidth rate barrier bcast allreduce allgather alltoall}
limit=${RUN_TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/bench/mpi
mkdir -p "$out"
raw=$out/raw.csv
start=$SECONDS

# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The launcher of one MPI, into the array cmd.
launcher() {
    case $1 in
    openmpi) cmd=(mpirun.openmpi --allow-run-as-root -np 2 --bind-to core) ;;
    mpich) cmd=(mpirun.mpich -np 2 -bind-to core) ;;
    tollway) cmd=("$build/bin/mpiexec" -n 2) ;;
    tollway-*) # a variant: the same binaries, other TW_* settings
        local v settings=""
        for v in ${VARIANTS:-}; do
            [ "tollway-${v%%:*}" = "$1" ] && settings=${v#*:}
        done
        cmd=(env ${settings//,/ } "$build/bin/mpiexec" -n 2)
        ;;
    esac
}

# The program that runs a test.
program() {
    case $1 in
    latency | bandwidth | rate) echo mpibench ;;
    *) echo collbench ;;
    esac
}

# Runs a test of one MPI with the given arguments, bounded in time so a hung MPI
# costs one run, not the whole comparison.
run() {
    local name=$1
    shift
    launcher "$name"
    timeout -k 5 "$limit" "${cmd[@]}" "$out/$(program "$1")-${name%%-*}" "$@"
}

mpis=()
# Builds mpibench with one MPI and keeps the MPI when a short run works.
try_mpi() {
    local name=$1 cc=$2
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "mpibench: $name skipped: $cc not found" >&2
        return 0
    fi
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    if ! "$cc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$out/mpibench-$name" \
        "$here/mpibench.c" >"$out/build-$name.log" 2>&1; then
        echo "mpibench: $name skipped: $cc failed, see $out/build-$name.log" >&2
        return 0
    fi
    rm -f "$out/build-$name.log"
    # shellcheck disable=SC2086
    if ! "$cc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$out/collbench-$name" \
        "$here/collbench.c" >"$out/build-coll-$name.log" 2>&1; then
        echo "mpibench: $name skipped for collectives: $cc failed on collbench.c, see" \
            "$out/build-coll-$name.log" >&2
        rm -f "$out/collbench-$name"
    else
        rm -f "$out/build-coll-$name.log"
    fi
    if ! run "$name" latency --min 8 --max 8 --iters 100 --csv 2>&1 |
        grep -q '^mpibench,latency,8,'; then
        echo "mpibench: $name skipped: a short latency run failed:" >&2
        launcher "$name"
        echo "  ${cmd[*]} $out/mpibench-$name latency --min 8 --max 8 --iters 100" >&2
        return 0
    fi
    mpis+=("$name")
}

try_mpi openmpi mpicc.openmpi
try_mpi mpich mpicc.mpich
if [ -x "$build/bin/mpicc" ]; then
    try_mpi tollway "$build/bin/mpicc"
    for v in ${VARIANTS:-}; do
        [ -x "$out/mpibench-tollway" ] && mpis+=("tollway-${v%%:*}")
    done
else
    echo "mpibench: tollway skipped: $build/bin/mpicc not built yet" >&2
fi
if [ ${#mpis[@]} -eq 0 ]; then
    echo "mpibench: no MPI works (apt-get install -y openmpi-bin libopenmpi-dev mpich" \
        "libmpich-dev)" >&2
    exit 1
fi

probe_bin=$build/bin/core_probe
if [ ! -x "$probe_bin" ]; then
    echo "mpibench: $probe_bin not found: runs are not framed by the placement probe" \
        "(cmake --build $build --target core_probe)" >&2
    probe_bin=
fi

: >"$out/commands.txt"
for name in "${mpis[@]}"; do
    launcher "$name"
    echo "$name: ${cmd[*]} $out/mpibench-${name%%-*} TEST --csv" | tee -a "$out/commands.txt"
    if [ -x "$out/collbench-${name%%-*}" ]; then
        echo "$name: ${cmd[*]} $out/collbench-${name%%-*} TEST --csv" | tee -a "$out/commands.txt"
    fi
done

echo "mpi,test,size,round,value" >"$raw"
# probe MPI TEST ROUND before|after
probe() {
    [ -n "$probe_bin" ] || return 0
    local v
    v=$("$probe_bin") && echo "$1,probe-$4:$2,0,$3,$v" >>"$raw"
}

failed=0
tmp=$out/run.csv
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds ($((SECONDS - start)) s)" >&2
    for test in $tests; do
        n=${#mpis[@]}
        for k in $(seq 0 $((n - 1))); do
            name=${mpis[$(((r - 1 + k) % n))]}
            [ -x "$out/$(program "$test")-${name%%-*}" ] || continue
            probe "$name" "$test" "$r" before
            if run "$name" "$test" --csv >"$tmp"; then
                awk -F, -v mpi="$name" -v round="$r" \
                    '$1 == "mpibench" {print mpi "," $2 "," $3 "," round "," $4}' "$tmp" >>"$raw"
            else
                echo "mpibench: $name $test failed in round $r" >&2
                failed=$((failed + 1))
            fi
            probe "$name" "$test" "$r" after
        done
    done
done
rm -f "$tmp"
[ "$failed" -eq 0 ] || echo "mpibench: $failed runs failed and are missing" >&2

python3 "$here/plot.py" "$raw" "$out"
echo "total time: $((SECONDS - start)) s"
