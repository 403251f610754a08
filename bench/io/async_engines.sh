#!/usr/bin/env bash
# Builds bench/io/async_engines.c (needs liburing: apt-get install liburing-dev) in a
# scratch directory and runs it three times in each directory given (default: /dev/shm
# and /var/tmp); see bench/io/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if ! cc -std=c11 -O2 -Wall -Werror -o "$scratch/async_engines" "$here/async_engines.c" -luring -lpthread; then
    echo "async_engines.sh: cannot build (is liburing-dev installed?)" >&2
    exit 1
fi
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(/dev/shm /var/tmp)
for d in "${dirs[@]}"; do
    for run in 1 2 3; do
        echo "## $d, run $run"
        "$scratch/async_engines" "$d" --reps 11
    done
done
