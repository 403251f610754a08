#!/usr/bin/env bash
# Two builds of Tollway side by side in one run: the same benchmarks, A B then B A
# alternating over ROUNDS rounds, ranks pinned to the two cores. For every metric the
# median of each build and the median of the per-round ratios B / A with their range
# (a ratio taken within a round compares the two builds seconds apart). Every round
# is framed by core_probe, as in bench/compare.sh: a round during which the virtual
# machine moved its two cores (its probe more than 25 % off the run's median) is left
# out of the ratios and counted. For a change
# to a hot path: build the commit before it in another directory and compare.
# usage: bench/ab.sh BUILD_A BUILD_B     env: ROUNDS (default 7)
# writes BUILD_B/bench/ab-raw.csv (build,metric,round,value)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-7}
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
out=$b/bench
mkdir -p "$out"
raw=$out/ab-raw.csv
: >"$raw"

for x in "$a" "$b"; do # the MPI benchmarks, built with each build's own mpicc
    for p in mpibench collbench; do
        "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-$p" "$here/mpi/$p.c" ||
            { echo "ab: $x/bin/mpicc failed on $p.c" >&2; exit 1; }
    done
done

# value of one CSV row: field 4 of the line whose fields 2 and 3 are OP and SIZE
pick() { awk -F, -v op="$1" -v size="$2" '$2 == op && $3 == size {print $4; exit}'; }

# measure LABEL BUILD ROUND: one pass of every benchmark of one build
measure() {
    local label=$1 x=$2 r=$3 csv
    run() { LD_LIBRARY_PATH="$x/lib" timeout -k 5 300 "$x/bin/twrun" -n 2 "$@"; }
    rec() { [ -n "$3" ] && echo "$label,$1,$r,$3" >>"$raw" || echo "ab: no value for $1 ($label)" >&2; }
    rec velo-latency-8B-us us "$(run "$x/bin/twbench" velo-latency --sizes 8:8 --csv | pick pingpong 8 || true)"
    csv=$(run "$x/bin/twbench" velo-rate --sizes 8:8 --csv) || true
    rec velo-rate-8B-msgs msg "$(pick 1-to-1 8 <<<"$csv")"
    csv=$(run "$x/bin/twbench" rma-latency --csv) || true
    rec put+completer-8B-us us "$(pick put+completer 8 <<<"$csv")"
    rec put-reg+completer-8B-us us "$(pick put-reg+completer 8 <<<"$csv")"
    rec get-reg-8B-us us "$(pick get-reg 8 <<<"$csv")"
    rec mpi-latency-8B-us us "$(run "$x/bin/ab-mpibench" latency --min 8 --max 8 --csv | pick latency 8 || true)"
    csv=$(run "$x/bin/ab-mpibench" bandwidth --min 64K --max 1M --csv) || true
    rec mpi-bw-64K-MBs MB "$(pick bandwidth 65536 <<<"$csv")"
    rec mpi-bw-1M-MBs MB "$(pick bandwidth 1048576 <<<"$csv")"
    rec mpi-rate-8B-msgs msg "$(run "$x/bin/ab-mpibench" rate --csv | pick rate 8 || true)"
    rec barrier-us us "$(run "$x/bin/ab-collbench" barrier --csv | awk -F, '{print $4; exit}' || true)"
    rec allreduce-8B-us us "$(run "$x/bin/ab-collbench" allreduce --min 8 --max 8 --csv | pick allreduce 8 || true)"
}

probe() { echo "probe,$1,$2,$("$b/bin/core_probe")" >>"$raw"; }
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds" >&2
    probe before "$r"
    if [ $((r % 2)) -eq 1 ]; then measure A "$a" "$r"; measure B "$b" "$r"; else measure B "$b" "$r"; measure A "$a" "$r"; fi
    probe after "$r"
done

python3 - "$raw" <<'PY'
import csv, statistics, sys
vals, probes = {}, {}
for build, metric, rnd, v in csv.reader(open(sys.argv[1])):
    if build == "probe":
        probes.setdefault(rnd, []).append(float(v))
    else:
        vals.setdefault(metric, {}).setdefault(build, {})[rnd] = float(v)
pm = statistics.median([v for p in probes.values() for v in p])
clean = {r for r, p in probes.items() if all(abs(v / pm - 1) <= 0.25 for v in p)}
print(f"placement probe median {pm:.3f} us; rounds kept {len(clean)} of {len(probes)}")
print(f"{'metric':26} {'A median':>12} {'B median':>12} {'B/A':>7}  per-round B/A range")
for metric, by in vals.items():
    A, B = by.get("A", {}), by.get("B", {})
    rs = [B[r] / A[r] for r in A if r in B and r in clean and A[r] > 0]
    if not rs:
        continue
    print(f"{metric:26} {statistics.median(A.values()):12.4g} {statistics.median(B.values()):12.4g}"
          f" {statistics.median(rs):7.3f}  {min(rs):.3f} .. {max(rs):.3f}")
PY
