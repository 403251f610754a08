#!/bin/bash
# Launcher tests: launcher_test.sh CASE TWRUN PROBE
# Each case runs twrun on launch_probe (or a shell) and checks its exit status,
# its messages, how fast it ended, and that no shared-memory object of the job
# is left in /dev/shm.
set -euo pipefail

case_name=$1
twrun=$2
probe=$3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PROBE_JOBID_FILE=$tmp/jobid

rc=0
elapsed=0

fail() {
    echo "FAIL ($case_name): $*" >&2
    if [[ -f $tmp/err ]]; then
        echo "--- twrun stderr:" >&2
        cat "$tmp/err" >&2
    fi
    exit 1
}

now_ms() { date +%s%3N; }

# run ARGS...: runs twrun, recording rc, stdout ($tmp/out), stderr ($tmp/err).
run() {
    local start
    start=$(now_ms)
    rm -f "$PROBE_JOBID_FILE"
    set +e
    "$twrun" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    set -e
    elapsed=$(($(now_ms) - start))
}

expect_rc() {
    [[ $rc == "$1" ]] || fail "exit status $rc, expected $1"
}

expect_quick() { # the job must end well before the ranks' 30 s sleep
    ((elapsed < 20000)) || fail "took ${elapsed} ms"
}

# stderr holds exactly one line, containing every argument.
expect_one_line() {
    local lines
    lines=$(wc -l <"$tmp/err")
    [[ $lines == 1 ]] || fail "stderr has $lines lines, expected 1"
    for word in "$@"; do
        grep -qF -- "$word" "$tmp/err" || fail "stderr does not mention '$word'"
    done
}

# At least $1 ranks recorded the job id; its shared memory and its ranks are gone.
expect_clean() {
    local min=$1 ids id
    [[ -f $PROBE_JOBID_FILE ]] || fail "no rank recorded its job id"
    local count
    count=$(wc -l <"$PROBE_JOBID_FILE")
    ((count >= min)) || fail "$count ranks recorded the job id, expected at least $min"
    ids=$(sort -u "$PROBE_JOBID_FILE")
    [[ $(wc -l <<<"$ids") == 1 ]] || fail "ranks disagree on the job id: $ids"
    id=$ids
    [[ $id =~ ^[0-9a-f]{16}$ ]] || fail "job id '$id' is not 16 lowercase hex digits"
    if compgen -G "/dev/shm/tw-$id-*" >/dev/null; then
        fail "left in /dev/shm: $(echo /dev/shm/tw-"$id"-*)"
    fi
    local envf
    for envf in /proc/[0-9]*/environ; do
        if tr '\0' '\n' <"$envf" 2>/dev/null | grep -qx "TW_JOB_ID=$id"; then
            fail "a rank of the job is still running: $envf"
        fi
    done
}

wait_started() { # until $1 ranks recorded the job id (they started), at most 20 s
    for _ in $(seq 200); do
        [[ -f $PROBE_JOBID_FILE && $(wc -l <"$PROBE_JOBID_FILE") -ge $1 ]] && return
        sleep 0.1
    done
    fail "the ranks did not start"
}

cpu_count() { # number of CPUs in a Cpus_allowed_list value such as 0-3,8
    local list=$1 n=0 part
    IFS=, read -ra parts <<<"$list"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then
            n=$((n + ${part#*-} - ${part%-*} + 1))
        else
            n=$((n + 1))
        fi
    done
    echo "$n"
}

case $case_name in
ok)
    run -n 4 --timeout 60 "$probe" ok
    expect_rc 0
    [[ ! -s $tmp/err ]] || fail "unexpected messages"
    expect_clean 4
    # The names build systems look for run the same launcher.
    "$(dirname "$twrun")/mpiexec" -n 2 --timeout 60 "$probe" ok
    "$(dirname "$twrun")/mpirun" -np 2 --timeout 60 "$probe" ok
    ;;
garbage)
    run -n 3 --timeout 60 "$probe" garbage
    expect_rc 0
    [[ ! -s $tmp/err ]] || fail "unexpected messages"
    expect_clean 3
    ;;
exit)
    run -n 3 --timeout 60 "$probe" exit 1 3
    expect_rc 3
    expect_one_line "rank 1 " "status 3" "ending the job"
    expect_quick
    expect_clean 1
    ;;
kill)
    run -n 3 --timeout 60 "$probe" kill 2
    expect_rc 137
    expect_one_line "rank 2 " "SIGKILL" "signal 9"
    expect_quick
    expect_clean 1
    ;;
