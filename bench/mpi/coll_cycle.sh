#!/usr/bin/env bash
# Small collectives on more ranks than cores, Tollway against Open MPI, interleaved:
# the time in the call (as collbench measures it) and the time of the call and the
# barrier after it together (coll_cycle.c), and the waits that slept, medians over the
# rounds, and each rank's split in the last round. Open MPI runs as in coll_scale.sh (--oversubscribe,
# --bind-to none, mpi_yield_when_idle).
# usage: bench/mpi/coll_cycle.sh [BUILD_DIR]
#   env: RANKS (4), ROUNDS (7), TESTS ("bcast scatter scan reduce allreduce"), ITERS (3000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
RANKS=${RANKS:-4} ROUNDS=${ROUNDS:-7} ITERS=${ITERS:-3000}
TESTS=${TESTS:-bcast scatter scan reduce allreduce}
command -v mpicc.openmpi >/dev/null || { echo "coll_cycle: Open MPI not found (apt-get install libopenmpi-dev openmpi-bin)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc.openmpi -std=c11 -O2 -o "$work/ompi" "$here/coll_cycle.c"
"$build/bin/mpicc" -std=c11 -O2 -o "$work/tw" "$here/coll_cycle.c"
for t in $TESTS; do
    for r in $(seq "$ROUNDS"); do
        o=$(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$RANKS" --bind-to none \
            --mca mpi_yield_when_idle 1 "$work/ompi" "$t" --iters "$ITERS" 2>/dev/null)
        w=$("$build/bin/mpiexec" -n "$RANKS" --timeout 300 "$work/tw" "$t" --iters "$ITERS")
        echo "openmpi,$o" >>"$work/raw.csv"
        echo "tollway,$w" >>"$work/raw.csv"
    done
done
python3 - "$work/raw.csv" "$RANKS" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
print(f"{sys.argv[2]} ranks, 8 B; us, medians; ratio: Tollway / Open MPI")
print("| test | call: Open MPI | Tollway | ratio | call + barrier: Open MPI | Tollway | ratio "
      "| sleeps per cycle: Open MPI | Tollway |")
print("|---|---|---|---|---|---|---|---|---|")
last = {}
for test in dict.fromkeys(r[2] for r in rows):
    med = {}
    for mpi in ("openmpi", "tollway"):
        mine = [r for r in rows if r[0] == mpi and r[2] == test]
        med[mpi] = [statistics.median(float(r[i]) for r in mine) for i in (3, 4, 5)]
        last[(test, mpi)] = " ".join(mine[-1][6:])
    (oc, oy, os), (tc, ty, ts) = med["openmpi"], med["tollway"]
    print(f"| {test} | {oc:.2f} | {tc:.2f} | {tc / oc:.2f} | {oy:.2f} | {ty:.2f} | {ty / oy:.2f} "
          f"| {os:.3f} | {ts:.3f} |")
print("\neach rank's call / barrier (us), last round:")
for (test, mpi), split in last.items():
    print(f"  {test:10s} {mpi:8s} {split}")
PY
