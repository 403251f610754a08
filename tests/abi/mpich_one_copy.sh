#!/bin/sh
# A program that needs both of MPICH's sonames (Debian's libmpich.so.12 and MPICH's
# libmpi.so.12) gets one copy of Tollway's face: the dynamic loader sees the link
# libmpich.so.12 -> libmpi.so.12 is the same file, and initialises it once.
# usage: mpich_one_copy.sh SOURCE BINARY FACE_LIBDIR    (77, skipped, without mpicc.mpich)
set -u
source=$1 binary=$2 libdir=$3
command -v mpicc.mpich >/dev/null 2>&1 || { echo "SKIP: mpicc.mpich is not installed"; exit 77; }
mpicc.mpich -O2 -o "$binary" "$source" -Wl,--no-as-needed "$libdir/libmpi.so.12" ||
    { echo "FAIL: mpicc.mpich could not build $source against both sonames"; exit 1; }
needed=$(readelf -d "$binary" | grep -c 'NEEDED.*\(libmpi\|libmpich\)\.so\.12')
[ "$needed" -eq 2 ] || { echo "FAIL: the program needs $needed of libmpi.so.12 and libmpich.so.12, not both"; exit 1; }
log=$(LD_LIBRARY_PATH=$libdir LD_DEBUG=files "$binary" 2>&1 >/dev/null)
inits=$(printf '%s\n' "$log" | grep -c 'calling init: .*/lib\(mpi\|mpich\)\.so\.12$')
printf '%s\n' "$log" | grep 'calling init: .*\.so\.12$'
[ "$inits" -eq 1 ] || { echo "FAIL: $inits copies of the face initialised, not one"; exit 1; }
echo "one copy of the face serves libmpi.so.12 and libmpich.so.12"
