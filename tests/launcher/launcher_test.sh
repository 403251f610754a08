#!/bin/bash
# shellcheck disable=SC2016 # the commands in single quotes are the ranks' to expand
# Launcher tests: launcher_test.sh CASE TWRUN PROBE
# Each case runs twrun on launch_probe (or a shell) and checks its exit status,
# its messages, how fast it ended, and that no shared-memory object of the job
# is left in /dev/shm.
set -euo pipefail

case_name=$1
twrun=$2
probe=$3

# twrun's own launching, also when the tests run inside a Slurm allocation (where
# twrun would hand the jobs to srun): tests/slurm covers that
unset SLURM_JOB_ID

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
run_prefix=() # a command twrun runs under (taskset)
run() {
    local start
    start=$(now_ms)
    rm -f "$PROBE_JOBID_FILE"
    set +e
    "${run_prefix[@]}" "$twrun" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
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
    run -frob -n 2 "$probe" ok
    expect_rc 2
    grep -q "unknown option '-frob'" "$tmp/err" || fail "-frob: no message"
    run -n 2 --mca btl self "$probe" ok
    expect_rc 2
    grep -q -- "--mca: Open MPI's MCA parameters" "$tmp/err" || fail "--mca: no message"
    # The spellings of the number of ranks.
    for n in "-n2" "-n=2" "--np=2" "-np 2" "-np2" "-c 2" "--n 2"; do
        # shellcheck disable=SC2086 # the spelling is words
        run $n --timeout 60 "$probe" ok
        expect_rc 0
        expect_clean 2
    done
    run --help
    expect_rc 0
    for opt in -n -np --bind-to --timeout --hosts -host -hostfile -ppn --oversubscribe -genv -env \
        -x -wdir -l --tag-output --output-filename --map-by --help --version; do
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
    # Where each rank is bound, when asked; --oversubscribe binds nobody.
    if ((ncpu > 1)); then
        run --report-bindings -n 1 --timeout 60 true
        expect_rc 0
        expect_one_line "twrun: rank 0 bound to core 0: CPUs "
    fi
    run --report-bindings --oversubscribe -n 1 --timeout 60 true
    expect_rc 0
    expect_one_line "twrun: rank 0 not bound"
    # More ranks than cores: they take the cores in turn, none its own, by default and
    # with --bind-to core
    if ((ncpu > 1)); then
        for opt in "" "--bind-to core"; do
            # shellcheck disable=SC2086 # opt splits into its words
            run $opt --report-bindings -n $((ncpu + 1)) --timeout 60 sh -c "$show"
            expect_rc 0
            grep -q "^twrun: rank $ncpu bound to core 0: CPUs " "$tmp/err" ||
                fail "rank $ncpu of $((ncpu + 1)) not bound to core 0 ($opt): $(cat "$tmp/err")"
            while read -r list core; do
                n=$(cpu_count "$list")
                ((n >= 1 && n < ncpu)) && [[ $core == none ]] ||
                    fail "rank bound in turn may run on '$list' (TW_BOUND_CORE $core)"
            done <"$tmp/out"
        done
    fi
    # ... and with --oversubscribe or --bind-to none, nobody is bound
    for opt in --oversubscribe "--bind-to none"; do
        # shellcheck disable=SC2086
        run $opt -n $((ncpu + 1)) --timeout 60 sh -c "$show"
        expect_rc 0
        while read -r list core; do
            [[ $list == "$allowed" && $core == none ]] || fail "rank bound with $opt: $list $core"
        done <"$tmp/out"
    done
    # twrun itself kept to one CPU (taskset): its ranks share that CPU, bound to nothing
    # else, however many the machine has
    if command -v taskset >/dev/null; then
        first=${allowed%%[,-]*}
        run_prefix=(taskset -c "$first")
        run -n 2 --timeout 60 sh -c "$show"
        run_prefix=()
        expect_rc 0
        while read -r list core; do
            [[ $list == "$first" && $core == none ]] ||
                fail "a rank of twrun kept to CPU $first may run on '$list' (TW_BOUND_CORE $core)"
        done <"$tmp/out"
    fi
    ;;
mpmd)
    # Two different MPI programs in one MPI_COMM_WORLD: each rank checks its MPI_APPNUM,
    # the world's size and that ranks are numbered in the order the programs were given.
    bin=$(dirname "$probe")
    run -n 2 --timeout 60 "$bin/mpmd_rank_a" 2,1 : -n 1 "$bin/mpmd_rank_b" 2,1
    expect_rc 0
    grep -qx "mpmd: 3 ranks of 2 programs" "$tmp/out" || fail "2 programs: $(cat "$tmp/out")"
    run -np 1 --timeout 60 "$bin/mpmd_rank_a" 1,2,1 : -np 2 "$bin/mpmd_rank_b" 1,2,1 : \
        -n 1 "$bin/mpmd_rank_a" 1,2,1
    expect_rc 0
    grep -qx "mpmd: 4 ranks of 3 programs" "$tmp/out" || fail "3 programs: $(cat "$tmp/out")"
    # The appnum through PMI (what an MPICH-built program asks), and PMI_SIZE.
    run -n 2 --timeout 60 "$probe" appnum : -n 1 "$probe" appnum : -n 2 "$probe" appnum
    expect_rc 0
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 5 0 1 5 0 2 5 1 3 5 2 4 5 2 " ]] ||
        fail "appnums: $(sort "$tmp/out" | tr '\n' ' ')"
    expect_clean 5
    # Each program gets its own arguments, never the rest of the line.
    printf '#!/bin/sh\necho "$0 $PMI_RANK [$*]"\n' >"$tmp/a"
    cp "$tmp/a" "$tmp/b"
    chmod +x "$tmp/a" "$tmp/b"
    run -n 1 --timeout 60 "$tmp/a" x : -n 1 "$tmp/b"
    expect_rc 0
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "$tmp/a 0 [x] $tmp/b 1 [] " ]] ||
        fail "-n 1 a : -n 1 b ran: $(cat "$tmp/out")"
    # A segment without -n, an empty one, a missing program: refused, nothing runs.
    run -n 1 --timeout 60 "$tmp/a" : "$tmp/b"
    expect_rc 2
    [[ ! -s $tmp/out ]] || fail "a program ran: $(cat "$tmp/out")"
    grep -qF "program 2 of the job ('$tmp/b') has no number of ranks" "$tmp/err" ||
        fail "a segment without -n: no message"
    run -n 1 --timeout 60 "$tmp/a" :
    expect_rc 2
    [[ ! -s $tmp/out ]] || fail "a program ran: $(cat "$tmp/out")"
    run -n 1 --timeout 60 "$tmp/a" : -n 1 "$tmp/no-such-b"
    expect_rc 127
    [[ ! -s $tmp/out ]] || fail "a program ran: $(cat "$tmp/out")"
    grep -qF "cannot execute '$tmp/no-such-b' (program 2 of the job)" "$tmp/err" ||
        fail "a missing second program: no message"
    run -n 1 --timeout 60 "$tmp/a" : -n 1 -ppn 1 "$tmp/b"
    expect_rc 2
    grep -qF "'-ppn' applies to the whole job" "$tmp/err" || fail "a job option after ':'"
    ;;
