#!/usr/bin/env bash
# Runs a command while every core is also busy with other work: LOAD processes of
# `yes >/dev/null` (one per core by default), started before it and ended after it
# however it ends. The tests must pass so (docs/testing.md); `make test-loaded` runs
# `make test` this way.
# usage: under_load.sh COMMAND [ARGS...]      env: LOAD (default: the number of cores)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
n=${LOAD:-$(nproc)}
case $n in
'' | *[!0-9]*)
    echo "under_load.sh: LOAD must be a number of processes, not '$n'" >&2
    exit 2
    ;;
esac
pids=()
stop() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for ((i = 0; i < n; i++)); do
    yes >/dev/null &
    pids+=($!)
done
echo "under_load.sh: $n busy processes (${pids[*]}) while: $*" >&2
start=$(date +%s)
rc=0
"$@" || rc=$?
echo "under_load.sh: '$*' ended with status $rc after $(($(date +%s) - start)) s, $n busy processes beside it" >&2
exit $rc
