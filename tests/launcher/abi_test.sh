#!/bin/bash
# Programs built for other MPIs, started with Tollway's mpiexec (twrun's abi.c):
#   abi_test.sh CASE MPIEXEC ELF_DUMP DIR SOURCE_DIR [MPICH5_PREFIX [OMPI5_PREFIX]]
# Each case builds its programs in DIR (its own, under build/) with another MPI's
# compiler, skipping (77) with a message when that compiler is not installed, starts
# them with `mpiexec -n 2` and checks the outcome: a program whose face is in the faces
# directory runs on it (every rank one of 2, naming the library it runs on); one no face
# serves ends with status 2 and one message naming the program and the library, and no
# rank has run. The fake_* cases run a copy of twrun in a tree of its own whose faces
# directory holds a stand-in face (abi_fake_face.c), to see the library path the
# launcher gives without the real faces.
set -euo pipefail

case_name=$1
mpiexec=$(realpath "$2")
elf_dump=$(realpath "$3")
dir=$4
src=$(realpath "$5")
# MPICH 5's and Open MPI 5's prefixes (tests/CMakeLists.txt: TW_PEER_MPICH5, _OMPI5)
mpich5=${6:-/nonexistent}
ompi5=${7:-/nonexistent}
abi_dir=$(dirname "$(dirname "$mpiexec")")/lib/abi

unset SLURM_JOB_ID TW_ABI # twrun's own launching, checking on
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"

fail() {
    echo "FAIL ($case_name): $*" >&2
    for f in out err; do
        [[ -f $f ]] && { echo "--- $f:" >&2; cat $f >&2; }
    done
    exit 1
}

skip() {
    echo "SKIP ($case_name): $*"
    exit 77
}

# need CC: the compiler, or skip
need() {
    command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

# run ARGS...: mpiexec -n 2 with a bound on the job; rc, out, err
run() {
    set +e
    "$@" >out 2>err </dev/null
    rc=$?
    set -e
}

# The program ran on the library named by $1 (a pattern), as 2 ranks of one job.
expect_ran_on() {
    [[ $rc == 0 ]] || fail "exit status $rc, expected 0"
    for r in 0 1; do
        grep -q "^rank $r of 2: $1" out || fail "no 'rank $r of 2: $1' line"
    done
    [[ $(grep -c '^rank ' out) == 2 ]] || fail "not two ranks"
}

# The launcher refused to start it: status 2, one message with every argument, no rank.
expect_refused() {
    [[ $rc == 2 ]] || fail "exit status $rc, expected 2"
    [[ ! -s out ]] || fail "a rank ran"
    [[ $(wc -l <err) == 1 ]] || fail "stderr has $(wc -l <err) lines, expected 1"
    for s in "$@"; do
        grep -qF -- "$s" err || fail "stderr does not say '$s'"
    done
}

# The ELF reader agrees with readelf on the program's libraries and search paths.
expect_elf_as_readelf() {
    "$elf_dump" "$1" >dump
    grep -q '^verdict ok$' dump || fail "$(head -1 dump)"
    LC_ALL=C readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/needed \1/p' >want
    diff <(grep '^needed ' dump) want >/dev/null || fail "needed: $(grep '^needed ' dump) / readelf: $(cat want)"
    for tag in RPATH RUNPATH; do
        lower=$(tr 'A-Z' 'a-z' <<<"$tag")
        LC_ALL=C readelf -d "$1" | sed -n "s/.*($tag).*\[\(.*\)\]\$/$lower \1/p" >want
        diff <(grep "^$lower " dump) want >/dev/null || fail "$lower differs from readelf's"
    done
}

# A peer's compiler: the program runs on the face when it is built, else is refused.
peer() {
    local cc=$1
    need "$cc"
    "$cc" "$src/abi_hello.c" -o hello || fail "$cc failed"
    expect_elf_as_readelf hello
    local soname
    soname=$(grep -E '^needed lib(mpi|mpich)[._]' dump | head -1 | cut -d' ' -f2)
    [[ -n $soname ]] || fail "the program needs no MPI library: $(cat dump)"
    run "$mpiexec" -n 2 --timeout 60 ./hello
    if [[ -e $abi_dir/$soname ]]; then
        expect_ran_on "Tollway MPI"
    else
        expect_refused "cannot start './hello'" "it needs $soname" "TW_ABI=off" "Tollway serves"
        echo "($soname's face is not built: refused)"
    fi
}

# A copy of twrun in a tree of its own (tree/bin, tree/lib/abi), whose faces directory
# holds the stand-in face under each soname given.
fake_tree() {
    mkdir -p tree/bin tree/lib/abi
    touch tree/CMakeCache.txt # a build tree, as twrun tells one
    cp "$(realpath "$mpiexec")" tree/bin/twrun
    for soname in "$@"; do
        cc -shared -fPIC -Wl,-soname,"$soname" "$src/abi_fake_face.c" -o "tree/lib/abi/$soname"
    done
}

case $case_name in
peer_debian_openmpi) peer mpicc.openmpi ;;
peer_debian_mpich) peer mpicc.mpich ;;
peer_mpich5) peer $mpich5/bin/mpicc ;;
peer_mpich5_abi) peer $mpich5/bin/mpicc_abi ;;
peer_ompi5) peer $ompi5/bin/mpicc ;;

