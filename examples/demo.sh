#!/usr/bin/env bash
# make demo: Tollway at work over shared memory on this machine — a native program
# (a token around a ring of ranks, checked), a real MPI program built with our
# mpicc, and the VELO and RMA benchmarks.
set -euo pipefail
build=${1:-build}
bin=$build/bin
ranks=4

echo "== Tollway $("$bin/twinfo" | head -1 | cut -d' ' -f2) on $(nproc) cores =="
echo
echo "-- A token around a ring of $ranks ranks (twrun -n $ranks token_ring 100)"
"$bin/twrun" -n $ranks "$bin/token_ring" 100
echo
echo "-- A real MPI program, built with Tollway's mpicc and run with its mpiexec"
echo "   ($bin/mpicc -O2 examples/mpi_pi.c -o $build/mpi_pi -lm; mpiexec -n $ranks, then -n 2)"
"$bin/mpicc" -O2 "$(dirname "$0")/mpi_pi.c" -o "$build/mpi_pi" -lm
"$bin/mpiexec" -n $ranks "$build/mpi_pi"
"$bin/mpiexec" -n 2 "$build/mpi_pi"
echo
echo "-- VELO ping-pong latency between 2 ranks pinned to 2 cores (twbench velo-latency)"
"$bin/twrun" -n 2 "$bin/twbench" velo-latency
echo
echo "-- VELO message rate, one sender to one receiver (twbench velo-rate)"
"$bin/twrun" -n 2 "$bin/twbench" velo-rate
echo
echo "-- RMA latency on the shared heap, 8 B (twbench rma-latency)"
"$bin/twrun" -n 2 "$bin/twbench" rma-latency
echo
echo "-- The EXTOLL thesis's Table 9-1 beside Tollway (twbench thesis)"
"$bin/twrun" -n 2 "$bin/twbench" thesis
echo
echo "Side-by-side ratios against UCX: make bench"
