#!/bin/bash
# A second job with a live job's id is refused and leaves the live job whole; a name
# left by a job that died is replaced. usage: same_job_id.sh EP_HOLD
set -euo pipefail
hold=$1
id=$(printf '%016x' $((RANDOM * 32768 + RANDOM + 0x5a000000)))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f /dev/shm/tw-$id-*' EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*; do echo "--- $f"; cat "$f"; done; exit 1; }

# the live job: one process holding its endpoint for 3 s
TW_JOB_ID=$id "$hold" 3 >"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
for _ in $(seq 100); do grep -q open "$tmp/a.out" && break; sleep 0.1; done
grep -q open "$tmp/a.out" || fail "the first job did not open its endpoint"

# the second, same id: refused with the reason, at once
if TW_JOB_ID=$id "$hold" 0 >"$tmp/b.out" 2>"$tmp/b.err"; then fail "a second job with a live job's id ran"; fi
grep -q "which is alive: a job with the same id (TW_JOB_ID $id) is running" "$tmp/b.err" ||
    fail "the second job's refusal does not say why"
wait "$a" || fail "the first job did not survive the second"
grep -q "stayed whole" "$tmp/a.out" || fail "the first job's endpoint was not whole"

# a leftover of a dead job (no live owner) is replaced
: >"/dev/shm/tw-$id-ep0-0"
TW_JOB_ID=$id "$hold" 0 >"$tmp/c.out" 2>"$tmp/c.err" || fail "a dead job's leftover blocked a new job"
echo "same_job_id: the live job refused, its endpoint whole; a leftover replaced"
