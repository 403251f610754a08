#!/usr/bin/env bash
# Bandwidth between two ranks on one node with the receive buffers at a few bytes past
# a page, against page-aligned ones (mpibench bandwidth --recv-offset), with Tollway and
# its peers in one run, round robin for ROUNDS rounds. A program's malloc'd buffers sit
# 16 bytes past a page; on CPUs whose copies (rep movsb, memcpy's and the kernel's) slow
# down at a destination 1 to 63 bytes past its source's place in a page, that is what
# a large message between such buffers costs (docs/performance.md).
#
# usage: bench/mpi/recv_offset.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (5), OFFSETS ("0 16"), MIN (64K), MAX (4M), RUN_TIMEOUT (120 s)
# MPIs: Tollway and every peer of bench/peers.sh (Debian's Open MPI 4.1 and MPICH 4.0,
# the PyPI ones under BUILD_DIR/peers: make bench-peers-pypi), each started as
# peers.sh starts it; skipped when absent or when it does not build.
# Output: BUILD_DIR/bench/recv_offset/raw.csv (mpi,offset,size,round,MB/s), the commands
# in commands.txt beside it, and a table of medians with Tollway's ratio to the best
# peer (the median of per-round ratios) on stdout.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${ROUNDS:-5}
offsets=${OFFSETS:-0 16}
min=${MIN:-64K} max=${MAX:-4M}
limit=${RUN_TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
out=$build/bench/recv_offset
mkdir -p "$out"
raw=$out/raw.csv
echo "mpi,offset,size,round,value" >"$raw"
: >"$out/commands.txt"

declare -A run
mpis=()
cores=$(peer_cores)
for mpi in tollway "${PEERS_ALL[@]}"; do
    cc=$(peer_cc "$mpi" "$build")
    if { [ -x "$cc" ] || command -v "$cc" >/dev/null; } &&
        "$cc" -O2 -o "$out/mpibench-$mpi" "$here/mpibench.c" 2>"$out/build-$mpi.log" &&
        { [ "$mpi" != impi ] || [ -x "$build/peers/impi/bin/mpiexec" ]; }; then
        peer_launcher "$mpi" 2 "$cores" "$build"
        mpis+=("$mpi")
        run[$mpi]="${cmd[*]} $out/mpibench-$mpi"
    else
        echo "recv_offset: $mpi skipped (see $out/build-$mpi.log)" >&2
    fi
done

for r in $(seq 1 "$rounds"); do
    n=${#mpis[@]}
    for k in $(seq 0 $((n - 1))); do
        name=${mpis[$(((k + r) % n))]} # the first MPI of a round rotates
        for o in $offsets; do
            cmd="${run[$name]} bandwidth --min $min --max $max --recv-offset $o --csv"
            [ "$r" = 1 ] && echo "$name: $cmd" >>"$out/commands.txt"
            timeout "$limit" $cmd 2>>"$out/run-$name.log" |
                awk -F, -v m="$name" -v o="$o" -v r="$r" '$1 == "mpibench" {print m "," o "," $3 "," r "," $4}' >>"$raw" ||
                echo "recv_offset: $name offset $o round $r failed (see $out/run-$name.log)" >&2
        done
    done
done

python3 - "$raw" <<'PY'
import csv, statistics, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
val = {(r["mpi"], int(r["offset"]), int(r["size"]), r["round"]): float(r["value"]) for r in rows}
mpis = sorted({r["mpi"] for r in rows}, key=lambda m: (m != "tollway", m))
peers = [m for m in mpis if m != "tollway"]
cells = sorted({(int(r["offset"]), int(r["size"])) for r in rows})
rounds = sorted({r["round"] for r in rows})
print("%6s %8s " % ("offset", "size") + " ".join("%9s" % m for m in mpis) + "  tollway/best peer (range)")
for o, s in cells:
    med = {m: statistics.median([v for (mm, oo, ss, _), v in val.items() if (mm, oo, ss) == (m, o, s)] or [0]) for m in mpis}
    line = "%6d %8d " % (o, s) + " ".join("%9.0f" % med[m] for m in mpis)
    best = max(peers, key=lambda m: med[m]) if peers else None
    ratios = [val[("tollway", o, s, r)] / val[(best, o, s, r)] for r in rounds
              if best and ("tollway", o, s, r) in val and (best, o, s, r) in val]
    if ratios:
        line += "  %.2f vs %s (%.2f-%.2f)" % (statistics.median(ratios), best, min(ratios), max(ratios))
    print(line)
print("(MB/s, medians of %d rounds; higher is better; raw: %s)" % (len(rounds), sys.argv[1]))
PY
