#!/usr/bin/env bash
# Instructions per call of the hot paths (an 8-byte VELO send, a poll that finds a
# message, a poll that finds nothing; an 8-byte MPI_Send, the MPI_Recv of a message
# already there, an MPI_Iprobe that finds nothing), counted by callgrind for each
# build given. Counts do not depend on timing, so they compare two builds on a busy
# machine; with two builds the last column is second / first.
# usage: bench/hotpath/instructions.sh BUILD_DIR [BUILD_DIR2]     env: N (default 1000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${N:-1000}
command -v valgrind >/dev/null || { echo "instructions: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BUILD_DIR [BUILD_DIR2]" >&2; exit 2; }

# count BUILD: prints "phase instructions-per-call" lines
count() {
    local build src work
    build=$(cd "$1" && pwd)
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
    [ -n "$src" ] || { echo "instructions: $1 is no CMake build directory" >&2; exit 1; }
    work=$(mktemp -d)
    cc -std=c11 -O2 -I"$src/include" -o "$work/velo_count" "$here/velo_count.c" \
        -L"$build/lib" -Wl,-rpath,"$build/lib" -ltollway
    "$build/bin/mpicc" -std=c11 -O2 -o "$work/mpi_count" "$here/mpi_count.c"
    local vg=(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/cg.%p")
    LD_LIBRARY_PATH="$build/lib" "$build/bin/twrun" -n 2 --bind-to none "${vg[@]}" \
        "$work/velo_count" "$n" 2>"$work/velo.log" || { cat "$work/velo.log" >&2; exit 1; }
    LD_LIBRARY_PATH="$build/lib" "$build/bin/twrun" -n 2 --bind-to none "${vg[@]}" \
        "$work/mpi_count" "$work/flag" "$n" 2>"$work/mpi.log" || { cat "$work/mpi.log" >&2; exit 1; }
    # each dump names its phase in "desc: Trigger: Client Request: PHASE" and its total
    awk -v n="$n" '/^desc: Trigger: Client Request:/ {phase = $NF}
        /^totals:/ && phase != "" {printf "%s %.1f\n", phase, $2 / n; phase = ""}' "$work"/cg.*
    # the same Send and Recv through each Fortran binding (mpi_count.F90), when the
    # build has mpifort: collected inside its loops only
    if [ -x "$build/bin/mpifort" ]; then
        local b name
        for b in 1 2 3; do
            name=$(echo "mpif.h mpi mpi_f08" | cut -d' ' -f$b)
            # in the scratch directory, where the compiler writes its module file
            (cd "$work" && "$build/bin/mpifort" -O2 -cpp -DBINDING=$b -o "mpi_count_f$b" \
                "$here/mpi_count.F90")
            rm -f "$work/flag_f" "$work"/cgf.*
            LD_LIBRARY_PATH="$build/lib" "$build/bin/twrun" -n 2 --bind-to none valgrind \
                --tool=callgrind --collect-atstart=no --toggle-collect='*send_loop*' \
                --toggle-collect='*recv_loop*' --callgrind-out-file="$work/cgf.%p" \
                "$work/mpi_count_f$b" "$work/flag_f" "$n" 2>"$work/f$b.log" ||
                { cat "$work/f$b.log" >&2; exit 1; }
            # rank 0's file holds its sends, rank 1's its receives
            for f in "$work"/cgf.*; do
                awk -v n="$n" -v name="$name" '/^totals:/ {t = $2}
                    /^c?fn=.*send_loop/ {s = 1} /^c?fn=.*recv_loop/ {r = 1}
                    END {if (s) printf "fortran-send-8B-%s %.1f\n", name, t / n;
                         else if (r) printf "fortran-recv-8B-%s %.1f\n", name, t / n}' "$f"
            done
        done
    fi
    rm -rf "$work"
}

a=$(count "$1")
if [ $# -eq 1 ]; then
    printf '%-20s %12s\n' phase "instr/call"
    sort <<<"$a" | awk '{printf "%-20s %12s\n", $1, $2}'
    exit 0
fi
b=$(count "$2")
printf '%-20s %12s %12s %8s\n' phase first second ratio
join <(sort <<<"$a") <(sort <<<"$b") | awk '{printf "%-20s %12s %12s %8.3f\n", $1, $2, $3, $3 / $2}'
