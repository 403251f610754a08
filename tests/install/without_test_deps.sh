#!/usr/bin/env bash
# Tollway configures with -DBUILD_TESTING=OFF where what only the tests need (cmocka,
# libcrypto) is missing, and the tests' configure says what is missing: both with
# pkg-config seeing every package it knows but those two.
# usage: without_test_deps.sh SOURCE_DIR
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
need pkg-config pkg-config
src=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tollway-notestdeps.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/pc"
IFS=: read -ra dirs <<<"${PKG_CONFIG_PATH:+$PKG_CONFIG_PATH:}$(pkg-config --variable pc_path pkg-config)"
for d in "${dirs[@]}"; do
    for pc in "$d"/*.pc; do
        case ${pc##*/} in
        cmocka.pc | libcrypto.pc) ;;
        *) if [ -e "$pc" ] && [ ! -e "$work/pc/${pc##*/}" ]; then ln -s "$pc" "$work/pc/"; fi ;;
        esac
    done
done
export PKG_CONFIG_LIBDIR=$work/pc PKG_CONFIG_PATH=
pkg-config --exists hwloc || fail "pkg-config, so restricted, knows no hwloc"
if pkg-config --exists cmocka || pkg-config --exists libcrypto; then fail "cmocka or libcrypto still seen"; fi
run_logged "$work/off.log" cmake -S "$src" -B "$work/off" -DBUILD_TESTING=OFF
if cmake -S "$src" -B "$work/on" >"$work/on.log" 2>&1; then
    fail "configured with the tests though pkg-config sees no cmocka"
fi
grep -q "cmocka" "$work/on.log" || { cat "$work/on.log"; fail "the tests' configure does not name cmocka"; }
echo "without_test_deps.sh: ok"
