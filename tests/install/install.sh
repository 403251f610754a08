#!/usr/bin/env bash
# Tollway installed, moved, and used the ways MPI users build programs.
#   install.sh setup BUILD_DIR SOURCE_DIR STATE   cmake --install to a temporary prefix,
#       check that nothing installed names the build or source tree or the prefix
#       itself, then move the prefix elsewhere; STATE (a file) records the temporary
#       directory
#   install.sh RECIPE STATE     build with the moved prefix and run under its mpiexec
#       mpicc             mpicc, mpicxx (and mpic++, mpiCC), also through a link to them
#       pkgconfig         pkg-config: tollway (native API) and the MPI names
#       cmake_findmpi     CMake's find_package(MPI) told only -DMPI_C_COMPILER
#       cmake_package     find_package(Tollway) with -DCMAKE_PREFIX_PATH
#       autotools         ./configure CC=mpicc of an autoconf project
#       meson_cc          meson with CC=mpicc, alone and with dependency('mpi') or
#                         dependency('tollway-mpi') found through PKG_CONFIG_PATH
#       meson_dependency  meson's dependency('mpi'), found by pkg-config and by mpicc
#       fortran           a `use mpi_f08` program built by mpifort (and by mpifort
#                         -fc=flang-N for a second compiler's modules), by pkg-config's
#                         mpi-fort (ompi-fort, tollway-mpi-fort), by CMake's
#                         find_package(MPI COMPONENTS Fortran) told only the wrapper,
#                         by find_package(Tollway)'s Tollway::mpifort,
#                         by autoconf with FC=mpifort, and by meson's
#                         dependency('mpi', language: 'fortran')
#       mixed             a program compiled with Tollway's mpi.h (C, and C++ with
#                         warnings as errors) runs on Tollway's libmpi, also when it
#                         reaches it only through a library of its own, and stops at
#                         its start, saying why, on Open MPI's or MPICH's library
#       abi               programs built by the moved prefix's mpicc_abi and by
#                         Debian's mpicc.mpich and mpicc.openmpi run under its mpiexec
#                         on its faces (lib/tollway/abi), which the system's loader
#                         does not see otherwise
#   install.sh cleanup STATE    remove the prefix
# Every program built must load the moved prefix's library and print what only
# Tollway prints (lib.sh). A recipe whose tool is missing exits 77.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup() {
    local build src state root staged p f runpath
    build=$(cd "$1" && pwd -P)
    src=$(cd "$2" && pwd -P)
    state=$3
    # a setup run alone (no cleanup after it) left its prefix: gone now
    if [ -s "$state" ]; then rm -rf "$(cat "$state")"; fi
    root=$(mktemp -d "${TMPDIR:-/tmp}/tollway-install.XXXXXX")
    echo "$root" >"$state"
    staged=$root/staged
    run_logged "$root/install.log" cmake --install "$build" --prefix "$staged"

    # what users look for, where they look
    for f in bin/mpicc bin/mpicxx bin/mpic++ bin/mpiCC bin/mpiexec bin/mpirun bin/twrun \
        bin/twinfo bin/twbench include/mpi.h include/tollway/tollway.h; do
        [ -e "$staged/$f" ] || fail "cmake --install installed no $f"
    done
    for f in mpiexec mpirun; do
        [ "$(readlink "$staged/bin/$f")" = twrun ] || fail "bin/$f is not a link to twrun"
    done
    for f in libmpi.so libmpi.so.0 libtollway.so libtollway.so.0 pkgconfig/tollway.pc \
        pkgconfig/mpi.pc cmake/Tollway/TollwayConfig.cmake cmake/Tollway/TollwayConfigVersion.cmake; do
        [ -n "$(find "$staged" -path "*/$f")" ] || fail "cmake --install installed no $f"
    done

    # every program and library finds the others relative to itself ...
    cp -a "$staged" "$root/scan"
    while IFS= read -r f; do
        runpath=$(readelf -d "$f" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
        # shellcheck disable=SC2016 # $ORIGIN is the dynamic linker's, not the shell's
        case $runpath in
        '$ORIGIN' | '$ORIGIN/'*) ;;
        *) fail "$f: RUNPATH is \"$runpath\", not relative to \$ORIGIN" ;;
        esac
        # debug information names the sources, as it should (a Debug build); the rest may not
        objcopy --strip-debug "$f"
    done < <(find "$root/scan" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
    # ... and nothing installed names the build or the source tree, nor where it is, but
    # the record of where it was installed (twinfo's, below)
    record=$(find "$root/scan" -path '*/tollway/installed-prefix')
    [ -n "$record" ] || fail "cmake --install installed no record of its prefix (tollway/installed-prefix)"
    [ "$(cat "$record")" = "$staged" ] || fail "$record says $(cat "$record"), not $staged"
    rm "$record"
    if grep -rlF -e "$build" -e "$src" -e "$staged" "$root/scan" >"$root/named"; then
        fail "installed files name the build tree, source tree or prefix ($build, $src, $staged): $(cat "$root/named")"
    fi
    rm -rf "$root/scan"

    # twinfo says where it is installed: where --prefix put it, not the configured prefix
    twinfo_paths "$staged/bin/twinfo" install "$staged" "$staged"

    # the prefix moves, and the build tree's paths are nowhere in it
    mkdir "$root/moved"
    mv "$staged" "$root/moved/tollway"
    p=$root/moved/tollway
    "$p/bin/twinfo" >"$root/twinfo.log" 2>&1 || { cat "$root/twinfo.log"; fail "the moved twinfo"; }
    twinfo_paths "$p/bin/twinfo" "install, moved since it was installed" "$p" "$staged"
    [ "$("$p/bin/mpicc" -showme:incdirs)" = "$p/include" ] ||
        fail "the moved mpicc's include directory is $("$p/bin/mpicc" -showme:incdirs), not $p/include"
    echo "install.sh: installed to $staged, moved to $p"
}

