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
# MPIs: tollway (BUILD_DIR/bin/mpicc, mpiexec -n 2 --bind-to none), mpich (mpicc.mpich,
# mpiexec.mpich -n 2 -bind-to none), openmpi (mpicc.openmpi, mpirun.openmpi -np 2
# --bind-to none --allow-run-as-root), each skipped when it does not build.
# Output: BUILD_DIR/bench/mtrate/raw.csv (mpi,mode,threads,size,round,msg/s), the
# commands in commands.txt beside it, and a table of medians on stdout.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${ROUNDS:-5}
threads=${THREADS:-1,2,4}
modes=${MODES:-comm tag}
windows=${WINDOWS:-500}
size=${SIZE:-8}
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
try mpich mpicc.mpich mpiexec.mpich -n 2 -bind-to none
try openmpi mpicc.openmpi mpirun.openmpi -np 2 --bind-to none

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
mpis = sorted({r["mpi"] for r in rows}, key=lambda m: (m != "tollway", m))
print("%-12s %7s " % ("mode", "threads") + " ".join("%14s" % m for m in mpis) +
      "".join("  tollway/%-8s" % m for m in mpis if m != "tollway"))
for mode, t in keys:
    med, by_round = {}, {}
    for m in mpis:
        v = [float(r["msgs"]) for r in rows if r["mpi"] == m and r["mode"] == mode and int(r["threads"]) == t]
        med[m] = statistics.median(v) if v else float("nan")
        by_round[m] = {r["round"]: float(r["msgs"]) for r in rows
                       if r["mpi"] == m and r["mode"] == mode and int(r["threads"]) == t}
    line = "%-12s %7d " % (mode, t) + " ".join("%14.0f" % med[m] for m in mpis)
    for m in mpis:
        if m == "tollway": continue
        ratios = [by_round["tollway"][k] / by_round[m][k] for k in by_round["tollway"] if k in by_round[m]]
        line += "  %16s" % ("%.2f" % statistics.median(ratios) if ratios else "-")
    print(line)
print("(msg/s, medians of %d rounds; ratios: median of per-round ratios)" % len({r["round"] for r in rows}))
PY
