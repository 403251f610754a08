#!/usr/bin/env python3
"""Checks that mpi.h declares every name of tests/mpi/mpi31_names.txt and that
libmpi exports every function of it with its PMPI_ twin.

usage: check_names.py NAMES_TXT INCLUDE_DIR LIBMPI_SO [CC]
       check_names.py --self-test

Prints each name that is missing, by what is missing, and exits 1 if any is."""
import os
import re
import subprocess
import sys
import tempfile


def read_names(path):
    names = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        kind, name = line.split()
        if kind not in ("function", "type", "constant"):
            raise SystemExit(f"{path}: unknown kind {kind!r} for {name}")
        names.append((kind, name))
    return names


def reference(kind, name):
    """A C statement that compiles only if mpi.h declares the name."""
    if kind == "type":
        return f"{{ {name} *p = 0; (void)p; }}"
    if kind == "function":
        return f"(void)&{name}; (void)&P{name};"
    return f"(void)({name});"


def undeclared(names, include_dir, cc):
    """The names the compiler does not know, from its error messages."""
    src = "#include <mpi.h>\nint main(void) {\n"
    src += "".join(f"    {reference(k, n)}\n" for k, n in names)
    src += "    return 0;\n}\n"
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "names.c")
        open(c, "w").write(src)
        r = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-fmax-errors=0", "-I", include_dir, c],
                           capture_output=True, text=True)
    if r.returncode == 0:
        return set()
    # only the names the compiler reports unknown, not those it suggests instead
    missing = set(re.findall(r"[‘'`\"]((?:P?MPI|MPIX)_\w+)[’'\"] undeclared", r.stderr))
    missing |= set(re.findall(r"unknown type name [‘'`\"]((?:P?MPI|MPIX)_\w+)[’'\"]", r.stderr))
    missing |= set(re.findall(r"implicit declaration of function [‘'`\"]((?:P?MPI|MPIX)_\w+)[’'\"]", r.stderr))
    if not missing:  # failed for another reason: say so, do not pass
        sys.stderr.write(r.stderr)
        missing.add("(mpi.h does not compile)")
    return missing


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[1:2] in (["T"], ["W"], ["i"])}


def check(names_txt, include_dir, lib, cc="cc"):
    names = read_names(names_txt)
    problems = []
    for n in sorted(undeclared(names, include_dir, cc)):
        problems.append(f"not declared in mpi.h: {n}")
    syms = exported(lib)
    for kind, n in names:
        if kind != "function":
            continue
        for sym in (n, "P" + n):
            if sym not in syms:
                problems.append(f"not exported by {os.path.basename(lib)}: {sym}")
    for p in problems:
        print(p)
    functions = sum(1 for k, _ in names if k == "function")
    print(f"{len(names)} names ({functions} functions): {len(problems)} missing")
    return 1 if problems else 0


def self_test():
    """The checker catches a missing declaration, a missing export and a missing
    PMPI_ twin on a planted header and library."""
    with tempfile.TemporaryDirectory() as tmp:
        inc = os.path.join(tmp, "include")
        os.mkdir(inc)
        open(os.path.join(inc, "mpi.h"), "w").write(
            "typedef int MPI_Comm;\n#define MPI_COMM_WORLD 1\n"
            "int MPI_Good(void);\nint PMPI_Good(void);\nint MPI_Half(void);\nint PMPI_Half(void);\n")
        lib_c = os.path.join(tmp, "lib.c")
        open(lib_c, "w").write("int MPI_Good(void){return 0;}\nint PMPI_Good(void){return 0;}\n"
                               "int MPI_Half(void){return 0;}\n")
        lib = os.path.join(tmp, "libmpi.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, lib_c], check=True)
        txt = os.path.join(tmp, "names.txt")
        open(txt, "w").write("type MPI_Comm\nconstant MPI_COMM_WORLD\nfunction MPI_Good\n"
                             "function MPI_Half\nfunction MPI_Absent\nconstant MPI_NOT_THERE\n"
                             "type MPI_Nope\n")
        names = read_names(txt)
        got = undeclared(names, inc, "cc")
        assert got == {"MPI_Absent", "PMPI_Absent", "MPI_NOT_THERE", "MPI_Nope"}, got
        syms = exported(lib)
        assert "MPI_Half" in syms and "PMPI_Half" not in syms and "PMPI_Good" in syms, syms
        assert check(txt, inc, lib) == 1
        open(txt, "w").write("type MPI_Comm\nconstant MPI_COMM_WORLD\nfunction MPI_Good\n")
        assert check(txt, inc, lib) == 0
    print("self-test passed")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sys.exit(check(*sys.argv[1:]))
