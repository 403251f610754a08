#!/bin/sh
# The checked-in outputs of src/mpi/bindings/gen_bindings.py are current: the headers
# it writes into include/tollway and include/ (the faces' headers, mpi_abi.h), and (when pympistandard 0.2.0 can be imported by
# $PYMPISTANDARD_PYTHON, else python3) its extract of the MPI Forum's description.
# usage: bindings_current.sh SOURCE_DIR PYTHON3
set -u
src=$1 python=$2
gen=$src/src/mpi/bindings/gen_bindings.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
"$python" "$gen" headers "$work" || exit 1
for h in tollway/mpi_calls.h tollway/pmpi.h mpi_abi.h $(cd "$src/include" && ls tollway/face_*.h); do
    diff -u "$src/include/$h" "$work/$h" ||
        { echo "stale: include/$h (regenerate: python3 src/mpi/bindings/gen_bindings.py headers)"; status=1; }
done
standard=${PYMPISTANDARD_PYTHON:-python3}
if "$standard" -c 'import sys; from importlib.metadata import version; sys.exit(version("pympistandard") != "0.2.0")' 2>/dev/null; then
    "$standard" "$gen" extract "$work/standard.json" || exit 1
    diff -u "$src/src/mpi/bindings/standard.json" "$work/standard.json" ||
        { echo "stale: src/mpi/bindings/standard.json (regenerate: $standard $gen extract)"; status=1; }
    echo "the extract is pympistandard 0.2.0's"
else
    echo "pympistandard 0.2.0 not importable by $standard (set PYMPISTANDARD_PYTHON): the extract is not re-made"
fi
exit $status
