# Thin front over CMake. `make` builds into build/, `make install PREFIX=DIR` installs
# it, `make package` makes a Debian package of it, `make test` runs every test (plus
# the sanitizer builds), `make demo` shows the system working, `make bench` measures
# it against the peers installed from Debian.
BUILD   ?= build
JOBS    ?= $(shell nproc)
CMAKE   ?= cmake
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all build install package test test-loaded test-main test-asan test-asan-all test-tsan test-mpi4py test-mpi4py-openmpi test-mpi4py-source fuzz demo bench bench-peers bench-peers-pypi format clean

all: build

# An LLVM flang (19 or newer) on the PATH gets the Fortran modules of its own beside
# gfortran's (docs/fortran.md, Compilers): mpifort -fc=flang-new-19 then works too.
SECOND_FC ?= $(firstword $(foreach c,flang-new-19 flang-new-22 flang-22,$(shell command -v $(c) 2>/dev/null)))

build:
	@$(CMAKE) -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release \
	  $(if $(SECOND_FC),-DTW_FORTRAN_SECOND_COMPILER=$(SECOND_FC)) >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

# Installs into PREFIX (DESTDIR=... stages it elsewhere); `make package` builds the
# Debian package into $(BUILD). docs/install.md says what goes where.
PREFIX  ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" $(CMAKE) --install $(BUILD) --prefix "$(abspath $(PREFIX))"

package: build
	$(CMAKE) --build $(BUILD) --target package

# The phases in turn, but mpi4py's suite on Open MPI's face (PyPI, then one rank)
# beside the plain pass. The later phases side by side gained nothing: their ranks,
# each sure of a core, waited by polling (mpi4py's suite on 2 ranks took 317 s beside
# the sanitizer passes, 80 s alone), and the three took 445 s so, 442 in turn.
test:
	@$(MAKE) --no-print-directory -j2 test-main test-mpi4py-openmpi
	@$(MAKE) --no-print-directory test-asan test-tsan test-mpi4py

# Inside a Slurm allocation (an sbatch script, salloc's shell) twrun would hand every
# test's job to srun: the tests start their ranks on this machine, as they are written
# to. The Slurm test starts a cluster of its own and clears this for its steps.
test-main test-asan test-asan-all test-tsan test-mpi4py test-mpi4py-openmpi test-mpi4py-source: export TW_LAUNCHER = fork

# The same with every core also busy with other work (LOAD `yes` processes, one per
# core by default): limits end a test for hanging, never for being slow.
test-loaded:
	@./tests/under_load.sh $(MAKE) test

# ctest on JOBS cores: a test holds one of them while it runs, but those labelled
# "waits" (they sleep through a timeout or a stopped peer) hold none, so up to
# WAITERS of them run beside the others (CMakeLists.txt, tw_tests_hold_cores).
WAITERS ?= 4
CORES = echo '{"version":{"major":1,"minor":0},"local":[{"cores":[{"id":"0","slots":$(JOBS)}]}]}' >cores.json
CTEST = ctest --output-on-failure -j $$(($(JOBS) + $(WAITERS))) --resource-spec-file cores.json

test-main: build
	cd $(BUILD) && $(CORES) && $(CTEST)

# mpi4py's own test suite (tests/external/mpi4py.sh; needs python3-venv and PyPI) on
# MPI4PY_RANKS ranks. `make test` runs PyPI's binary wheel, what `pip install mpi4py`
# gives, on the faces (docs/abi.md): on MPICH's on 2 ranks, with nothing set, and on
# Open MPI's on 1. Most of its time is the Python interpreter's in every rank (on 3
# ranks the suite took 278 s of CPU time, on 2 ranks 149, on 1 rank 56), and CI's time
# is twenty minutes of two cores; the collectives' paths for 3 and more ranks are the
# plain pass's (mpi_coll_3 ... mpi_coll_16_oversubscribed). `make test-mpi4py-source`
# builds mpi4py against this build's mpicc (and python3-dev) and runs the suite on it:
# 180 s of CPU time more, most of it mpi4py's 1000 checks for the calls of an MPI it
# does not know. `make test-mpi4py-source MPI4PY_RANKS="1 2 3 4"` runs it on each.
MPI4PY_RANKS ?= 2
test-mpi4py: build
	./tests/external/mpi4py.sh --wheel mpich $(BUILD) $(MPI4PY_RANKS)

test-mpi4py-openmpi: build
	./tests/external/mpi4py.sh --wheel openmpi $(BUILD) 1

