#!/usr/bin/env bash
# A rank killed by a signal under MPI_Init's handler (TW_BACKTRACE): crash.c's rank 1
# dies, and stderr names the rank, its pid and host and the signal, with a backtrace
# through the program; twrun still reports the rank killed by that signal and exits
# 128 + its number.
# usage: crash.sh CASE MPIEXEC PROGRAM
#   segv, overflow (on the alternate stack), abort   the report, then the signal
#   off       TW_BACKTRACE=0: no report, the signal still kills the rank
#   own       the program's own SIGSEGV handler stays: it runs, nothing of Tollway's
set -uo pipefail
case_name=$1 mpiexec=$2 prog=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() {
    echo "--- output:"
    cat "$out"
    echo "FAIL ($case_name): $*"
    exit 1
}

# run MODE [VAR=VALUE...]: the job, its output in $out, its exit status in rc
run() {
    local mode=$1
    shift
    env "$@" "$mpiexec" -n 3 --timeout 300 "$prog" "$mode" >"$out" 2>&1
    rc=$?
}

# reported SIGNAL NUMBER: the rank's report with a frame of the program, and twrun's
reported() {
    local sig=$1 num=$2
    [ "$rc" = $((128 + num)) ] || fail "exit status $rc, expected $((128 + num))"
    grep -Eq "^tollway MPI: rank 1 \(pid [0-9]+, host [^)]+\): signal $sig\b" "$out" ||
        fail "no line 'rank 1 (pid P, host H): signal $sig'"
    # backtrace_symbols_fd: "object(symbol+offset)[address]", one of them the program
    grep -Eq "^[^ ]*${prog##*/}\(.*\)\[0x[0-9a-f]+\]$" "$out" ||
        fail "no backtrace frame in ${prog##*/}"
    grep -q "twrun: rank 1 (pid [0-9]*) was killed by signal $num ($sig)" "$out" ||
        fail "twrun does not report rank 1 killed by $sig"
}

case $case_name in
segv)
    run segv
    reported SIGSEGV 11
    grep -q "signal SIGSEGV at address 0x0;" "$out" || fail "the faulting address is not 0x0"
    ;;
overflow)
    run overflow
    reported SIGSEGV 11
    ;;
abort)
    run abort
    reported SIGABRT 6
    ;;
off)
    run segv TW_BACKTRACE=0
    [ "$rc" = 139 ] || fail "exit status $rc, expected 139"
    ! grep -q "signal SIGSEGV" "$out" || fail "TW_BACKTRACE=0, and still a report"
    grep -q "twrun: rank 1 (pid [0-9]*) was killed by signal 11 (SIGSEGV)" "$out" ||
        fail "twrun does not report rank 1 killed by SIGSEGV"
    ;;
own)
    run own
    [ "$rc" = 42 ] || fail "exit status $rc, expected 42 (the program's own handler)"
    grep -qx "own handler" "$out" || fail "the program's handler did not run"
    ! grep -q "signal SIGSEGV" "$out" || fail "Tollway's handler replaced the program's"
    ;;
*) fail "unknown case" ;;
esac
cat "$out"
echo "ok: $case_name"