mpicc() {
    cp "$projects/hello_mpi.c" .
    "$P/bin/mpicc" -O2 hello_mpi.c -o hello_mpi
    is_tollway "$P" hello_mpi libmpi.so.0 "$mpi_says"
    # mpirun too, and mpicxx with the same program as C++
    "$P/bin/mpirun" -n 2 ./hello_mpi >mpirun.out || fail "mpirun: $(cat mpirun.out)"
    grep -q "$mpi_says" mpirun.out || fail "mpirun printed $(cat mpirun.out)"
    "$P/bin/mpicxx" -x c++ hello_mpi.c -o hello_mpi_cxx
    is_tollway "$P" hello_mpi_cxx libmpi.so.0 "$mpi_says"
    for f in mpic++ mpiCC; do
        "$P/bin/$f" -x c++ hello_mpi.c -o "hello_$f"
        is_tollway "$P" "hello_$f" libmpi.so.0 "$mpi_says"
    done
    # through a link elsewhere: the wrapper finds the prefix from where it really is
    mkdir elsewhere
    ln -s "$P/bin/mpicc" elsewhere/mpicc
    [ "$(elsewhere/mpicc -showme:incdirs)" = "$P/include" ] || fail "mpicc through a link"
    elsewhere/mpicc hello_mpi.c -o hello_linked
    is_tollway "$P" hello_linked libmpi.so.0 "$mpi_says"
}

pkgconfig() {
    need pkg-config pkg-config
    export PKG_CONFIG_PATH
    PKG_CONFIG_PATH=$("$P/bin/mpicc" -showme:libdirs)/pkgconfig
    local name flags
    flags=$(pkg-config --cflags --libs tollway-mpi)
    for name in mpi mpi-c mpi-cxx ompi-c ompi-cxx; do
        [ "$(pkg-config --cflags --libs "$name")" = "$flags" ] ||
            fail "pkg-config $name: $(pkg-config --cflags --libs "$name"), not $flags"
    done
    cp "$projects/hello_mpi.c" "$projects/hello_native.c" .
    # shellcheck disable=SC2046 # the flags are words
    cc $(pkg-config --cflags mpi) hello_mpi.c -o hello_mpi $(pkg-config --libs mpi)
    is_tollway "$P" hello_mpi libmpi.so.0 "$mpi_says"
    # shellcheck disable=SC2046
    cc $(pkg-config --cflags tollway) hello_native.c -o hello_native $(pkg-config --libs tollway)
    is_tollway "$P" hello_native libtollway.so.0 "$native_says"
}

