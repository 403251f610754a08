#!/bin/bash
# The measurements behind the collective tuning table (src/mpi/coll/coll_tuning.c): each
# collective of bench/mpi/collbench.c on each rank count, once through shared memory
# (TW_COLL_SHM=shm) and once by the message algorithms auto picks (TW_COLL_SHM=p2p,
# the barrier between calls still shared), interleaved, ROUNDS rounds; prints per
# collective, rank count and size the medians and shm / messages.
#
# usage: bench/mpi/coll_tune.sh [BUILD] [RANKS...]     (default: build, 3 4 8)
#   ROUNDS (3), TESTS (bcast reduce allreduce gather scatter allgather reduce_scatter scan
#   exscan alltoall),
#   MIN (8), MAX (1M), ITERS (300), RUN_TIMEOUT (300)
# Writes BUILD/bench/coll_tune/raw.csv (mode,test,ranks,round,bytes,us) and
# summary.csv (test,ranks,bytes,shm_us,messages_us,shm_over_messages).
set -euo pipefail

build=${1:-build}
shift || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(3 4 8)
rounds=${ROUNDS:-3}
tests=${TESTS:-bcast reduce allreduce gather scatter allgather reduce_scatter scan exscan alltoall}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/bench/coll_tune
mkdir -p "$out"
bench=$out/collbench
"$build/bin/mpicc" -O2 -I"$here" -o "$bench" "$here/collbench.c"
raw=$out/raw.csv
: > "$raw"

for round in $(seq "$rounds"); do
    for n in "${ranks[@]}"; do
        for t in $tests; do
            for mode in shm p2p; do
                if [ "$mode" = shm ]; then
                    env=(TW_COLL_SHM=shm)
                else
                    env=(TW_COLL_SHM=p2p TW_COLL_BARRIER=shm)
                fi
                env "${env[@]}" timeout "${RUN_TIMEOUT:-300}" "$build/bin/mpiexec" -n "$n" \
                    "$bench" "$t" --min "${MIN:-8}" --max "${MAX:-1M}" --iters "${ITERS:-300}" \
                    --csv 2>/dev/null |
                    awk -F, -v m="$mode" -v t="$t" -v n="$n" -v r="$round" \
                        '/^mpibench/ {print m "," t "," n "," r "," $3 "," $4}' >> "$raw" || true
            done
        done
    done
done

python3 - "$raw" "$out/summary.csv" << 'EOF'
import collections, csv, statistics, sys
runs = collections.defaultdict(list)
for mode, test, n, _, size, us in csv.reader(open(sys.argv[1])):
    runs[(mode, test, int(n), int(size))].append(float(us))
with open(sys.argv[2], "w") as f:
    f.write("test,ranks,bytes,shm_us,messages_us,shm_over_messages\n")
    print("%-15s %5s %8s %10s %10s %8s" % ("test", "ranks", "bytes", "shm", "messages", "ratio"))
    for test, n, size in sorted({k[1:] for k in runs}):
        if ("shm", test, n, size) not in runs or ("p2p", test, n, size) not in runs:
            continue
        a = statistics.median(runs[("shm", test, n, size)])
        b = statistics.median(runs[("p2p", test, n, size)])
        f.write("%s,%d,%d,%.2f,%.2f,%.2f\n" % (test, n, size, a, b, a / b))
        print("%-15s %5d %8d %10.2f %10.2f %8.2f" % (test, n, size, a, b, a / b))
EOF