fake_face_runpath)
    # Open MPI 5's and MPICH 5's mpicc put DT_RUNPATH to their own lib: LD_LIBRARY_PATH,
    # where twrun puts the face, comes before it
    found=0
    for cc in $ompi5/bin/mpicc $mpich5/bin/mpicc; do
        command -v $cc >/dev/null 2>&1 || continue
        found=1
        rm -rf tree
        $cc "$src/abi_hello.c" -o hello
        expect_elf_as_readelf hello
        grep -q '^runpath /' dump || fail "$cc put no DT_RUNPATH: $(cat dump)"
        soname=$(grep -E '^needed libmpi\.so' dump | cut -d' ' -f2)
        fake_tree "$soname"
        run tree/bin/twrun -v -n 2 --timeout 60 ./hello
        expect_ran_on "fake face"
        grep -qF "served by Tollway's face $dir/tree/lib/abi/$soname" err ||
            fail "-v does not say which face serves it"
    done
    ((found)) || skip "neither $ompi5/bin/mpicc nor $mpich5/bin/mpicc"
    ;;

fake_face_rpath)
    # a DT_RPATH outranks LD_LIBRARY_PATH: when it leads to another libmpich.so.12 the
    # face is preloaded
    need mpicc.mpich
    libdir=
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
        [[ -e $d/libmpich.so.12 ]] && libdir=$d && break
    done
    [[ -e $libdir/libmpich.so.12 ]] || skip "no libmpich.so.12 found"
    mpicc.mpich "$src/abi_hello.c" -o hello -Wl,--disable-new-dtags,-rpath,"$libdir"
    expect_elf_as_readelf hello
    grep -q "^rpath $libdir" dump || fail "no DT_RPATH: $(cat dump)"
    fake_tree libmpich.so.12
    run tree/bin/twrun -v -n 2 --timeout 60 ./hello
    expect_ran_on "fake face"
    grep -q "preloaded" err || fail "-v does not say the face is preloaded"
    ;;

companion)
    # MPICH's C++ bindings beside the C library the stand-in face serves: no face
    # serves them
    need mpicc.mpich
    mpicc.mpich "$src/abi_hello.c" -o hello -Wl,--no-as-needed -lmpichcxx
    fake_tree libmpich.so.12
    run tree/bin/twrun -n 2 --timeout 60 ./hello
    expect_refused "cannot start './hello'" "libmpichcxx.so.12" "MPICH's C++ bindings" \
        "MPICH's ABI (libmpich.so.12)"
    ;;

fortran_f08)
    # mpi_f08 programs: MPICH's libmpifort.so.12 is served (mpif.h and mpi module
    # programs) but not the mpi_f08 bindings this program calls: refused at start, not
    # left to the loader's "undefined symbol" on every rank. Open MPI's are started:
    # their libmpi_usempif08.so.40 is Open MPI's own, over the face (-v says so)
    printf '%s\n' 'program f08' '  use mpi_f08' '  integer :: rank, size' '  call MPI_Init()' \
        '  call MPI_Comm_rank(MPI_COMM_WORLD, rank)' '  call MPI_Comm_size(MPI_COMM_WORLD, size)' \
        "  print '(a,i0,a,i0)', 'rank ', rank, ' of ', size" '  call MPI_Finalize()' \
        'end program' >f08.f90
    built=0
    for mpi in mpich openmpi; do
        command -v mpifort.$mpi >/dev/null 2>&1 || continue
        mpifort.$mpi f08.f90 -o f08_$mpi || continue
        built=$((built + 1))
        if [[ $mpi == mpich ]]; then
            run "$mpiexec" -n 2 --timeout 60 ./f08_$mpi
            expect_refused "cannot start './f08_$mpi'" "mpi_f08" "mpi_init_f08_" "MPICH's ABI"
        else
            run "$mpiexec" -v -n 2 --timeout 60 ./f08_$mpi
            [[ $rc == 0 ]] || fail "exit status $rc, expected 0"
            for r in 0 1; do grep -q "^rank $r of 2$" out || fail "no 'rank $r of 2' line"; done
            grep -q "libmpi_usempif08.so.40 (that MPI's own, over the face)" err ||
                fail "-v does not say that Open MPI's libmpi_usempif08.so.40 runs over the face"
            # where Open MPI's library is not installed (hidden here, in a mount namespace
            # of its own, behind /dev/null: no regular file where the loader looks), the
            # program is refused naming it, not left to the loader on every rank
            lib=$(ldconfig -p | sed -n 's/^[[:space:]]*libmpi_usempif08\.so\.40 .*=> //p' | head -1)
            if [[ -n $lib ]] && unshare -m true 2>/dev/null; then
                run unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh \
                    "$lib" "$mpiexec" -n 2 --timeout 60 ./f08_$mpi
                expect_refused "cannot start './f08_$mpi'" "libmpi_usempif08.so.40" \
                    "not installed here"
            fi
        fi
    done
    ((built)) || skip "neither mpifort.mpich nor mpifort.openmpi builds an mpi_f08 program"
    ;;