fortran() {
    # the compiler Tollway was built with (the module files are that compiler's), for
    # every way below, CMake's and meson's through FC
    local fc
    fc=$("$P/bin/mpifort" -showme:command)
    need "$fc" "gfortran, or the flang-N Tollway was configured with"
    export FC=$fc
    cp "$projects/hello_f08.f90" .
    # mpifort, the modules from where the prefix moved to
    "$P/bin/mpifort" hello_f08.f90 -o hello_mpifort
    is_tollway "$P" hello_mpifort libmpifort.so.0 "$mpi_says"
    # pkg-config's names for Fortran agree, and build the program
    need pkg-config pkg-config
    local name flags libdir found
    libdir=$("$P/bin/mpicc" -showme:libdirs)
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    flags=$(pkg-config --cflags --libs tollway-mpi-fort) || fail "pkg-config knows no tollway-mpi-fort"
    for name in mpi-fort ompi-fort; do
        [ "$(pkg-config --cflags --libs "$name")" = "$flags" ] ||
            fail "pkg-config $name: $(pkg-config --cflags --libs "$name"), not $flags"
    done
    # shellcheck disable=SC2046 # the flags are words
    "$fc" $(pkg-config --cflags mpi-fort) hello_f08.f90 -o hello_pkgconfig $(pkg-config --libs mpi-fort)
    is_tollway "$P" hello_pkgconfig libmpifort.so.0 "$mpi_says"
    # a second compiler's module files (TW_FORTRAN_SECOND_COMPILER): mpifort -fc=it
    local moddir second
    for moddir in "$libdir"/fortran/LLVMFlang-*; do
        [ -d "$moddir" ] || continue
        second=$(compgen -c "flang" | grep -E "^flang(-new)?-${moddir##*-}$" | head -n 1 || true)
        [ -n "$second" ] || continue
        "$P/bin/mpifort" -fc="$second" hello_f08.f90 -o "hello_${moddir##*/}"
        is_tollway "$P" "hello_${moddir##*/}" libmpifort.so.0 "$mpi_says"
    done
    # CMake's FindMPI through the wrapper: the three bindings found, the program built
    cp -r "$projects/cmake_findmpi_fortran" proj
    cp hello_f08.f90 proj/
    run_logged configure.log cmake -S proj -B b -DMPI_Fortran_COMPILER="$P/bin/mpifort"
    found=$(sed -n 's/^-- FindMPI: //p' configure.log)
    grep -q "^MPI_Fortran_VERSION=4.1 MPI_Fortran_HAVE_F08_MODULE=TRUE MPI_Fortran_HAVE_F90_MODULE=TRUE MPI_Fortran_HAVE_F77_HEADER=TRUE$" <<<"$found" ||
        { cat configure.log; fail "FindMPI (Fortran) found otherwise: $found"; }
    run_logged build.log cmake --build b
    is_tollway "$P" b/hello_f08 libmpifort.so.0 "$mpi_says"
    # find_package(Tollway): Tollway::mpifort
    cp -r "$projects/cmake_package_fortran" proj-package
    cp hello_f08.f90 proj-package/
    run_logged configure-package.log cmake -S proj-package -B b-package -DCMAKE_PREFIX_PATH="$P"
    run_logged build-package.log cmake --build b-package
    is_tollway "$P" b-package/hello_f08 libmpifort.so.0 "$mpi_says"
    # autoconf with FC=mpifort: the module links in configure's test
    need autoconf autoconf
    need make make
    cp -r "$projects/autotools_fortran" proj-ac
    cp hello_f08.f90 proj-ac/
    (
        cd proj-ac
        run_logged ../autoconf-fortran.log autoconf
        run_logged ../configure-fortran.log ./configure FC="$P/bin/mpifort"
        grep -q "checking whether the mpi_f08 module links... yes" ../configure-fortran.log ||
            { cat ../configure-fortran.log; fail "configure did not link use mpi_f08 through mpifort"; }
        run_logged ../make-fortran.log make
    )
    is_tollway "$P" proj-ac/hello_f08 libmpifort.so.0 "$mpi_says"
    # meson, through PKG_CONFIG_PATH (exported above)
    need meson meson
    need ninja ninja-build
    # meson before 1.5 takes LLVM flang for the older PGI-based flang and gives it
    # options it refuses (-Minform=inform, -module)
    if "$fc" --version 2>/dev/null | grep -q flang &&
        [ "$(printf '%s\n' 1.5 "$(meson --version)" | sort -V | head -n1)" != 1.5 ]; then
        echo "install.sh: meson $(meson --version) does not know LLVM flang (1.5 does): its way left out"
        return
    fi
    cp -r "$projects/meson_fortran" proj-meson
    cp hello_f08.f90 proj-meson/
    run_logged meson-setup.log meson setup b-meson proj-meson
    run_logged meson-build.log meson compile -C b-meson
    is_tollway "$P" b-meson/hello_f08 libmpifort.so.0 "$mpi_says"
}