stuck)
    run -n 3 --timeout 60 "$probe" stuck 1
    expect_rc 3
    expect_one_line "rank 1 " "status 3"
    expect_quick
    expect_clean 1
    ;;
stubborn)
    # Ranks that ignore SIGTERM are killed after the grace period.
    run -n 3 --timeout 60 "$probe" stubborn 0
    expect_rc 3
    expect_one_line "rank 0 " "status 3"
    expect_quick
    expect_clean 1
    ;;
leave)
    # A rank exits 0 before a barrier the others wait in: it can never complete.
    run -n 3 --timeout 60 "$probe" leave 0
    [[ $rc != 0 && $rc != 124 ]] || fail "exit status $rc"
    expect_one_line "rank 0 " "barrier"
    expect_quick
    expect_clean 1
    ;;
abort)
    run -n 3 --timeout 60 "$probe" abort 2 5
    expect_rc 5
    expect_one_line "rank 2 called abort with code 5"
    expect_quick
    expect_clean 1
    ;;
timeout)
    run -n 2 --timeout 1 "$probe" sleep
    expect_rc 124
    expect_one_line "job exceeded --timeout 1 s"
    expect_quick
    expect_clean 1
    ;;
mpiexec_timeout) # Hydra's variable bounds the job as --timeout does; the option wins
    MPIEXEC_TIMEOUT=1 run -n 2 "$probe" sleep
    expect_rc 124
    expect_one_line "job exceeded MPIEXEC_TIMEOUT 1 s"
    expect_quick
    expect_clean 1
    MPIEXEC_TIMEOUT=1 run -n 2 --timeout 60 "$probe" ok
    expect_rc 0
    MPIEXEC_TIMEOUT=soon run -n 2 "$probe" ok
    expect_rc 2
    grep -qF "MPIEXEC_TIMEOUT must be a positive number of seconds, not 'soon'" "$tmp/err" ||
        fail "a bad MPIEXEC_TIMEOUT: no message naming it"
    ;;
usage)
    run
    expect_rc 2
    grep -q "number of ranks is missing" "$tmp/err" || fail "no args: no message"
    run -n 0 "$probe" ok
    expect_rc 2
    grep -q "'0'" "$tmp/err" || fail "-n 0: no message"
    run -n abc "$probe" ok
    expect_rc 2
    grep -q "'abc'" "$tmp/err" || fail "-n abc: no message"
    run -n 4097 "$probe" ok
    expect_rc 2
    run -n
    expect_rc 2
    grep -q "needs a value" "$tmp/err" || fail "-n without value: no message"
    run -n 2
    expect_rc 2
    grep -q "program to run is missing" "$tmp/err" || fail "missing program: no message"
    run --frobnicate -n 2 "$probe" ok
    expect_rc 2
    grep -q "unknown option '--frobnicate'" "$tmp/err" || fail "unknown option: no message"
    run -n 2 --bind-to socket "$probe" ok
    expect_rc 2
    grep -q "'socket'" "$tmp/err" || fail "bad --bind-to: no message"
    run -n 2 --timeout -5 "$probe" ok
    expect_rc 2
    run -n 2 --hosts a/b "$probe" ok
    expect_rc 2
    grep -q "'a/b'" "$tmp/err" || fail "--hosts with a path: no message"
    run -n 2 --hosts , "$probe" ok
    expect_rc 2
    grep -q "at least one" "$tmp/err" || fail "--hosts without a name: no message"
    # A host that is neither this machine nor a namespace: refused before anything starts.
    run -n 2 --timeout 20 --hosts tw-no-such-namespace-$$ "$probe" ok
    expect_rc 2
    grep -q "unknown host 'tw-no-such-namespace-$$'" "$tmp/err" ||
        fail "a namespace that does not exist: no message"
    run --help
    expect_rc 0
    for opt in -n -np --bind-to --timeout --hosts --help --version; do
        grep -qe "$opt" "$tmp/out" || fail "--help does not list $opt"
    done
    run --version
    expect_rc 0
    grep -q "twrun" "$tmp/out" || fail "--version prints nothing"
    run -n 2 --timeout 60 "$tmp/no-such-program"
    [[ $rc != 0 ]] || fail "a program that does not exist succeeded"
    grep -q "cannot execute '$tmp/no-such-program'" "$tmp/err" || fail "no 'cannot execute'"
    # Options after the program belong to the program.
    run -n 1 --timeout 60 -- sh -c 'printf "%s\n" "$*"' sh -n 5 --bind-to
    expect_rc 0
    [[ $(cat "$tmp/out") == "-n 5 --bind-to" ]] || fail "arguments not passed: $(cat "$tmp/out")"
    ;;
