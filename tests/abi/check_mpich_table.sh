#!/bin/sh
# MPICH's face's table (src/mpi/abi/mpich/face.json) against an MPICH's mpi.h: every
# handle, constant, the status layout and the integer types as the header has them.
# usage: check_mpich_table.sh PYTHON EXTRACT_PY MPI_H    (77, skipped, without MPI_H)
python=$1 extract=$2 header=$3
if [ ! -f "$header" ]; then
    echo "SKIP: $header is not installed: no MPICH header to check the table against"
    exit 77
fi
exec "$python" "$extract" --check "$header"
