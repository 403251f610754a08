#!/usr/bin/env bash
# Tollway against UCX (ucx_perftest over posix shared memory), side by side in one
# run: the configurations alternate A B A B for ROUNDS rounds, ranks pinned to the
# two cores; medians and their ratios are printed as a table and written as CSV.
# usage: bench/compare.sh [BUILD_DIR]     env: ROUNDS (default 5)
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/bench
mkdir -p "$out"
raw=$out/raw.csv
: >"$raw"

if ! command -v ucx_perftest >/dev/null; then
    echo "bench: ucx_perftest not found (apt-get install ucx-utils)" >&2
    exit 1
fi

twbench() { "$build/bin/twrun" -n "$1" "$build/bin/twbench" "${@:2}" --csv; }

# One ucx_perftest client/server pair: prints "latency_us rate_per_s".
ucx_pair() {
    local test=$1 size=$2 port=$((20000 + RANDOM % 20000)) srv
    taskset -c 1 ucx_perftest -p $port >/dev/null 2>&1 &
    srv=$!
    sleep 0.5
    taskset -c 0 timeout 120 ucx_perftest 127.0.0.1 -p $port -t "$test" -s "$size" \
        -x posix -d memory -n "${UCX_ITERS:-500000}" 2>&1 | awk '/^Final/ {print $3, $9}'
    wait $srv 2>/dev/null || true
}

record() { echo "$1,$2,$3,$4" >>"$raw"; } # system,metric,round,value

for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds" >&2
    v=$(twbench 2 velo-latency --sizes 8:8 | awk -F, '{print $4}')
    record tollway velo-latency-8B-us "$r" "$v"
    read -r lat _ < <(ucx_pair am_lat 8)
    record ucx am_lat-8B-us "$r" "$lat"
    v=$(twbench 2 velo-rate --sizes 8:8 | awk -F, '{print $4}')
    record tollway velo-rate-8B-msgs "$r" "$v"
    read -r _ rate < <(ucx_pair am_bw 8)
    record ucx am_bw-8B-msgs "$r" "$rate"
done

python3 "$here/summarize.py" "$raw" "$out/summary.csv"