# project NAME: a copy of a project with the programs beside it
project() {
    cp -r "$projects/$1" proj
    cp "$projects/hello_mpi.c" "$projects/hello_native.c" proj/
}

# FindMPI told the wrapper alone finds the library through it, and mpiexec on PATH (not
# beside the wrapper); told MPI_HOME, or with the prefix's bin first on PATH (as
# environment modules do), it finds both in the prefix.
cmake_findmpi() {
    project cmake_findmpi
    local way args found
    for way in wrapper mpi_home path; do
        case $way in
        wrapper) args=(-DMPI_C_COMPILER="$P/bin/mpicc") ;;
        mpi_home) args=(-DMPI_HOME="$P") ;;
        path) args=() ;;
        esac
        if [ $way = path ]; then
            PATH=$P/bin:$PATH run_logged "configure-$way.log" cmake -S proj -B "b-$way" "${args[@]}"
        else
            run_logged "configure-$way.log" cmake -S proj -B "b-$way" "${args[@]}"
        fi
        found=$(sed -n 's/^-- FindMPI: //p' "configure-$way.log")
        grep -q "^MPI_C_VERSION=4.1 MPI_C_LIBRARIES=$P/lib/libmpi.so;" <<<"$found" ||
            { cat "configure-$way.log"; fail "FindMPI ($way) found another MPI"; }
        if [ $way != wrapper ]; then
            grep -q "MPIEXEC_EXECUTABLE=$P/bin/mpiexec$" <<<"$found" ||
                { cat "configure-$way.log"; fail "FindMPI ($way) found another mpiexec"; }
        fi
        run_logged "build-$way.log" cmake --build "b-$way"
        is_tollway "$P" "b-$way/hello_mpi" libmpi.so.0 "$mpi_says"
    done
}

cmake_package() {
    project cmake_package
    run_logged configure.log cmake -S proj -B b -DCMAKE_PREFIX_PATH="$P"
    grep -q "Tollway [0-9.]*: Tollway_MPIEXEC=$P/bin/mpiexec$" configure.log ||
        { cat configure.log; fail "find_package(Tollway) found another Tollway"; }
    run_logged build.log cmake --build b
    is_tollway "$P" b/hello_mpi libmpi.so.0 "$mpi_says"
    is_tollway "$P" b/hello_native libtollway.so.0 "$native_says"
}

autotools() {
    need autoconf autoconf
    need make make
    project autotools
    cd proj
    run_logged ../autoconf.log autoconf
    run_logged ../configure.log ./configure CC="$P/bin/mpicc"
    # the wrapper brings libmpi: configure needs no -lmpi of its own
    grep -q "checking for library containing MPI_Init... none required" ../configure.log ||
        { cat ../configure.log; fail "configure did not find MPI_Init through the wrapper"; }
    run_logged ../make.log make
    is_tollway "$P" hello_mpi libmpi.so.0 "$mpi_says"
}

