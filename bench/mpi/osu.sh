#!/usr/bin/env bash
# The OSU micro-benchmarks, as users measure with them: built with every MPI at hand
# (bench/peers.sh: Open MPI 4.1 and 5, MPICH 4.0 and 5, Intel MPI, Tollway), run with
# OSU's own iteration counts and sizes, each test round robin across the MPIs for ROUNDS
# rounds (the first MPI of a round rotates, so the figures a ratio compares are taken
# seconds apart). Runs with a core per rank are framed by the placement probe
# (BUILD_DIR/bin/core_probe), as in compare.sh.
#
# usage: bench/mpi/osu.sh [BUILD_DIR]      (default build)
#   env: OSU_SRC   the OSU micro-benchmarks' source: a directory or a .tar.gz (5.x to
#                  7.x; default BUILD_DIR/osu/src when it is there, else OSU_URL is
#                  downloaded there)
#        OSU_URL   default https://mvapich.cse.ohio-state.edu/download/mvapich/osu-micro-benchmarks-7.4.tar.gz
#        TESTS     default: every two-rank test below
#        RANKS     rank counts for the collectives (default 2); the point-to-point and
#                  one-sided tests always run on 2
#        ROUNDS    default 3
#        MPIS      default "openmpi mpich openmpi5 mpich5 impi tollway"
#        RUN_TIMEOUT  seconds per run (default 300): a run past it is recorded missing,
#                  and that MPI is not run again for that test on as many ranks or more
#        OUT       default BUILD_DIR/bench/osu
# The tests (OSU's names less osu_; each reports per size, the unit as OSU prints it):
#   point to point  latency (us), bw, bibw (MB/s), mbw_mr (messages/s)
#   collectives     barrier, bcast, reduce, allreduce, gather, scatter, allgather,
#                   alltoall, reduce_scatter (us)
#   one-sided       put_latency, get_latency, acc_latency, fop_latency, cas_latency
#                   (us), put_bw, get_bw (MB/s)
#
# Output in OUT:
#   <mpi>/          OSU built with that MPI (its build log: <mpi>/build.log)
#   raw.csv         mpi,test,size,ranks,round,value,probe_before,probe_after,note
#   failures.log    the command and the end of the output of every failed run
#   commands.txt    each MPI's command at each rank count
#   summary.csv, osu.md   from osu.py, which also prints the table: each cell's median
#                   per MPI and Tollway's ratio to the best peer, with that peer's name
set -euo pipefail
build=${1:-build}
[ -d "$build" ] || { echo "osu: no build directory $build" >&2; exit 2; }
build=$(cd "$build" && pwd) # configure runs in each MPI's copy of the tree
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
rounds=${ROUNDS:-3}
ranks_coll=${RANKS:-2}
limit=${RUN_TIMEOUT:-300}
wanted=${MPIS:-${PEERS_ALL[*]} tollway}
out=${OUT:-$build/bench/osu}
url=${OSU_URL:-https://mvapich.cse.ohio-state.edu/download/mvapich/osu-micro-benchmarks-7.4.tar.gz}
p2p_tests="latency bw bibw mbw_mr"
coll_tests="barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter"
rma_tests="put_latency get_latency acc_latency fop_latency cas_latency put_bw get_bw"
tests=${TESTS:-$p2p_tests $coll_tests $rma_tests}
cores=$(peer_cores)
start=$SECONDS

die() {
    echo "osu: $*" >&2
    exit 2
}
for v in ROUNDS:"$rounds" RUN_TIMEOUT:"$limit" $(printf 'RANKS:%s ' $ranks_coll); do
    [[ ${v#*:} =~ ^[1-9][0-9]*$ ]] || die "${v%%:*}: '${v#*:}' is not a positive number"
done
for t in $tests; do
    [[ " $p2p_tests $coll_tests $rma_tests " == *" $t "* ]] ||
        die "TESTS: no test '$t' (known: $p2p_tests $coll_tests $rma_tests)"
done
mkdir -p "$out"

# The source tree, unpacked once into OUT/src.
src=${OSU_SRC:-}
if [ -z "$src" ]; then
    if [ -d "$build/osu/src" ]; then
        src=$build/osu/src
    else
        src=$out/$(basename "$url")
        [ -f "$src" ] || curl -fsSL -o "$src" "$url" ||
            die "no OSU source: set OSU_SRC to a directory or tarball of the OSU" \
                "micro-benchmarks (downloading $url failed)"
    fi
fi
if [ -f "$src" ]; then
    rm -rf "$out/src" && mkdir -p "$out/src"
    tar -xzf "$src" -C "$out/src" --strip-components=1 || die "OSU_SRC: $src is not a .tar.gz"
    src=$out/src
fi
[ -x "$src/configure" ] || die "OSU_SRC: $src has no configure script"

# Builds OSU with one MPI into OUT/<mpi>; the tests' binaries are found by name there.
build_osu() {
    local mpi=$1 cc=$2 dir=$out/$1 cxx
    cxx=${cc%cc}cxx
    [ -x "$cxx" ] || command -v "$cxx" >/dev/null 2>&1 || cxx=$cc
    rm -rf "$dir" && cp -a "$src" "$dir"
    # a tree copied from git or a tarball may have its autotools outputs older than
    # their inputs: make would run automake, which the build does not need
    find "$dir" -name aclocal.m4 -exec touch {} + && sleep 1
    find "$dir" \( -name configure -o -name Makefile.in -o -name config.h.in \) -exec touch {} +
    (cd "$dir" && ./configure CC="$cc" CXX="$cxx" && make -j"$(nproc)") >"$dir/build.log" 2>&1
}
binary() { find "$out/$1" -type f -name "osu_$2" -perm -u+x | head -1; }

mpis=()
for mpi in $wanted; do
    cc=$(peer_cc "$mpi" "$build") || die "MPIS: unknown MPI '$mpi' (${PEERS_ALL[*]} tollway)"
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "osu: $mpi skipped: $cc not found (make bench-peers bench-peers-pypi, or build)" >&2
        continue
    fi
    # Intel MPI runs the programs MPICH 5 builds (MPICH's ABI)
    if [ "$mpi" = impi ] && [ -d "$out/mpich5" ] && [ -n "$(binary mpich5 latency)" ]; then
        rm -rf "$out/impi" && cp -a "$out/mpich5" "$out/impi"
    elif ! build_osu "$mpi" "$cc"; then
        echo "osu: $mpi skipped: OSU does not build with $cc (see $out/$mpi/build.log)" >&2
        continue
    fi
    peer_launcher "$mpi" 2 "$cores" "$build"
    if ! timeout -k 5 120 "${cmd[@]}" "$(binary "$mpi" latency)" >"$out/smoke.log" 2>&1 ||
        ! grep -q '^8 ' "$out/smoke.log"; then
        echo "osu: $mpi skipped: a 2-rank osu_latency failed: ${cmd[*]} (see $out/smoke.log)" >&2
        continue
    fi
    mpis+=("$mpi")
done
[ ${#mpis[@]} -gt 0 ] || die "no MPI builds and runs OSU"

{
    echo "# $cores cores; OSU from $src, its own iteration counts"
    for mpi in "${mpis[@]}"; do
        # shellcheck disable=SC2086 # a list of rank counts
        for n in $(printf '%s\n' 2 $ranks_coll | sort -nu); do
            peer_launcher "$mpi" "$n" "$cores" "$build"
            echo "$mpi $n ranks: ${cmd[*]} $out/$mpi/.../osu_TEST"
        done
    done
} | tee "$out/commands.txt"

probe_bin=$build/bin/core_probe
[ -x "$probe_bin" ] || probe_bin=
probe() { [ -z "$probe_bin" ] || [ "$1" -gt "$cores" ] || "$probe_bin" || true; }

# The cells of a round: "ranks test", collectives on each rank count.
cells=()
for t in $tests; do
    if [[ " $coll_tests " == *" $t "* ]]; then
        for n in $ranks_coll; do cells+=("$n $t"); done
    else
        cells+=("2 $t")
    fi
done

raw=$out/raw.csv
echo "mpi,test,size,ranks,round,value,probe_before,probe_after,note" >"$raw"
: >"$out/failures.log"
declare -A gave_up # "mpi test" -> the fewest ranks it timed out on
tmp=$out/run.out
failed=0
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds ($((SECONDS - start)) s)" >&2
    for cell in "${cells[@]}"; do
        read -r n t <<<"$cell"
        line="  $t, $n ranks:"
        k=${#mpis[@]}
        for j in $(seq 0 $((k - 1))); do
            mpi=${mpis[$(((r - 1 + j) % k))]}
            if [ -n "${gave_up[$mpi $t]:-}" ] && [ "$n" -ge "${gave_up[$mpi $t]}" ]; then
                echo "$mpi,$t,,$n,$r,,,,skipped: timed out on ${gave_up[$mpi $t]} ranks" >>"$raw"
                line+=" $mpi skipped"
                continue
            fi
            bin=$(binary "$mpi" "$t")
            if [ -z "$bin" ]; then
                echo "$mpi,$t,,$n,$r,,,,this OSU has no osu_$t" >>"$raw"
                continue
            fi
            peer_launcher "$mpi" "$n" "$cores" "$build"
            before=$(probe "$n")
            rc=0
            timeout -k 5 "$limit" "${cmd[@]}" "$bin" >"$tmp" 2>&1 || rc=$?
            after=$(probe "$n")
            note=
            if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
                note="timed out after $limit s"
                gave_up[$mpi $t]=$n
            elif [ "$rc" -ne 0 ]; then
                note="failed with status $rc (failures.log)"
            fi
            # a result line: the size, then the figure (barrier: the figure alone;
            # mbw_mr: MB/s, then messages/s, which is the one kept)
            rows=$(awk -v t="$t" '!/^#/ && $1 ~ /^[0-9][0-9.]*$/ {
                    if (t == "barrier") print 0, $1; else if (t == "mbw_mr") print $1, $3;
                    else print $1, $2 }' "$tmp")
            if [ -z "$note" ] && [ -z "$rows" ]; then note="no result in its output (failures.log)"; fi
            if [ -n "$note" ]; then
                failed=$((failed + 1))
                {
                    echo "== $mpi $t $n ranks round $r: $note"
                    echo "${cmd[*]} $bin"
                    tail -n 20 "$tmp"
                } >>"$out/failures.log"
                echo "$mpi,$t,,$n,$r,,$before,$after,$note" >>"$raw"
                line+=" $mpi -"
                continue
            fi
            awk -v p="$mpi,$t" -v q="$n,$r" -v b="$before" -v a="$after" \
                '{print p "," $1 "," q "," $2 "," b "," a ","}' <<<"$rows" >>"$raw"
            line+=" $mpi ok"
        done
        echo "$line" >&2
    done
done
rm -f "$tmp"
[ "$failed" -eq 0 ] || echo "osu: $failed runs failed or timed out (failures.log)" >&2

python3 "$here/osu.py" "$raw" "$out"
echo "total time: $((SECONDS - start)) s"