sigint)
    rm -f "$PROBE_JOBID_FILE"
    # A background job of a script ignores SIGINT unless told otherwise.
    env --default-signal=INT "$twrun" -n 3 --timeout 60 "$probe" sleep \
        >"$tmp/out" 2>"$tmp/err" </dev/null &
    pid=$!
    wait_started 3
    start=$(now_ms)
    kill -INT "$pid"
    set +e
    wait "$pid"
    rc=$?
    set -e
    elapsed=$(($(now_ms) - start))
    expect_rc 130
    expect_one_line "interrupted by SIGINT"
    expect_quick
    expect_clean 3
    ;;
sigkill) # twrun killed outright: its ranks die with it and the job leaves nothing
    rm -f "$PROBE_JOBID_FILE"
    "$twrun" -n 3 --timeout 60 "$probe" sleep >"$tmp/out" 2>"$tmp/err" </dev/null &
    pid=$!
    wait_started 3
    id=$(head -1 "$PROBE_JOBID_FILE")
    compgen -G "/dev/shm/tw-$id-*" >/dev/null || fail "the ranks made no shared memory to leave"
    kill -KILL "$pid"
    set +e
    wait "$pid"
    set -e
    for _ in $(seq 200); do # the reaper acts once the ranks are gone: well within 20 s
        compgen -G "/dev/shm/tw-$id-*" >/dev/null || break
        sleep 0.1
    done
    expect_clean 3
    ;;
bind)
    allowed=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
    ncpu=$(cpu_count "$allowed")
    show='echo "$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status) ${TW_BOUND_CORE:-none}"'
    run -n 1 --timeout 60 sh -c "$show"
    expect_rc 0
    read -r list core <"$tmp/out"
    if ((ncpu > 1)); then
        # One core: one CPU, or its hardware threads.
        n=$(cpu_count "$list")
        ((n >= 1 && n < ncpu)) || fail "bound rank may run on '$list' (allowed: '$allowed')"
        [[ $core == 0 ]] || fail "TW_BOUND_CORE is '$core', expected 0"
    fi
    run -n 1 --bind-to none --timeout 60 sh -c "$show"
    expect_rc 0
    read -r list core <"$tmp/out"
    [[ $list == "$allowed" ]] || fail "unbound rank may run on '$list', expected '$allowed'"
    [[ $core == none ]] || fail "TW_BOUND_CORE is set without binding"
    # More ranks than cores: nobody is bound.
    run -n $((ncpu + 1)) --timeout 60 sh -c "$show"
    expect_rc 0
    while read -r list core; do
        [[ $list == "$allowed" && $core == none ]] || fail "oversubscribed rank bound: $list $core"
    done <"$tmp/out"
    ;;
env)
    # The environment every rank gets, and what the ranks share.
    run -n 3 --timeout 60 sh -c 'echo "$PMI_RANK $PMI_SIZE $TW_LOCAL_RANK $TW_LOCAL_SIZE $TW_JOB_ID $TW_JOB_KEY $PMI_FD"'
    expect_rc 0
    lines=$(sort "$tmp/out")
    [[ $(wc -l <<<"$lines") == 3 ]] || fail "expected 3 ranks: $lines"
    i=0
    while read -r prank psize lrank lsize id key fd; do
        [[ $prank == "$i" && $lrank == "$i" && $psize == 3 && $lsize == 3 ]] ||
            fail "rank $i: $prank $psize $lrank $lsize"
        [[ $id =~ ^[0-9a-f]{16}$ && $key =~ ^[0-9a-f]{16}$ ]] || fail "job id/key: '$id' '$key'"
        [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)) || fail "PMI_FD '$fd'"
        i=$((i + 1))
    done <<<"$lines"
    [[ $(cut -d' ' -f5 <<<"$lines" | sort -u | wc -l) == 1 ]] || fail "ranks got different job ids"
    # Rank 0 reads twrun's stdin; the others read nothing.
    printf 'hello\n' | "$twrun" -n 2 --timeout 60 sh -c 'read -r l || l=EOF; echo "$PMI_RANK $l"' \
        >"$tmp/out"
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 hello 1 EOF " ]] || fail "stdin: $(cat "$tmp/out")"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS ($case_name)"
