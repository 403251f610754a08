#!/usr/bin/env bash
# Intel's IMB-MT (from PyPI's impi-rt) on Tollway and on Intel MPI, in one run: RANKS
# ranks of THREADS threads (OMP_NUM_THREADS), each thread in collectives on a
# communicator of its own, ranks and threads outnumbering this machine's cores as users
# run it. Tollway runs Intel's own binary through its MPICH face (BUILD/lib/abi).
# Each MPI runs placed two ways:
#   tollway          twrun's default: the ranks take the cores in turn
#   tollway_unbound  twrun --bind-to none: the kernel places the ranks
#   impi             Intel MPI's default: it pins the ranks to the cores in turn
#   impi_unpinned    I_MPI_PIN=off
# The order of the four rotates from round to round.
#
# usage: bench/mpi/imbmt.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (5), RANKS (4), THREADS (2), BENCHES ("allreducemt barriermt bcastmt
#        reducemt"), REPEAT (3000 calls a thread), COUNT (2 ints), RUN_TIMEOUT (300 s)
# Output: BUILD_DIR/bench/imbmt/raw.csv (round,bench,mpi,usec: IMB-MT's t_avg), the
# commands in commands.txt beside it, and a table of medians with the per-round
# ratios Tollway / Intel MPI, each placed as it does by default and both unplaced.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
rounds=${ROUNDS:-5} ranks=${RANKS:-4} threads=${THREADS:-2}
benches=${BENCHES:-allreducemt barriermt bcastmt reducemt}
repeat=${REPEAT:-3000} count=${COUNT:-2} limit=${RUN_TIMEOUT:-300}
peers_install "$build" impi
impi=$build/peers/impi
imb=$impi/bin/IMB-MT
out=$build/bench/imbmt
mkdir -p "$out"
raw=$out/raw.csv
echo "round,bench,mpi,usec" >"$raw"
: >"$out/commands.txt"
export OMP_NUM_THREADS=$threads

command_of() { # variant -> cmd
    case $1 in
    tollway | tollway_unbound)
        # libiomp5 for IMB-MT comes from Intel's lib, libmpi.so.12 from Tollway's face
        cmd=(env "LD_LIBRARY_PATH=$build/lib/abi:$impi/lib" "$build/bin/mpiexec" -n "$ranks")
        [ "$1" = tollway ] || cmd+=(--bind-to none)
        ;;
    impi | impi_unpinned)
        cmd=(env "LD_LIBRARY_PATH=$impi/lib")
        [ "$1" = impi ] || cmd+=(I_MPI_PIN=off)
        cmd+=("$impi/bin/mpiexec" -n "$ranks")
        ;;
    esac
    cmd+=("$imb" -thread_level multiple -repeat "$repeat" -count "$count")
}

variants=(tollway tollway_unbound impi impi_unpinned)
for r in $(seq 1 "$rounds"); do
    for k in 0 1 2 3; do
        v=${variants[$(((k + r) % 4))]}
        command_of "$v"
        for b in $benches; do
            [ "$r" = 1 ] && echo "$v: ${cmd[*]} $b" >>"$out/commands.txt"
            # t_avg: the 4th column of a line of repetitions, or the 5th after bytes
            t=$(timeout "$limit" "${cmd[@]}" "$b" 2>>"$out/run-$v.log" |
                awk -v n="$repeat" '$1 == n && NF == 4 {print $4} $2 == n && NF == 5 {print $5}' |
                head -1) || true
            if [ -n "$t" ]; then echo "$r,$b,$v,$t" >>"$raw"; else echo "imbmt: $v $b round $r failed (see $out/run-$v.log)" >&2; fi
        done
    done
done

python3 - "$raw" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
at = {}
for r in rows:
    at.setdefault((r["bench"], r["mpi"]), {})[r["round"]] = float(r["usec"])
vs = ["tollway", "tollway_unbound", "impi", "impi_unpinned"]
def ratio(b, x, y):
    a, c = at.get((b, x), {}), at.get((b, y), {})
    q = [a[k] / c[k] for k in a if k in c]
    return "%.2f (%.2f-%.2f)" % (statistics.median(q), min(q), max(q)) if q else "-"
print("%-12s" % "bench" + "".join("%17s" % v for v in vs) + "   default/default      unbound/unpinned")
for b in sorted({r["bench"] for r in rows}):
    med = [statistics.median(at[(b, v)].values()) if (b, v) in at else float("nan") for v in vs]
    print("%-12s" % b + "".join("%17.2f" % m for m in med) +
          "   %-20s %s" % (ratio(b, "tollway", "impi"), ratio(b, "tollway_unbound", "impi_unpinned")))
print("(us a call, IMB-MT's t_avg; medians of %d rounds; ratios: median and range of"
      " per-round ratios, Tollway / Intel MPI)" % len({r["round"] for r in rows}))
PY
