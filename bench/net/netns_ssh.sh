#!/bin/sh
# Stands in for ssh when an MPI launcher starts its daemons on the "hosts" of
# bench/net/compare.sh: runs the command in the network namespace that owns the host
# address, with a host name of its own (MPI launchers tell nodes apart by name) and
# pinned to that host's core.
#
# usage (by the launcher): netns_ssh.sh [SSH-OPTIONS...] HOST COMMAND...
# env: NETNS_HOSTS="IP=NAMESPACE:CORE IP=NAMESPACE:CORE ..."
while [ $# -gt 0 ]; do
    case $1 in
    -*) shift ;;
    *) break ;;
    esac
done
host=$1
shift
for h in $NETNS_HOSTS; do
    if [ "${h%%=*}" = "$host" ]; then
        v=${h#*=}
        exec ip netns exec "${v%%:*}" unshare --uts taskset -c "${v#*:}" \
            sh -c "hostname ${v%%:*}; $*"
    fi
done
echo "netns_ssh.sh: unknown host $host" >&2
exit 255
