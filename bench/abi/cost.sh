#!/usr/bin/env bash
# The cost of a face (docs/abi.md): instructions of an 8-byte MPI_Send and of the
# MPI_Recv of a message already there (and an empty MPI_Iprobe, an 8-byte MPI_Irecv),
# counted by callgrind through the native library (mpicc) and through each face
# (mpicc_abi: the standard ABI's; MPICH's mpicc: MPICH's face, libmpi.so.12, when an
# MPICH is installed: build/peers/mpich, then MPICH 5 in /work/venv/mpich5, then
# Debian's mpicc.mpich), and an OSU-style ping-pong latency through each.
# Instruction counts do not depend on timing; the latencies do: read them on an idle
# machine only. usage: bench/abi/cost.sh BUILD_DIR   env: N (calls counted, default
# 1000), ITERATIONS (ping-pong round trips, default 10000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${N:-1000}
iterations=${ITERATIONS:-10000}
command -v valgrind >/dev/null || { echo "cost: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
[ -x "$build/bin/mpicc_abi" ] || { echo "cost: $build/bin/mpicc_abi not found: build the tree first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { LD_LIBRARY_PATH="$build/lib/abi" "$build/bin/twrun" -n 2 --bind-to none "$@"; }

mpich_cc=
for c in "$build/peers/mpich/bin/mpicc" /work/venv/mpich5/bin/mpicc "$(command -v mpicc.mpich || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then mpich_cc=$c; break; fi
done
ways="native face"
if [ -n "$mpich_cc" ]; then ways="$ways mpich"; else echo "cost: no MPICH mpicc found: MPICH's face not measured" >&2; fi

# each way: "phase value" lines
for way in $ways; do
    wrapper=$build/bin/mpicc
    [ $way = face ] && wrapper=$build/bin/mpicc_abi
    [ $way = mpich ] && wrapper=$mpich_cc
    "$wrapper" -O2 -o "$work/count_$way" "$here/../hotpath/mpi_count.c"
    "$wrapper" -O2 -o "$work/pingpong_$way" "$here/pingpong.c"
    rm -f "$work"/cg.* "$work/flag"*
    run valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/cg.%p" \
        "$work/count_$way" "$work/flag" "$n" 2>"$work/$way.log" || { cat "$work/$way.log" >&2; exit 1; }
    awk -v n="$n" '/^desc: Trigger: Client Request:/ {phase = $NF}
        /^totals:/ && phase != "" {printf "%s %.1f\n", phase, $2 / n; phase = ""}' "$work"/cg.* \
        > "$work/$way.unsorted"
    run "$work/pingpong_$way" "$iterations" >> "$work/$way.unsorted"
    sort "$work/$way.unsorted" > "$work/$way.txt"
done
echo "through the native library (libmpi.so.0), the standard ABI's face (libmpi_abi.so.1)"
[ -n "$mpich_cc" ] && echo "and MPICH's face (libmpi.so.12, programs built by $mpich_cc)"
echo "instructions per call (callgrind), latency in microseconds (half a round trip)"
[ -n "$mpich_cc" ] || cp "$work/native.txt" "$work/mpich.txt"
join "$work/native.txt" "$work/face.txt" | join - "$work/mpich.txt" |
    awk -v mpich="$mpich_cc" '{printf "%-22s %12s %12s %8.3f", $1, $2, $3, ($2 > 0 ? $3 / $2 : 0)
                                 if (mpich != "") printf " %12s %8.3f", $4, ($2 > 0 ? $4 / $2 : 0)
                                 printf "\n"}
         BEGIN {printf "%-22s %12s %12s %8s", "", "native", "standard", "ratio"
                if (mpich != "") printf " %12s %8s", "mpich", "ratio"
                printf "\n"}'
