#!/bin/sh
# Two jobs started apart meet through a port (tests/mpi/dynamic_jobs.c): a server of
# 2 ranks and a client of 3 in one --universe, and before the client a job outside
# the universe and one inside it with another TW_CHANNELS, whose connects must be
# refused.
# usage: dynamic_jobs.sh MPIEXEC PROGRAM TIMEOUT
mpiexec=$1 prog=$2 timeout=$3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
universe=tollway-test-$$
"$mpiexec" --universe "$universe" -n 2 --timeout "$timeout" "$prog" server "$dir/port" &
server=$!
"$mpiexec" -n 1 --timeout "$timeout" "$prog" foreign "$dir/port" || { kill $server; exit 1; }
# a job of the universe with another count of channels: refused as well, saying why
out=$(TW_CHANNELS=2 "$mpiexec" --universe "$universe" -n 1 --timeout "$timeout" "$prog" foreign \
    "$dir/port" 2>&1) || { echo "$out"; kill $server; exit 1; }
case $out in
*"and this one 2: both must run as many"*) ;;
*)
    echo "$out"
    echo "dynamic_jobs: the job with TW_CHANNELS=2 was not told why it was refused"
    kill $server
    exit 1
    ;;
esac
"$mpiexec" --universe "$universe" -n 3 --timeout "$timeout" "$prog" client "$dir/port" ||
    { kill $server; exit 1; }
wait $server