# CC=mpicc alone; and with a dependency asked for as well: dependency('mpi') and
# dependency('tollway-mpi') with the prefix's pkgconfig directory in PKG_CONFIG_PATH
# (without it, where Open MPI's ompi-c.pc is installed, dependency('mpi') links Open
# MPI's library under Tollway's mpi.h: README's quick start says so).
meson_cc() {
    need meson meson
    need ninja ninja-build
    project meson_cc
    CC=$P/bin/mpicc run_logged setup.log meson setup b proj
    run_logged build.log meson compile -C b
    is_tollway "$P" b/hello_mpi libmpi.so.0 "$mpi_says"
    need pkg-config pkg-config
    cp -r "$projects/meson_dependency" proj-dep
    cp "$projects/hello_mpi.c" proj-dep/
    cp "$projects/hello_mpi.c" proj-dep/hello_mpi.cc
    local name
    for name in mpi tollway-mpi; do
        CC=$P/bin/mpicc CXX=$P/bin/mpicxx PKG_CONFIG_PATH=$("$P/bin/mpicc" -showme:libdirs)/pkgconfig \
            run_logged "setup-$name.log" meson setup "b-$name" proj-dep -Dmpi_name=$name
        run_logged "build-$name.log" meson compile -C "b-$name"
        is_tollway "$P" "b-$name/hello_mpi" libmpi.so.0 "$mpi_says"
        is_tollway "$P" "b-$name/hello_mpi_cxx" libmpi.so.0 "$mpi_says"
    done
}

# dependency('mpi') for C and C++: meson 1.0 asks pkg-config for ompi-c (ompi-cxx)
# first (the prefix's pkgconfig directory first in PKG_CONFIG_PATH answers, not an Open
# MPI installed beside), then the wrappers $MPICC and mpicc on PATH (for C++ mpic++,
# mpicxx and mpiCC), and takes the one with the highest version: the prefix's bin first
# on PATH makes them all Tollway's.
meson_dependency() {
    need meson meson
    need ninja ninja-build
    need pkg-config pkg-config
    project meson_dependency
    cp proj/hello_mpi.c proj/hello_mpi.cc
    local way
    for way in pkg-config config-tool; do
        if [ $way = pkg-config ]; then
            PKG_CONFIG_PATH=$("$P/bin/mpicc" -showme:libdirs)/pkgconfig \
                run_logged "setup-$way.log" meson setup "b-$way" proj
        else
            PATH=$P/bin:$PATH run_logged "setup-$way.log" meson setup "b-$way" proj -Dmpi_method=config-tool
        fi
        if ! grep -q "Run-time dependency MPI for c found: YES" "setup-$way.log" ||
            ! grep -q "Run-time dependency MPI for cpp found: YES" "setup-$way.log"; then
            cat "setup-$way.log"
            fail "dependency('mpi') by $way"
        fi
        run_logged "build-$way.log" meson compile -C "b-$way"
        is_tollway "$P" "b-$way/hello_mpi" libmpi.so.0 "$mpi_says"
        is_tollway "$P" "b-$way/hello_mpi_cxx" libmpi.so.0 "$mpi_says"
    done
}

mixed() {
    cp "$projects/hello_mpi.c" .
    local inc lib libdir found=0 says="compiled with Tollway's mpi.h but runs on another MPI's library"
    inc=$("$P/bin/mpicc" -showme:incdirs)
    libdir=$("$P/bin/mpicc" -showme:libdirs)
    cc -Wall -Wextra -Werror -I"$inc" -c hello_mpi.c -o hello_mpi.o
    # C++, stdio.h after mpi.h (whose check declares stdio.h's stderr)
    printf '#include <mpi.h>\n#include <cstdio>\n#include <stdio.h>\n' >cxx_head.h
    c++ -Wall -Wextra -Werror -I"$inc" -include cxx_head.h -x c++ -c hello_mpi.c -o hello_mpi_cxx.o
    cc -Wl,--as-needed hello_mpi.o -o hello_mpi -L"$libdir" -Wl,-rpath,"$libdir" -lmpi
    is_tollway "$P" hello_mpi libmpi.so.0 "$mpi_says"
    # a program that reaches Tollway only through a library of its own links and runs
    printf '#include <mpi.h>\nint user_size(void) { int n = 0; MPI_Comm_size(MPI_COMM_WORLD, &n); return n; }\n' >user.c
    printf '#include <mpi.h>\n#include <stdio.h>\nint user_size(void);\nint main(int c, char **v) { MPI_Comm w = MPI_COMM_WORLD; (void)w; (void)c; (void)v; printf("through a library: %%d\\n", c > 9 ? user_size() : 1); return 0; }\n' >indirect.c
    cc -shared -fPIC -I"$inc" user.c -o libuser.so -L"$libdir" -Wl,-rpath,"$libdir" -lmpi
    cc -Wall -Wextra -Werror -I"$inc" indirect.c -o indirect -L. -luser -Wl,-rpath,"$PWD" ||
        fail "a program reaching Tollway's libmpi through a library of its own does not link"
    [ "$(./indirect 2>&1)" = "through a library: 1" ] || fail "./indirect said: $(./indirect 2>&1)"
    # another MPI's library in place of Tollway's, as a build that took that MPI's
    # flags would link (the runtime libraries are enough: they are named by path): it
    # stops at its start, saying why
    for lib in /usr/lib/x86_64-linux-gnu/libmpi.so.40 /usr/lib/x86_64-linux-gnu/libmpich.so.12; do
        [ -e "$lib" ] || continue
        found=1
        for o in hello_mpi.o hello_mpi_cxx.o; do
            c++ "$o" "$lib" -o mixed 2>mixed.err || fail "linking $o against $lib: $(cat mixed.err)"
            if ./mixed >mixed.out 2>&1; then
                fail "$o (Tollway's mpi.h) ran on $lib: $(cat mixed.out)"
            fi
            grep -qF "$says" mixed.out || fail "$o on $lib said: $(cat mixed.out)"
        done
        echo "install.sh: mixed: Tollway's mpi.h on $lib: $(grep -m1 -F "$says" mixed.out)"
    done
    [ "$found" = 1 ] || { echo "install.sh: SKIPPED: neither Open MPI's nor MPICH's library is installed (Debian packages openmpi-bin, mpich)"; exit 77; }
}

