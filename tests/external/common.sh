# Sourced by the scripts of tests/external that build other software against a build.

# external_start WHO "$@": takes [--prepare] [BUILD] off the script's arguments and
# sets prepare (1, or empty), build (BUILD's absolute path; build by default) and
# rest (the arguments left); exits 2 when BUILD has no mpicc. WHO names the script.
external_start() {
    local who=$1
    shift
    prepare=
    [ "${1:-}" = --prepare ] && { prepare=1; shift; }
    build=$(cd "${1:-build}" && pwd)
    shift || true
    rest=("$@")
    [ -x "$build/bin/mpicc" ] || { echo "$who: no $build/bin/mpicc: build first (make)" >&2; exit 2; }
}

# debian_source WHO PACKAGE VERSION WORK MARK: prints the directory of PACKAGE's
# source unpacked in WORK, fetched there with apt-get source (which checks each file
# against the archive's signed lists) unless WORK holds it already with MARK, a path
# inside it. VERSION first; the archive's own when it has another. When apt fetched
# the upstream tarball but not Debian's part (the mirror has lost it), the upstream
# tarball alone is unpacked, once its SHA-256 is the one the .dsc lists. Exits 2 with
# the fix (deb-src) when apt cannot get it; WHO names the script in that message.
debian_source() {
    local who=$1 package=$2 version=$3 work=$4 mark=$5 src
    src=$(ls -d "$work/$package"-*/ 2>/dev/null | head -1 || true)
    if [ -z "$src" ] || [ ! -e "$src/$mark" ]; then
        (cd "$work" && { apt-get source -q "$package=$version" >"$work/source.log" 2>&1 ||
            apt-get source -q "$package" >>"$work/source.log" 2>&1 ||
            upstream_only "$package" >>"$work/source.log" 2>&1; }) || {
            tail -5 "$work/source.log" >&2
            echo "$who: apt-get source $package failed ($work/source.log): enable deb-src in" \
                "/etc/apt/sources.list.d and run apt-get update" >&2
            exit 2
        }
        src=$(ls -d "$work/$package"-*/ | head -1)
    fi
    echo "${src%/}"
}

# upstream_only PACKAGE (in WORK): unpacks the one PACKAGE_*.orig.tar.* there when the
# .dsc beside it lists its SHA-256.
upstream_only() {
    local package=$1 orig dsc sum
    orig=$(ls "$package"_*.orig.tar.* 2>/dev/null | head -1) && [ -n "$orig" ] || return 1
    dsc=$(ls "$package"_*.dsc 2>/dev/null | head -1) && [ -n "$dsc" ] || return 1
    sum=$(sha256sum "$orig" | cut -d' ' -f1)
    sed -n '/^Checksums-Sha256:/,/^[^ ]/p' "$dsc" | grep -q " $sum [0-9]* $orig\$" ||
        { echo "upstream_only: $orig is not the one $dsc lists"; return 1; }
    echo "upstream_only: $orig (SHA-256 as $dsc lists it), without Debian's patches"
    tar xf "$orig"
}

# external_step WHO WHAT LOG DIR COMMAND...: runs COMMAND in DIR, its output into LOG;
# when it fails, prints LOG's end and "WHO: WHAT failed (LOG)" and exits 1.
external_step() {
    local who=$1 what=$2 log=$3 dir=$4
    shift 4
    (cd "$dir" && "$@") >"$log" 2>&1 && return 0
    tail -30 "$log"
    echo "$who: $what failed ($log)" >&2
    exit 1
}
