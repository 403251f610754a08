#!/usr/bin/env bash
# The Debian package `make package` builds: its dependencies are stated, it unpacks
# (dpkg -x) to a prefix that works once moved elsewhere, and, as root, it installs
# (apt-get install ./tollway_*.deb), works where it installed, and removes cleanly.
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
    if [ -n "$installed" ]; then apt-get remove -y -o DPkg::Lock::Timeout=600 tollway >/dev/null 2>&1 || true; fi
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

# installed into the system, where it says (root only, and only where nothing is yet);
# one such test at a time on the machine, and apt waits for another dpkg to finish
if [ "$(id -u)" != 0 ]; then
    echo "deb.sh: not root: the install into the system is left out"
else
    exec 9>"${TMPDIR:-/tmp}/tollway-deb-test.lock"
    flock -w 900 9 || fail "another deb.sh held its lock for 900 s"
    if dpkg -s tollway >/dev/null 2>&1 || [ -e "$pkgprefix" ]; then
        echo "deb.sh: tollway is already installed, or $pkgprefix exists: the install into the system is left out"
    else
        installed=yes
        run_logged apt-install.log apt-get install -y -o DPkg::Lock::Timeout=600 "$deb"
        "$pkgprefix/bin/mpicc" hello_mpi.c -o hello_installed
        is_tollway "$pkgprefix" hello_installed libmpi.so.0 "$mpi_says"
        run_logged apt-remove.log apt-get remove -y -o DPkg::Lock::Timeout=600 tollway
        installed=
        [ ! -e "$pkgprefix/bin/mpicc" ] || fail "removing the package left $pkgprefix/bin/mpicc"
    fi
fi
echo "deb.sh: ok"
