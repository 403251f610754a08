#!/usr/bin/env bash
# mpiexec -n RANKS f90_output_file > FILE: the job ends by rank 0's MPI_Abort (status 3),
# and FILE holds every rank's three lines in the order each rank wrote them.
# usage: tests/fortran/output_file.sh MPIEXEC PROGRAM RANKS [MPIEXEC_ARGS...]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: output_file.sh MPIEXEC PROGRAM RANKS [MPIEXEC_ARGS...]" >&2; exit 2; }
mpiexec=$1 program=$2 ranks=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$mpiexec" -n "$ranks" "$@" "$program" >"$out" || status=$?
[ "$status" = 3 ] || { echo "output_file.sh: exit status $status, expected 3 (MPI_Abort's)" >&2; exit 1; }
for ((r = 0; r < ranks; r++)); do
    got=$(grep -E "^f90_output_file: [123] from (Fortran|C) on rank $r\$" "$out" | cut -d' ' -f2 | tr -d '\n')
    [ "$got" = 123 ] || {
        echo "output_file.sh: rank $r's lines in the file, in order: '$got', expected '123'; the file:" >&2
        cat "$out" >&2
        exit 1
    }
done
echo "f90_output_file: ok on $ranks ranks"
