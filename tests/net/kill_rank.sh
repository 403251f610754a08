#!/bin/sh
# kill_rank.sh RANK SECONDS PROGRAM [ARGS...]: runs PROGRAM; in the rank named
# ($PMI_RANK), kills it with SIGKILL after SECONDS, as a crash would.
rank=$1 after=$2
shift 2
[ "$PMI_RANK" = "$rank" ] || exec "$@"
"$@" &
sleep "$after"
kill -9 $!
wait $!
