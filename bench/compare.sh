#!/usr/bin/env bash
# Tollway against UCX (ucx_perftest over posix shared memory), side by side in one
# run: the configurations alternate A B, B A, ... for ROUNDS rounds, ranks pinned to
# the two cores; medians and their ratios are printed as a table and written as CSV.
# Every pair is framed by core_probe, a bare cache-line ping-pong: a pair during
# which the virtual machine moved its two cores (onto sibling hyperthreads, say) is
# left out of the ratios, and counted.
# Besides UCX: RMA bandwidth against memcpy from the same twbench run, and the cost
# of registration against its absolute bound.
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

# system,metric,round,value; a missing value is reported and left out
record() {
    if [ -z "$4" ]; then
        echo "bench: no value for $1 $2 in round $3" >&2
        return 0
    fi
    echo "$1,$2,$3,$4" >>"$raw"
}

# The placement probe around a pair: probe PAIR ROUND before|after
probe() { record probe "$1-$3" "$2" "$("$build/bin/core_probe")"; }

# Runs the two halves of a pair in the order the round's parity says.
pair() { # pair NAME ROUND CMD_A CMD_B
    probe "$1" "$2" before
    if [ $(($2 % 2)) -eq 1 ]; then eval "$3"; eval "$4"; else eval "$4"; eval "$3"; fi
    probe "$1" "$2" after
}

# The value of one row of twbench's CSV: pick FILE OP SIZE.
pick() { awk -F, -v op="$2" -v size="$3" '$2 == op && $3 == size {print $4}' "$1"; }
tmp=$out/twbench.csv

for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds" >&2
    pair velo-latency "$r" \
        'record tollway velo-latency-8B-us "$r" "$(twbench 2 velo-latency --sizes 8:8 | cut -d, -f4)"' \
        'read -r lat _ < <(ucx_pair am_lat 8); record ucx am_lat-8B-us "$r" "$lat"'
    pair velo-rate "$r" \
        'record tollway velo-rate-8B-msgs "$r" "$(twbench 2 velo-rate --sizes 8:8 | cut -d, -f4)"' \
        'read -r _ rate < <(ucx_pair am_bw 8); record ucx am_bw-8B-msgs "$r" "$rate"'
    # RMA latency. UCX put_lat and add_lat are ping-pongs of a put / a non-fetching
    # add, each side polling its memory: half round trips of one-way operations, like
    # put+completer. Our FCAA row is a fetching round trip, like UCX fadd; add_lat is
    # kept because the issue names it.
    pair rma-put "$r" \
        'twbench 2 rma-latency >"$tmp"; record tollway rma-put+completer-8B-us "$r" "$(pick "$tmp" put+completer 8)"' \
        'read -r lat _ < <(ucx_pair put_lat 8); record ucx put_lat-8B-us "$r" "$lat"'
    pair rma-fcaa "$r" \
        'twbench 2 rma-latency >"$tmp"; record tollway rma-fcaa-us "$r" "$(pick "$tmp" fcaa 4)"' \
        'read -r lat _ < <(ucx_pair fadd 8); record ucx fadd-8B-us "$r" "$lat"; read -r lat _ < <(ucx_pair add_lat 8); record ucx add_lat-8B-us "$r" "$lat"'
    # RMA bandwidth and memcpy, one run
    probe rma-bw "$r" before
    twbench 2 rma-bw --sizes 4M:4M >"$tmp"
    for op in put-heap get-heap put-reg get-reg memcpy; do
        record tollway "$op-4MiB-MBs" "$r" "$(pick "$tmp" $op 4194304)"
    done
    probe rma-bw "$r" after

    # registration: the slowest size of the run
    twbench 1 reg-cost >"$tmp"
    record tollway reg-cost-max-us "$r" "$(awk -F, '$4 > m {m = $4} END {print m}' "$tmp")"
done

python3 "$here/summarize.py" "$raw" "$out/summary.csv"
