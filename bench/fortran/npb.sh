#!/usr/bin/env bash
# The NAS Parallel Benchmarks (NPB3.4-MPI: BT, CG, EP, FT, LU, MG, SP in Fortran, IS
# in C), built unmodified with Tollway's mpifort and mpicc and, for comparison, with
# Debian's MPICH and Open MPI; each run on each rank count must print NPB's
# "Verification = SUCCESSFUL". Prints a table (benchmark, ranks, MPI, time, Mop/s,
# verified) and writes it as CSV. The source tree is copied per MPI into a scratch
# directory and built there; the source tree itself is never written.
# On a busy machine the times and rates say nothing; the verification does.
set -euo pipefail

usage() {
    cat >&2 <<'EOF'
usage: bench/fortran/npb.sh [options] NPB_SOURCE_DIR TOLLWAY_BUILD_DIR
  NPB_SOURCE_DIR     an NPB3.4-MPI directory (holds config/make.def.template, BT/, IS/ ...)
  TOLLWAY_BUILD_DIR  a Tollway build directory (holds bin/mpifort, bin/mpicc, bin/mpiexec)
options (each also taken from the environment variable named):
  -c CLASS        NPB problem class: S, W, A ... (CLASS, default S)
  -n "1 2 4"      rank counts (NPROCS, default "1 2 4"); BT and SP run only on the
                  square ones, the others only on powers of two
  -m "tollway mpich openmpi"
                  the MPIs (MPIS, default all three); mpich and openmpi are Debian's
                  (mpifort.mpich, mpiexec.mpich; mpifort.openmpi, mpiexec.openmpi)
  -b "bt cg ep ft is lu mg sp"
                  the benchmarks (BENCHMARKS, default these eight)
  -w DIR          scratch directory for the builds and logs (WORKDIR, default a new
                  one under ${TMPDIR:-/tmp})
  -o FILE         the CSV file (CSV, default DIR/npb.csv)
  -t SECONDS      time limit of one run (RUN_TIMEOUT, default 900)
  -f FLAGS        Fortran flags (FFLAGS, default -O3); C flags: CFLAGS (default -O3)
Open MPI's mpifort (4.1) does not add -fallow-argument-mismatch, which NPB's mpif.h
calls need with gfortran 10 or later: for openmpi it is added to FFLAGS.
exit status: 0 when every run verified, 1 when one did not (or did not build), 2 on
bad usage
EOF
    exit 2
}

class=${CLASS:-S}
nprocs=${NPROCS:-1 2 4}
mpis=${MPIS:-tollway mpich openmpi}
benchmarks=${BENCHMARKS:-bt cg ep ft is lu mg sp}
workdir=${WORKDIR:-}
csv=${CSV:-}
run_timeout=${RUN_TIMEOUT:-900}
fflags=${FFLAGS:--O3}
cflags=${CFLAGS:--O3}

while getopts ":c:n:m:b:w:o:t:f:h" opt; do
    case $opt in
    c) class=$OPTARG ;;
    n) nprocs=$OPTARG ;;
    m) mpis=$OPTARG ;;
    b) benchmarks=$OPTARG ;;
    w) workdir=$OPTARG ;;
    o) csv=$OPTARG ;;
    t) run_timeout=$OPTARG ;;
    f) fflags=$OPTARG ;;
    h) usage ;;
    :) echo "npb.sh: option -$OPTARG needs a value" >&2; usage ;;
    *) echo "npb.sh: unknown option -$OPTARG" >&2; usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "npb.sh: expected NPB_SOURCE_DIR and TOLLWAY_BUILD_DIR, got $# arguments" >&2; usage; }

src=$(cd "$1" 2>/dev/null && pwd) || { echo "npb.sh: no such directory: $1" >&2; usage; }
[ -f "$src/config/make.def.template" ] && [ -d "$src/BT" ] ||
    { echo "npb.sh: $src is not an NPB3.4-MPI source directory (no config/make.def.template or BT/)" >&2; usage; }
tollway=$(cd "$2" 2>/dev/null && pwd) || { echo "npb.sh: no such directory: $2" >&2; usage; }

[[ $class =~ ^[SWABCDEF]$ ]] || { echo "npb.sh: class '$class' is not one of S W A B C D E F" >&2; usage; }
[[ $run_timeout =~ ^[1-9][0-9]*$ ]] || { echo "npb.sh: time limit '$run_timeout' is not a number of seconds" >&2; usage; }
for n in $nprocs; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "npb.sh: rank count '$n' is not a positive number" >&2; usage; }
done
for b in $benchmarks; do
    case $b in bt | cg | ep | ft | is | lu | mg | sp) ;;
    *) echo "npb.sh: unknown benchmark '$b' (bt cg ep ft is lu mg sp; BT-IO needs MPI-IO, DT is not run)" >&2; usage ;;
    esac
done

# gfortran 10 or later: the compiler behind the wrapper $1 needs
# -fallow-argument-mismatch for mpif.h programs.
needs_mismatch_flag() {
    local compiler major
    compiler=$("$1" -showme:command 2>/dev/null) || return 1
    "$compiler" --version 2>/dev/null | sed -n 1p | grep -q '^GNU Fortran' || return 1
    major=$("$compiler" -dumpversion | cut -d. -f1)
    [ "$major" -ge 10 ]
}

