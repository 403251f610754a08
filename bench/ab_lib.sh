# The frame of an A/B run (sourced by bench/mpi/ab_*.sh): two builds, A before a
# change and B with it, measured in rounds that alternate which goes first, every row
# of output behind the build's label and the round, summarised by bench/ab_summary.py.
#
#   ab_builds "$@"            A and B from the command line (absolute), or the usage
#   ab_rounds ROUNDS MEASURE  runs `MEASURE LABEL BUILD_DIR ROUND` for each round and
#                             build (the load after each round on stderr); MEASURE appends to "$ab_csv" rows
#                             "LABEL,ROUND,program,test,size,value,unit"
#   ab_summary                the table of medians and per-round ratios B/A

ab_builds() {
    [ $# = 2 ] || { echo "usage: $0 BUILD_A BUILD_B" >&2; exit 2; }
    A=$(cd "$1" && pwd) B=$(cd "$2" && pwd)
    ab_csv=$(mktemp)
    trap 'rm -f "$ab_csv"' EXIT
}

ab_rounds() {
    local rounds=$1 measure=$2 r x order
    for r in $(seq 1 "$rounds"); do
        order="A B"
        [ $((r % 2)) = 0 ] && order="B A"
        for x in $order; do
            if [ "$x" = A ]; then "$measure" A "$A" "$r"; else "$measure" B "$B" "$r"; fi
        done
        echo "round $r of $rounds done; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    done
}

ab_summary() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/ab_summary.py" "$ab_csv" A B
}