static)
    # MPICH linked in: each rank would be an MPI job of one
    need mpicc.mpich
    need pkg-config
    # shellcheck disable=SC2046 # the words of pkg-config's answer
    mpicc.mpich "$src/abi_hello.c" -o hello -Wl,-Bstatic -lmpich -Wl,-Bdynamic \
        $(pkg-config --libs --static mpich) || skip "MPICH cannot be linked statically here"
    "$elf_dump" hello | grep -q '^needed libmpich' && fail "libmpich is still needed"
    run "$mpiexec" -n 2 --timeout 60 ./hello
    expect_refused "cannot start './hello'" "MPICH" "linked statically" "MPIR_" "TW_ABI=off"
    ;;

unknown)
    # a libmpi.so.N that is no face's
    cc -shared -fPIC -Wl,-soname,libmpi.so.20 "$src/abi_fake_face.c" -o libmpi.so.20
    ln -s libmpi.so.20 libmpi.so
    echo 'int MPI_Init(int *, char ***); int main(void) { return MPI_Init(0, 0); }' >hello.c
    cc hello.c -o hello -L. -lmpi -Wl,-rpath,"$dir"
    run "$mpiexec" -n 2 --timeout 60 ./hello
    expect_refused "cannot start './hello'" "libmpi.so.20" "Tollway does not know"
    ;;

spawn_unknown)
    # a program MPI_Comm_spawn starts is planned as the command line's: one built for an
    # MPI no face serves is refused with twrun's message, the spawn fails, and the
    # spawner goes on (it would have run alone on that MPI's library)
    cc -shared -fPIC -Wl,-soname,libmpi.so.20 "$src/abi_fake_face.c" -o libmpi.so.20
    ln -s libmpi.so.20 libmpi.so
    echo 'int MPI_Init(int *, char ***); int main(void) { return MPI_Init(0, 0); }' >hello.c
    cc hello.c -o hello -L. -lmpi -Wl,-rpath,"$dir"
    cat >spawner.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm child = MPI_COMM_NULL;
    int code = -1, len = 0;
    char why[MPI_MAX_ERROR_STRING] = "";
    int rc = MPI_Comm_spawn("./hello", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, &code);
    MPI_Error_string(rc, why, &len);
    printf("spawn: rc %s, child %s: %s\n", rc ? "error" : "success",
           child == MPI_COMM_NULL ? "none" : "made", why);
    MPI_Finalize();
    return 0;
}
C
    "$(dirname "$mpiexec")/mpicc" spawner.c -o spawner || fail "mpicc failed"
    run "$mpiexec" -n 1 --timeout 60 ./spawner
    [[ $rc == 0 ]] || fail "the spawner's job: exit status $rc"
    grep -q "^spawn: rc error, child none: " out || fail "the spawn did not fail"
    grep -qF "cannot start './hello'" err && grep -qF "libmpi.so.20" err ||
        fail "no message naming the program and its library"
    ;;

abi_off)
    # TW_ABI=off starts it as it is: here Debian's MPICH, which speaks twrun's PMI-1
    need mpicc.mpich
    mpicc.mpich "$src/abi_hello.c" -o hello
    run env TW_ABI=off "$mpiexec" -n 2 --timeout 60 ./hello
    expect_ran_on "MPICH"
    run env TW_ABI=bogus "$mpiexec" -n 2 --timeout 60 ./hello
    [[ $rc == 2 ]] && grep -q "TW_ABI must be auto or off, not 'bogus'" err || fail "TW_ABI=bogus"
    ;;

malformed)
    # an ELF file cut short: a clear refusal, not a crash, nor N failed ranks
    head -c 200 "$mpiexec" >cut
    chmod +x cut
    run "$mpiexec" -n 2 --timeout 60 ./cut
    expect_refused "cannot start './cut'" "ELF headers are not sound"
    ;;

script)
    # not ELF: started as it is, the interpreter unchecked, with the faces directory
    # first on its library path when faces are built (for a module built for another
    # MPI), but not when the options restrict the ranks' environment
    printf '#!/bin/sh\necho "rank $PMI_RANK of $PMI_SIZE: script; path ${LD_LIBRARY_PATH:-}"\n' >prog.sh
    chmod +x prog.sh
    run "$mpiexec" -n 2 --timeout 60 ./prog.sh
    expect_ran_on "script"
    if ls "$abi_dir"/lib*.so.* >/dev/null 2>&1; then
        [[ $(grep -c "^rank .*: script; path $abi_dir\(:\|$\)" out) == 2 ]] ||
            fail "the faces directory $abi_dir is not first on the script's library path"
    fi
    run "$mpiexec" -n 2 --timeout 60 -genvlist PMI_RANK,PMI_SIZE ./prog.sh
    [[ $rc == 0 ]] || fail "-genvlist: exit status $rc"
    ! grep -q "path .*$abi_dir" out || fail "-genvlist: the faces directory was added anyway"
    ;;

*)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
echo "ok ($case_name)"
