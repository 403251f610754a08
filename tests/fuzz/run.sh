#!/usr/bin/env bash
# `make fuzz`: builds every fuzz target with clang's libFuzzer (plus ASan and UBSan) in
# BUILD/fuzz, runs each for FUZZ_SECONDS on a copy of its seed corpus, and prints the
# executions and coverage of each. FUZZ_TARGETS="udp_decode pmi_wire" picks some. Then
# the insider (insider.c, from the normal build in BUILD, root only) attacks live jobs
# for FUZZ_SECONDS with the seed INSIDER_SEED (default: the time; it is printed).
# Exits non-zero when a target found something (the input is in BUILD/fuzz/artifacts).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-build}")/fuzz
seconds=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
jobs=${JOBS:-2}

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
    'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' >"$probe/t.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/t" "$probe/t.c" >/dev/null 2>&1; then
    echo "make fuzz needs clang with libFuzzer, and '$cc -fsanitize=fuzzer' does not work here." >&2
    echo "On Debian: apt-get install -y clang libclang-rt-14-dev" >&2
    exit 1
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTW_FUZZ=libfuzzer >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_targets

if [ -z "${FUZZ_TARGETS:-}" ]; then
    FUZZ_TARGETS="$(cd "$src/tests/fuzz/corpus" && ls) insider"
fi
# the insider (insider.c) is no libFuzzer target: it attacks live jobs of the normal
# build, after the others
insider=0
case " $FUZZ_TARGETS " in *" insider "*) insider=1 ;; esac
FUZZ_TARGETS=$(tr ' ' '\n' <<<"$FUZZ_TARGETS" | grep -vx 'insider' | tr '\n' ' ' || true)
mkdir -p "$build/artifacts"
results=()
found=0
for t in $FUZZ_TARGETS; do
    exe=$build/bin/fuzz_$t
    [ -x "$exe" ] || { echo "no fuzz target $t (tests/fuzz/fuzz_$t.c)" >&2; exit 2; }
    work=$build/run/$t
    rm -rf "$work"
    mkdir -p "$work/corpus"
    cp "$src/tests/fuzz/corpus/$t/"* "$work/corpus/"
    echo "== fuzz_$t: $seconds s (log: $work/log)"
    status=ok
    "$exe" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$t-" "$work/corpus" >"$work/log" 2>&1 || status=FOUND
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
    last=$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$work/log" | tail -1 || true)
    cov=$(sed -E -n 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -E -n 's/.*ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -E -n 's/.*corp: ([0-9]+)\/.*/\1/p' <<<"$last")
    if [ "$status" != ok ]; then
        found=1
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*property violated|artifact_prefix|Test unit written)' \
            "$work/log" | head -5 >&2 || true
    fi
    results+=("$(printf '%-14s %12s %9s %6s %7s %7s  %s' "$t" "${execs:-?}" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "${corp:-?}" "$status")")
done
if [ "$insider" = 1 ]; then
    normal=$(realpath -m "${1:-build}")
    work=$build/run/insider
    mkdir -p "$work"
    cmake -S "$src" -B "$normal" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$normal" -j "$jobs" --target insider mpi_insider_job twrun
    seed=${INSIDER_SEED:-$(date +%s)}
    echo "== insider: $seconds s, seed $seed (log: $work/log)"
    status=ok
    "$normal/bin/insider" --twrun "$normal/bin/twrun" --job "$normal/bin/mpi_insider_job" \
        --seconds "$seconds" --seed "$seed" >"$work/log" 2>&1 || status=$?
    case $status in
    ok) ;;
    77) status="skipped (needs root)" ;;
    *)
        status=FOUND
        found=1
        grep -E 'FAILED|again:' "$work/log" | head -5 >&2 || true
        ;;
    esac
    runs=$(sed -n 's/.*: \([0-9]*\) campaigns in.*/\1/p' "$work/log" | tail -1)
    results+=("$(printf '%-14s %12s %9s %6s %7s %7s  %s' insider "${runs:-?} jobs" - - - - "$status")")
fi
echo
printf '%-14s %12s %9s %6s %7s %7s  %s\n' target execs exec/s cov ft corpus result
printf '%s\n' "${results[@]}"
exit $found
