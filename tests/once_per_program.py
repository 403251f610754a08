"""A ctest regex naming one test per program among those a ctest selection picks: the
sanitizer pass of `make test` runs every program the tests run once (on 2 to 4 ranks
where a test runs it so, then with the fewest settings of its own, the fewest ranks, the
shortest name) rather than each of its variants, which `make test-asan-all` runs.
usage: once_per_program.py BUILD_DIR [CTEST SELECTION ARGS...] | --self-test"""
import json
import os
import re
import subprocess
import sys

LAUNCHERS = ("mpiexec", "twrun")


def program_of(command, build):
    """The last program of the build (a word under BUILD/bin) on a test's command line
    that is not a launcher; None when there is none (a shell script's line)."""
    bin_dir = os.path.join(build, "bin") + os.sep
    progs = [w for w in command if w.startswith(bin_dir) and os.path.basename(w) not in LAUNCHERS]
    return os.path.basename(progs[-1]) if progs else None


def ranks_of(command):
    for i, w in enumerate(command[:-1]):
        if w in ("-n", "-np") and command[i + 1].isdigit():
            return int(command[i + 1])
    return 0


def choose(tests, build):
    """tests: (name, command, environment) tuples; the names chosen, one per program."""
    best = {}
    for name, command, env in tests:
        prog = program_of(command, build) or name  # a test of no program of ours stands alone
        ranks = ranks_of(command)
        key = (not 2 <= ranks <= 4, len(env), ranks, len(name), name)
        if prog not in best or key < best[prog][0]:
            best[prog] = (key, name)
    return sorted(name for _, name in best.values())


def self_test():
    tests = [
        ("mpi_coll_1", ["/b/bin/mpiexec", "-n", "1", "/b/bin/mpi_coll"], []),
        ("mpi_coll_3", ["/b/bin/mpiexec", "-n", "3", "/b/bin/mpi_coll"], []),
        ("mpi_coll_2", ["/b/bin/mpiexec", "-n", "2", "/b/bin/mpi_coll"], []),
        ("mpi_coll_2_forced", ["/b/bin/mpiexec", "-n", "2", "/b/bin/mpi_coll"], ["TW_COLL_BCAST=tree"]),
        ("rma_ops_udp", ["/b/bin/twrun", "-n", "2", "/b/bin/rma_ops"], ["TW_LINK=udp"]),
        ("rma_ops", ["/b/bin/twrun", "-n", "2", "/b/bin/rma_ops"], []),
        ("script_test", ["/usr/bin/bash", "/src/tests/x.sh", "/b/bin/rma_ops"], []),
        ("other_script", ["/usr/bin/bash", "/src/tests/y.sh"], []),
        ("elsewhere", ["/usr/bin/mpiexec", "-n", "2", "/opt/bin/mpi_coll"], []),
    ]
    got = choose(tests, "/b")
    want = ["elsewhere", "mpi_coll_2", "other_script", "rma_ops"]
    if got != want:
        print("once_per_program: self-test: got %s, want %s" % (got, want))
        return 1
    print("once_per_program: self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    data = json.loads(subprocess.check_output(["ctest", "--show-only=json-v1"] + argv[2:], cwd=argv[1]))
    tests = []
    for t in data["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append((t["name"], t.get("command", []), props.get("ENVIRONMENT", [])))
    names = choose(tests, os.path.abspath(argv[1]))
    if not names:
        print("once_per_program: the selection has no test", file=sys.stderr)
        return 1
    print("^(" + "|".join(re.escape(n) for n in names) + ")$")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