env_options)
    show='echo "$PMI_RANK G=${G-unset} A=${A-unset} B=${B-unset} X=${X-unset} Y=${Y-unset} P=${PATH:+set}"'
    export Y=from-twrun
    run -genv G g -x X=x -n 1 -env A a sh -c "$show" : -n 1 -env B b -x Y sh -c "$show"
    expect_rc 0
    [[ $(sort "$tmp/out") == "0 G=g A=a B=unset X=x Y=from-twrun P=set
1 G=g A=unset B=b X=x Y=from-twrun P=set" ]] || fail "-genv/-env/-x: $(sort "$tmp/out")"
    # none of twrun's variables: only those set or named (-x VAR, -genvlist), and twrun's own
    own() { grep -vE '^(PMI_|TW_|TWRUN_|MPI_LOCAL|OMPI_COMM_WORLD_)' "$tmp/out" | sort | tr '\n' ' '; }
    run -genvnone -x Y -genv G g -n 1 /usr/bin/env
    expect_rc 0
    [[ $(own) == "G=g Y=from-twrun " ]] || fail "-genvnone: $(own)"
    run -genvlist Y,HOME -n 1 /usr/bin/env
    expect_rc 0
    [[ $(own) == "HOME=$HOME Y=from-twrun " ]] || fail "-genvlist: $(own)"
    # a program's -envnone / -envlist over the job's
    run -genv G g -n 1 true : -n 1 -envnone /usr/bin/env
    expect_rc 0
    [[ $(own) == "G=g " ]] || fail "-envnone: $(own)"
    run -genvnone -n 1 -envlist Y /usr/bin/env
    expect_rc 0
    [[ $(own) == "Y=from-twrun " ]] || fail "-envlist: $(own)"
    # The program is looked for along the PATH its ranks get.
    mkdir -p "$tmp/bin"
    printf '#!/bin/sh\necho found\n' >"$tmp/bin/tw-only-here"
    chmod +x "$tmp/bin/tw-only-here"
    run -x "PATH=$tmp/bin:$PATH" -n 1 tw-only-here
    expect_rc 0
    [[ $(cat "$tmp/out") == found ]] || fail "-x PATH: $(cat "$tmp/out")"
    run -n 1 tw-only-here
    expect_rc 127
    grep -qF "cannot execute 'tw-only-here': not found in PATH" "$tmp/err" || fail "not in PATH"
    run -n 1 -genv NOVALUE sh -c true
    expect_rc 2
    ;;
wdir)
    mkdir -p "$tmp/d1" "$tmp/d2"
    printf '#!/bin/sh\necho "$PMI_RANK $(pwd)"\n' >"$tmp/d2/where"
    chmod +x "$tmp/d2/where"
    run -wdir "$tmp/d1" -n 1 pwd : -n 1 -wd "$tmp/d2" ./where : -n 1 pwd
    expect_rc 0
    [[ $(sort "$tmp/out") == "$tmp/d1
$tmp/d1
1 $tmp/d2" ]] || fail "-wdir: $(sort "$tmp/out")"
    run --wdir="$tmp/no-such-dir" -n 1 pwd
    expect_rc 2
    grep -qF "'$tmp/no-such-dir' is not a directory" "$tmp/err" || fail "a missing -wdir: no message"
    ;;
tag)
    # Every line of every rank whole, after its rank; stdout and stderr apart; a last
    # line without '\n' ends with one. Long lines from 3 ranks at once do not mix.
    long=$(printf 'x%.0s' $(seq 3000))
    for opt in -l -prepend-rank --tag-output; do
        run "$opt" -n 3 --timeout 60 sh -c \
            "for i in \$(seq 50); do echo \"\$PMI_RANK \$i $long\"; done; echo e\$PMI_RANK >&2; printf end"
        expect_rc 0
        [[ $(wc -l <"$tmp/out") == 153 ]] || fail "$opt: $(wc -l <"$tmp/out") lines of stdout"
        bad=$(grep -cvE "^\[([0-2])\] (\1 [0-9]+ x{3000}|end)$" "$tmp/out" || true)
        [[ $bad == 0 ]] || fail "$opt: $bad stdout lines mixed or without their rank"
        [[ $(sort "$tmp/err" | tr '\n' ' ') == "[0] e0 [1] e1 [2] e2 " ]] ||
            fail "$opt: stderr $(cat "$tmp/err")"
    done
    # Untagged: the ranks' own bytes.
    run -n 2 --timeout 60 sh -c 'printf "a\n"'
    [[ $(cat "$tmp/out") == "a
a" ]] || fail "untagged output changed: $(cat "$tmp/out")"
    # A rank whose reader is gone (twrun's stdout closed) learns it by SIGPIPE as usual.
    set +e
    "$twrun" -l -n 1 --timeout 60 sh -c 'yes' 2>"$tmp/err" | head -n 3 >"$tmp/out"
    set -e
    [[ $(cat "$tmp/out") == "[0] y
[0] y
[0] y" ]] || fail "tagged yes | head: $(cat "$tmp/out")"
    ;;
output_file)
    run --output-filename "$tmp/o" -n 2 --timeout 60 sh -c 'echo out $PMI_RANK; echo err $PMI_RANK >&2'
    expect_rc 0
    for r in 0 1; do
        [[ $(cat "$tmp/o/1/rank.$r/stdout") == "out $r" ]] || fail "rank $r stdout file"
        [[ $(cat "$tmp/o/1/rank.$r/stderr") == "err $r" ]] || fail "rank $r stderr file"
    done
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "out 0 out 1 " ]] || fail "no copy: $(cat "$tmp/out")"
    run --output-filename "$tmp/p:nocopy" -l -n 1 --timeout 60 sh -c 'echo out; printf partial'
    expect_rc 0
    [[ ! -s $tmp/out ]] || fail ":nocopy copied: $(cat "$tmp/out")"
    [[ $(cat "$tmp/p/1/rank.0/stdout") == "out
partial" ]] || fail "the file holds the rank's own bytes: $(cat "$tmp/p/1/rank.0/stdout")"
    touch "$tmp/file"
    run --output-filename "$tmp/file" -n 1 --timeout 60 true
    [[ $rc != 0 ]] || fail "an output directory that is a file: exit status 0"
    grep -qF "cannot write '$tmp/file/1/rank.0" "$tmp/err" || fail "an unusable directory: no message"
    # the same with twrun's stdin open and silent: the streams never opened are not read
    set +e
    "$twrun" --output-filename "$tmp/file" -n 1 --timeout 60 true 2>"$tmp/err" < <(sleep 100)
    rc=$?
    set -e
    [[ $rc != 0 && $rc != 124 ]] || fail "an unusable directory, stdin open: exit status $rc"
    ;;
hosts)
    # This machine by any of its names; slots give the ranks when -n is missing.
    show='echo "$PMI_RANK $PMI_SIZE $TW_LOCAL_RANK $TW_LOCAL_SIZE"'
    for h in localhost 127.0.0.1 "$(hostname)"; do
        run -host "$h" -n 2 --timeout 60 sh -c "$show"
        expect_rc 0
        [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 2 0 2 1 2 1 2 " ]] || fail "-host $h: $(cat "$tmp/out")"
    done
    run -hosts localhost:3 --timeout 60 "$probe" ok
    expect_rc 0
    expect_clean 3
    printf '# this machine\n\nlocalhost slots=2   # Open MPI\n127.0.0.1:2\n' >"$tmp/hostfile"
    run -f "$tmp/hostfile" --timeout 60 "$probe" ok
    expect_rc 0
    expect_clean 4
    run --hostfile "$tmp/hostfile" -ppn 2 -n 6 --oversubscribe --timeout 60 "$probe" ok
    expect_rc 0
    expect_clean 6
    # MPI_UNIVERSE_SIZE is the slots, 4, not the 2 ranks
    PROBE_UNIVERSE_SIZE=4 run -machinefile "$tmp/hostfile" --map-by ppr:1:node -n 2 --timeout 60 "$probe" ok
    expect_rc 0
    # Another machine: refused with the way to reach it.
    run -host tw-no-such-host-$$ -n 2 --timeout 60 "$probe" ok
    expect_rc 2
    grep -qF "unknown host 'tw-no-such-host-$$'" "$tmp/err" || fail "unknown host: no message"
    grep -q "srun" "$tmp/err" || fail "unknown host: no word of a cluster launcher"
    [[ ! -f $PROBE_JOBID_FILE ]] || fail "a rank ran"
    printf 'localhost\nnode-%s slots=4\n' "$$" >"$tmp/hostfile"
    run -f "$tmp/hostfile" -n 2 --timeout 60 "$probe" ok
    expect_rc 2
    grep -qF "unknown host 'node-" "$tmp/err" || fail "unknown host in a hostfile: no message"
    ;;
netns)
    # Under tests/net/two_hosts.sh: placement over two namespaces standing in for hosts.
    [[ -n ${HOST_A:-} && -n ${HOST_B:-} ]] || fail "run under two_hosts.sh"
    show='echo "$PMI_RANK $TW_LOCAL_RANK $TW_LOCAL_SIZE $(ip netns identify)"'
    run -hosts "$HOST_A,$HOST_B" -ppn 1 -n 4 --timeout 60 sh -c "$show"
    expect_rc 0
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 0 2 $HOST_A 1 0 2 $HOST_B 2 1 2 $HOST_A 3 1 2 $HOST_B " ]] ||
        fail "-ppn 1: $(sort "$tmp/out" | tr '\n' ' ')"
    printf '%s slots=3\n%s\n' "$HOST_A" "$HOST_B" >"$tmp/hostfile"
    run -f "$tmp/hostfile" --timeout 60 sh -c "$show"
    expect_rc 0
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 0 3 $HOST_A 1 1 3 $HOST_A 2 2 3 $HOST_A 3 0 1 $HOST_B " ]] ||
        fail "hostfile slots: $(sort "$tmp/out" | tr '\n' ' ')"
    # A host listed twice is one host.
    run -hosts "$HOST_A,$HOST_B,$HOST_A" -ppn 1 -n 3 --timeout 60 sh -c "$show"
    expect_rc 0
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 0 2 $HOST_A 1 0 1 $HOST_B 2 1 2 $HOST_A " ]] ||
        fail "a host twice: $(sort "$tmp/out" | tr '\n' ' ')"
    # --hosts as before: even blocks
    run --hosts "$HOST_A,$HOST_B" -n 4 --timeout 60 "$probe" ok
    expect_rc 0
    expect_clean 4
    run -hosts "localhost,$HOST_A" -n 2 --timeout 60 "$probe" ok
    expect_rc 2
    grep -q "mix this machine and network namespaces" "$tmp/err" || fail "mixed hosts: no message"
    run --hosts "$HOST_A,$HOST_B,$HOST_A" -n 2 --timeout 60 "$probe" ok
    expect_rc 2
    grep -q "3 hosts for 2 ranks" "$tmp/err" || fail "more hosts than ranks: no message"
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
    # Hydra's and Open MPI's names of the same, for users' scripts
    run -n 2 --timeout 60 sh -c 'echo "$MPI_LOCALRANKID $MPI_LOCALNRANKS $OMPI_COMM_WORLD_RANK $OMPI_COMM_WORLD_SIZE $OMPI_COMM_WORLD_LOCAL_RANK $OMPI_COMM_WORLD_LOCAL_SIZE"'
    expect_rc 0
    [[ $(sort "$tmp/out" | tr '\n' ' ') == "0 2 0 2 0 2 1 2 1 2 1 2 " ]] || fail "MPI_LOCAL*, OMPI_*: $(cat "$tmp/out")"
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