abi() {
    cp "$projects/hello_mpi.c" .
    local faces cc name out ran=0
    faces=$("$P/bin/twinfo" --abi-dir)
    [ "$faces" = "$P/lib/tollway/abi" ] || fail "twinfo --abi-dir says $faces, not $P/lib/tollway/abi"
    for f in libmpi_abi.so.1 libmpi.so.12 libmpich.so.12 libmpi.so.40; do
        [ -e "$faces/$f" ] || fail "the prefix has no face $faces/$f"
        ! ldconfig -p | grep -q "$faces/$f" || fail "the system's loader sees $faces/$f"
    done
    for cc in "$P/bin/mpicc_abi" mpicc.mpich mpicc.openmpi; do
        command -v "$cc" >/dev/null || continue
        name=hello_$(basename "$cc")
        "$cc" hello_mpi.c -o "$name" 2>"$name.err" || fail "$cc: $(cat "$name.err")"
        out=$("$P/bin/mpiexec" -v -n 2 --timeout 120 "./$name" 2>&1) || fail "$name: $out"
        grep -q "$mpi_says" <<<"$out" || fail "$name printed \"$out\", not \"$mpi_says\""
        grep -q "served by Tollway's face $faces/" <<<"$out" ||
            fail "$name: mpiexec -v does not say a face of $faces serves it: $out"
        echo "install.sh: abi: $cc's program on $(grep -o "face $faces/[^ ]*" <<<"$out")"
        ran=$((ran + 1))
    done
    [ "$ran" -ge 2 ] || { echo "install.sh: SKIPPED: neither mpicc.mpich nor mpicc.openmpi (Debian packages libmpich-dev, libopenmpi-dev)"; exit 77; }
}

cmd=${1-}
case $cmd in
setup) setup "$2" "$3" "$4" ;;
cleanup)
    if [ -s "$2" ]; then rm -rf "$(cat "$2")"; fi
    rm -f "$2"
    ;;
mpicc | pkgconfig | cmake_findmpi | cmake_package | autotools | meson_cc | meson_dependency | fortran | mixed | abi)
    root=$(cat "$2" 2>/dev/null) || true
    P=${root:-/nonexistent}/moved/tollway
    [ -x "$P/bin/mpicc" ] || fail "no installed prefix at $P (the setup test did not pass)"
    work=$(mktemp -d "$root/$cmd.XXXXXX")
    cd "$work"
    "$cmd"
    echo "install.sh: $cmd: ok"
    ;;
*) fail "usage: install.sh setup BUILD_DIR SOURCE_DIR STATE | RECIPE STATE | cleanup STATE" ;;
esac
