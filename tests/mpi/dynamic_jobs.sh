#!/bin/sh
# Two jobs started apart meet through a port (tests/mpi/dynamic_jobs.c): a server of
# 2 ranks and a client of 3 in one --universe, and before the client a job outside
# the universe whose connect must be refused.
# usage: dynamic_jobs.sh MPIEXEC PROGRAM TIMEOUT
mpiexec=$1 prog=$2 timeout=$3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
universe=tollway-test-$$
"$mpiexec" --universe "$universe" -n 2 --timeout "$timeout" "$prog" server "$dir/port" &
server=$!
"$mpiexec" -n 1 --timeout "$timeout" "$prog" foreign "$dir/port" || { kill $server; exit 1; }
"$mpiexec" --universe "$universe" -n 3 --timeout "$timeout" "$prog" client "$dir/port" ||
    { kill $server; exit 1; }
wait $server
