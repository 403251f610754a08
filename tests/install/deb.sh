#!/usr/bin/env bash
# The Debian package `make package` builds: its dependencies are stated, it unpacks
# (dpkg -x) to a prefix that works once moved elsewhere, and, as root, it installs
# with dpkg -i, works where it installed, and removes cleanly.
# usage: deb.sh BUILD_DIR
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
need cpack cmake
need dpkg-deb dpkg
need dpkg-shlibdeps dpkg-dev
build=$(cd "$1" && pwd -P)
work=$(mktemp -d "${TMPDIR:-/tmp}/tollway-deb.XXXXXX")
installed=
cleanup() {
    if [ -n "$installed" ]; then dpkg -r tollway >/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
cp "$projects/hello_mpi.c" .

run_logged cpack.log cpack --config "$build/CPackConfig.cmake" -B "$work/pkg"
debs=(pkg/tollway_*.deb)
[ -f "${debs[0]}" ] || { cat cpack.log; fail "cpack made no tollway_*.deb"; }
deb=$(readlink -f "${debs[0]}")
depends=$(dpkg-deb -f "$deb" Depends)
for d in libc6 libhwloc15; do
    grep -qw "$d" <<<"$depends" || fail "the package does not depend on $d: Depends: $depends"
done
echo "deb.sh: $deb: Depends: $depends"

# unpacked, then moved: the wrappers, programs and libraries find each other
dpkg -x "$deb" root
mpiexec=$(find root -path '*/bin/mpiexec')
[ -n "$mpiexec" ] || fail "the package has no bin/mpiexec"
pkgprefix=${mpiexec%/bin/mpiexec}
pkgprefix=/${pkgprefix#root/}
mkdir moved
mv "root$pkgprefix" moved/tollway
P=$work/moved/tollway
"$P/bin/mpicc" hello_mpi.c -o hello_moved
is_tollway "$P" hello_moved libmpi.so.0 "$mpi_says"

# installed into the system, where it says (root only, and only where nothing is yet)
if [ "$(id -u)" != 0 ]; then
    echo "deb.sh: not root: dpkg -i left out"
elif dpkg -s tollway >/dev/null 2>&1 || [ -e "$pkgprefix" ]; then
    echo "deb.sh: tollway is already installed, or $pkgprefix exists: dpkg -i left out"
else
    run_logged dpkg-i.log dpkg -i "$deb"
    installed=yes
    "$pkgprefix/bin/mpicc" hello_mpi.c -o hello_installed
    is_tollway "$pkgprefix" hello_installed libmpi.so.0 "$mpi_says"
    run_logged dpkg-r.log dpkg -r tollway
    installed=
    [ ! -e "$pkgprefix/bin/mpicc" ] || fail "dpkg -r tollway left $pkgprefix/bin/mpicc"
fi
echo "deb.sh: ok"
