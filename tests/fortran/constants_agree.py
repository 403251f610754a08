#!/usr/bin/env python3
"""Runs a C program and one Fortran program a binding, each printing 'NAME VALUE'
lines, and checks that every constant C prints has the same value in each binding.

usage: constants_agree.py C_PROGRAM FORTRAN_PROGRAM...
"""
import subprocess
import sys


def values(program):
    out = subprocess.run([program], capture_output=True, text=True, check=True, timeout=120).stdout
    found = {}
    for line in out.splitlines():
        name, value = line.split()
        found[name] = int(value)
    return found


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    c = values(argv[1])
    if len(c) < 100:
        sys.exit(f"{argv[1]} printed {len(c)} constants: too few to be mpi.h's")
    errors = []
    for program in argv[2:]:
        f = values(program)
        for name, value in c.items():
            if name not in f:
                errors.append(f"{program}: {name} is missing (C: {value})")
            elif f[name] != value:
                errors.append(f"{program}: {name} is {f[name]}, C's is {value}")
    for e in errors:
        print(e)
    if errors:
        sys.exit(f"{len(errors)} constant(s) differ from mpi.h's")
    print(f"{len(c)} constants agree in {len(argv) - 2} binding(s)")


if __name__ == "__main__":
    main(sys.argv)
