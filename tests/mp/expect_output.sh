#!/usr/bin/env bash
# expect_output.sh --pass|--fail TEXT -- COMMAND...
# expect_output.sh --exit STATUS TEXT -- COMMAND...
# Runs COMMAND; passes when it exits zero (--pass), non-zero (--fail) or with exactly
# STATUS (--exit), and its output contains TEXT.
set -u
want=$1
if [ "$want" = --exit ]; then
    status=$2
    shift
fi
text=$2
shift 3
out=$("$@" 2>&1)
rc=$?
echo "$out"
if [ "$want" = --pass ] && [ $rc -ne 0 ]; then echo "FAIL: exit status $rc, expected 0"; exit 1; fi
if [ "$want" = --fail ] && [ $rc -eq 0 ]; then echo "FAIL: exit status 0, expected failure"; exit 1; fi
if [ "$want" = --exit ] && [ $rc -ne "$status" ]; then echo "FAIL: exit status $rc, expected $status"; exit 1; fi
if ! grep -qF -- "$text" <<<"$out"; then echo "FAIL: output lacks: $text"; exit 1; fi
echo "ok: exit status $rc, output names: $text"