# Per MPI: its Fortran and C compilers, the Fortran flags it needs beyond FFLAGS, and
# its launcher.
mpi_tools() { # sets fc, cc, fc_extra, launcher[] for MPI $1
    fc_extra=
    case $1 in
    tollway)
        fc=$tollway/bin/mpifort cc=$tollway/bin/mpicc
        launcher=("$tollway/bin/mpiexec")
        ;;
    mpich)
        fc=mpifort.mpich cc=mpicc.mpich
        launcher=(mpiexec.mpich)
        ;;
    openmpi)
        fc=mpifort.openmpi cc=mpicc.openmpi
        if needs_mismatch_flag "$fc"; then fc_extra=-fallow-argument-mismatch; fi
        launcher=(mpiexec.openmpi --oversubscribe --allow-run-as-root)
        ;;
    *) echo "npb.sh: unknown MPI '$1' (tollway mpich openmpi)" >&2; usage ;;
    esac
    local tool
    for tool in "$fc" "$cc" "${launcher[0]}"; do
        command -v "$tool" >/dev/null ||
            { echo "npb.sh: $1: '$tool' not found" >&2; exit 2; }
    done
}
for mpi in $mpis; do mpi_tools "$mpi"; done

if [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/npb.XXXXXX")
else
    workdir=$(realpath -m "$workdir")
fi
case $workdir/ in "$src"/*)
    echo "npb.sh: the scratch directory $workdir lies inside the source tree $src" >&2; usage ;;
esac
mkdir -p "$workdir"
csv=${csv:-$workdir/npb.csv}
echo "npb.sh: class $class, ranks $nprocs, MPIs $mpis; builds and logs in $workdir"

is_square() { local r=1; while [ $((r * r)) -lt "$1" ]; do r=$((r + 1)); done; [ $((r * r)) -eq "$1" ]; }
is_power_of_two() { [ $(($1 & ($1 - 1))) -eq 0 ]; }
runs_on() { # benchmark ranks
    case $1 in bt | sp) is_square "$2" ;; *) is_power_of_two "$2" ;; esac
}

# Builds the benchmarks for one MPI in its own copy of the tree.
build_for() {
    local mpi=$1 tree=$workdir/$1/NPB3.4-MPI b
    mpi_tools "$mpi"
    rm -rf "$tree"
    mkdir -p "$workdir/$mpi"
    cp -r "$src" "$tree"
    mkdir -p "$tree/bin" # NPB's makefiles link into it, and an archive may lack it
    # NPB's defaults, with the MPI's wrappers; the wrappers add the include and
    # library flags, so FMPI_* and CMPI_* stay empty.
    cat >"$tree/config/make.def" <<EOF
MPIFC = $fc
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = $fflags${fc_extra:+ $fc_extra}
FLINKFLAGS = \$(FFLAGS)
MPICC = $cc
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = $cflags
CLINKFLAGS = \$(CFLAGS)
CC = gcc
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randi8
EOF
    for b in $benchmarks; do
        local log=$workdir/$mpi/build-$b.$class.log
        if make -C "$tree" "$b" CLASS="$class" >"$log" 2>&1 &&
            [ -x "$tree/bin/$b.$class.x" ]; then
            echo "built   $b.$class with $mpi${fc_extra:+ (FFLAGS += $fc_extra)}"
        else
            echo "FAILED  to build $b.$class with $mpi: see $log" >&2
        fi
    done
}

for mpi in $mpis; do build_for "$mpi"; done

echo "benchmark,class,ranks,mpi,time_s,mops,verified" >"$csv"
failures=0
for b in $benchmarks; do
    for n in $nprocs; do
        runs_on "$b" "$n" || continue
        for mpi in $mpis; do
            mpi_tools "$mpi"
            exe=$workdir/$mpi/NPB3.4-MPI/bin/$b.$class.x
            log=$workdir/$mpi/run-$b.$class.$n.log
            time_s='' mops='' verified=no
            if [ ! -x "$exe" ]; then
                verified=not-built
            else
                # NPB reads optional input files from the working directory.
                (cd "$workdir/$mpi" &&
                    timeout "$run_timeout" "${launcher[@]}" -n "$n" "$exe") >"$log" 2>&1 ||
                    echo "npb.sh: $b.$class on $n ranks with $mpi exited with $?: see $log" >&2
                time_s=$(awk -F= '/Time in seconds/ {gsub(/ /, "", $2); print $2; exit}' "$log")
                mops=$(awk -F= '/Mop\/s total/ {gsub(/ /, "", $2); print $2; exit}' "$log")
                grep -Eq 'Verification += +SUCCESSFUL' "$log" && verified=yes
            fi
            [ "$verified" = yes ] || failures=$((failures + 1))
            echo "$b,$class,$n,$mpi,$time_s,$mops,$verified" >>"$csv"
        done
    done
done

echo
awk -F, 'NR == 1 {printf "%-9s %5s %-8s %10s %12s %s\n", "benchmark", "ranks", "MPI", "time (s)", "Mop/s", "verified"; next}
    {printf "%-9s %5s %-8s %10s %12s %s\n", toupper($1) "." $2, $3, $4, $5, $6, $7}' "$csv"
echo
echo "CSV: $csv"
if [ "$failures" -gt 0 ]; then
    echo "npb.sh: $failures runs did not verify" >&2
    exit 1
fi
