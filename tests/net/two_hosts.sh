#!/usr/bin/env bash
# Runs a command with two "hosts": two network namespaces joined by a veth pair
# (10.77.N.1 and 10.77.N.2), made for this run and removed after it however it ends.
# The command sees the namespace names in $HOST_A and $HOST_B, for
# twrun --hosts "$HOST_A,$HOST_B"; their addresses in $HOST_A_IP and $HOST_B_IP, the
# network's first three bytes in $HOST_NET, the veth ends in $HOST_A_DEV and $HOST_B_DEV.
#
# usage: two_hosts.sh COMMAND [ARGS...]      env: MTU of the veth pair (default: veth's)
# Exits 77 (a skipped test to ctest) when namespaces cannot be made: not root, or no
# iproute2 (Debian: apt-get install iproute2).
set -euo pipefail
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
    echo "two_hosts.sh: needs root and iproute2 to make network namespaces: skipped" >&2
    exit 77
fi
tag=$$
a=tw-$tag-a
b=tw-$tag-b
net=$((tag % 250 + 1))
cleanup() {
    ip netns del "$a" 2>/dev/null || true
    ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
if ! ip netns add "$a" 2>/dev/null || ! ip netns add "$b"; then
    echo "two_hosts.sh: cannot make network namespaces here: skipped" >&2
    exit 77
fi
ip link add "va$tag" netns "$a" type veth peer name "vb$tag" netns "$b"
ip -n "$a" addr add "10.77.$net.1/24" dev "va$tag"
ip -n "$b" addr add "10.77.$net.2/24" dev "vb$tag"
for ns in "$a" "$b"; do
    ip -n "$ns" link set lo up
done
ip -n "$a" link set "va$tag" ${MTU:+mtu "$MTU"} up
ip -n "$b" link set "vb$tag" ${MTU:+mtu "$MTU"} up
# until both ends have carrier: libfabric's tcp provider (the ofi link) offers only the
# interfaces that are running, and the second end of a pair gets it a moment after
for i in $(seq 100); do
    ip -n "$a" -o link show "va$tag" | grep -q "state UP" &&
        ip -n "$b" -o link show "vb$tag" | grep -q "state UP" && break
    sleep 0.05
done
export HOST_A=$a HOST_B=$b HOST_NET=10.77.$net HOST_A_IP=10.77.$net.1 HOST_B_IP=10.77.$net.2
export HOST_A_DEV=va$tag HOST_B_DEV=vb$tag
"$@"
