#!/usr/bin/env bash
# The Debian package `make package` builds: its dependencies are those docs/install.md
# states, it owns only its prefix and below (not /opt), it unpacks (dpkg -x) to a prefix
# that works once moved elsewhere (twinfo says moved), and, as root, it installs
# (apt-get install ./tollway_*.deb), works where it installed (twinfo says installed
# there), and removes cleanly, without a word about /opt.
# usage: deb.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
need cpack cmake
need dpkg-deb dpkg
need dpkg-shlibdeps dpkg-dev
build=$(cd "$1" && pwd -P)
src=$(cd "$2" && pwd -P)
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
# Depends: what the libraries and programs link (libtollway: libpmix2 with PMIx), and docs/install.md
# says so; the package names without their versions
depends=$(dpkg-deb -f "$deb" Depends)
got=$(tr ',' '\n' <<<"$depends" | awk '{ print $1 }' | sort -u | xargs)
want="libc6 libhwloc15"
if readelf -d "$build/lib/libtollway.so" | grep -q 'NEEDED.*libpmix'; then want="$want libpmix2"; fi
want=$(tr ' ' '\n' <<<"$want" | sort -u | xargs)
[ "$got" = "$want" ] || fail "the package depends on \"$got\", not \"$want\": Depends: $depends"
documented=$(tr '\n' ' ' <"$src/docs/install.md" | sed -n 's/.*Its `Depends` \(.*\); it recommends.*/\1/p' |
    grep -o '`lib[a-z0-9.+-]*`' | tr -d '`' | sort -u | xargs)
[ -n "$documented" ] || fail "docs/install.md has no sentence \"Its \`Depends\` ...; it recommends\""
for d in $got; do
    grep -qw "$d" <<<"$documented" || fail "docs/install.md does not list $d among the Depends ($documented)"
done
for d in $documented; do
    [ "$d" = libpmix2 ] || grep -qw "$d" <<<"$got" || fail "docs/install.md lists $d, the package does not depend on it: $depends"
done
echo "deb.sh: $deb: Depends: $depends"

# unpacked, then moved: the wrappers, programs and libraries find each other
dpkg -x "$deb" root
mpiexec=$(find root -path '*/bin/mpiexec')
[ -n "$mpiexec" ] || fail "the package has no bin/mpiexec"
pkgprefix=${mpiexec%/bin/mpiexec}
pkgprefix=/${pkgprefix#root/}
# only the prefix and below: an entry for a directory above it (./opt/) makes dpkg
# remove that directory with the package, or warn that it is not empty
outside=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -vx "\.$pkgprefix/.*" || true)
[ -z "$outside" ] || fail "the package has entries outside $pkgprefix: $outside"
# the package records where it installs; twinfo of the moved tree says it was moved
[ "$(cat "root$pkgprefix/share/tollway/installed-prefix")" = "$pkgprefix" ] ||
    fail "the package records $(cat "root$pkgprefix/share/tollway/installed-prefix") as its prefix, not $pkgprefix"
mkdir moved
mv "root$pkgprefix" moved/tollway
P=$work/moved/tollway
twinfo_paths "$P/bin/twinfo" "install, moved since it was installed" "$P" "$pkgprefix"
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
        parent=$(dirname "$pkgprefix")
        ! dpkg -L tollway | grep -qx "$parent" || fail "the installed package owns $parent"
        twinfo_paths "$pkgprefix/bin/twinfo" install "$pkgprefix" "$pkgprefix"
        "$pkgprefix/bin/mpicc" hello_mpi.c -o hello_installed
        is_tollway "$pkgprefix" hello_installed libmpi.so.0 "$mpi_says"
        run_logged apt-remove.log apt-get remove -y -o DPkg::Lock::Timeout=600 tollway
        installed=
        [ ! -e "$pkgprefix/bin/mpicc" ] || fail "removing the package left $pkgprefix/bin/mpicc"
        if grep -i "warning" apt-remove.log; then fail "removing the package warned (above)"; fi
        [ -d "$parent" ] || fail "removing the package removed $parent"
    fi
fi
echo "deb.sh: ok"