test-mpi4py-source: build
	./tests/external/mpi4py.sh $(BUILD) $(MPI4PY_RANKS)

# Under AddressSanitizer + UndefinedBehaviorSanitizer, in a Debug build (assertions on)
# at -O1, as AddressSanitizer's authors advise (at -O0 the fuzz drivers and the MPI tests
# took 1.3 to 3.2 times the CPU time). `make test` runs the unit tests (the fuzz targets'
# corpora among them), every program of the multi-process tests once
# (tests/once_per_program.py: 2 to 4 ranks where a test runs them so) and
# the insider fuzzer, whose hostile packets are what the sanitizers are for: 94-115 s
# of tests in two runs. `make test-asan-all` runs every unit and multi-process test but
# those across two namespace hosts (the programs the one-node tests run, over the same
# links), 623 tests and 428 s on 2 cores.
# Debug information is line tables only (-g1): what a sanitizer's report prints, file and
# line, in an eighth of the time -g took for tests/mpi/ops.c (3.8 s against 29; the whole
# build 117 s against 146).
ASAN_BUILD = @$(CMAKE) -S . -B $(BUILD)/asan $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTW_SANITIZE=address,undefined \
	  -DCMAKE_C_FLAGS_DEBUG="-g1 -O1" >/dev/null && $(CMAKE) --build $(BUILD)/asan -j $(JOBS)
ASAN_ENV = $(CORES) && export LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan_suppressions.txt
test-asan:
	$(ASAN_BUILD)
	cd $(BUILD)/asan && $(ASAN_ENV) && $(CTEST) -L unit -LE mp && \
	  $(CTEST) -R "$$(python3 $(CURDIR)/tests/once_per_program.py . -L mp -LE 'net|waits')|^net_insider"

test-asan-all:
	$(ASAN_BUILD)
	cd $(BUILD)/asan && $(ASAN_ENV) && $(CTEST) -L "unit|mp" -LE net && $(CTEST) -R "^net_insider"

# Ring tests and the progress-thread tests under ThreadSanitizer; only the programs
# they run are built (tests/test_targets.py).
test-tsan:
	@$(CMAKE) -S . -B $(BUILD)/tsan $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTW_SANITIZE=thread >/dev/null
	@$(CMAKE) --build $(BUILD)/tsan -j $(JOBS) --target $$(python3 tests/test_targets.py $(BUILD)/tsan -L "ring|thread")
	cd $(BUILD)/tsan && $(CORES) && $(CTEST) -L "ring|thread"

# Every fuzz target under clang's libFuzzer, FUZZ_SECONDS each (tests/fuzz/README.md).
FUZZ_SECONDS ?= 60
fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) ./tests/fuzz/run.sh $(BUILD)

demo: build
	@./examples/demo.sh $(BUILD)

# The peers, from Debian's packages, installed when missing.
PEERS := ucx-utils openmpi-bin libopenmpi-dev mpich libmpich-dev python3-matplotlib iptables
bench-peers:
	@command -v ucx_perftest >/dev/null && command -v mpicc.openmpi >/dev/null && \
	  command -v mpicc.mpich >/dev/null && command -v iptables-legacy >/dev/null || \
	  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(PEERS); }

# The newest peers, from PyPI, each in a venv under $(BUILD)/peers (bench/peers.sh):
# MPICH 5 (MPI-4.1), Open MPI 5 and Intel MPI, beside Debian's in every benchmark.
PYPI_PEERS ?= mpich5 openmpi5 impi
bench-peers-pypi:
	@./bench/peers.sh install $(BUILD) $(PYPI_PEERS)

# Collectives at scale (bench/mpi/coll_scale.sh) with two sizes, 8 B and 64 KiB: about
# an hour on 2 cores, most of it MPICH polling on more ranks than cores. Its own
# defaults (all four sizes: make bench COLL_SCALE=) take about two hours.
COLL_SCALE ?= SIZES="8 64K"

bench: build bench-peers bench-peers-pypi
	@./bench/compare.sh $(BUILD)
	@./bench/mpi/compare.sh $(BUILD)
	@env $(COLL_SCALE) ./bench/mpi/coll_scale.sh $(BUILD)
	@./bench/net/compare.sh $(BUILD) || { rc=$$?; [ $$rc = 77 ] || exit $$rc; \
	  echo "bench/net skipped: it needs root to make network namespaces"; }

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)
