#!/usr/bin/env python3
"""The claim checks of src/mpi/bindings/gen_bindings.py fail, naming the function, on
a header that misses a call, declares one too many or one differently, and on a
library that misses or adds an export.
usage: bindings_self_test.py SOURCE_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "src", "mpi", "bindings"))
import gen_bindings  # noqa: E402

procs = gen_bindings.load_model()
failures = []


def expect(what, errors, *needles):
    text = "\n".join(errors)
    for n in needles:
        if n not in text:
            failures.append(f"{what}: no error naming {n} in:\n{text}")


with tempfile.TemporaryDirectory() as tmp:
    inc = os.path.join(tmp, "include")
    shutil.copytree(os.path.join(src, "include"), inc)
    mpi_h = os.path.join(inc, "mpi.h")
    errors = gen_bindings.check_header(procs, mpi_h)
    if errors:
        failures.append("the tree's mpi.h differs:\n" + "\n".join(errors))

    calls = os.path.join(inc, "tollway", "mpi_calls.h")
    text = open(calls).read()
    send = next(l for l in text.splitlines() if l.startswith("int MPI_Send("))
    barrier = next(l for l in text.splitlines() if l.startswith("int MPI_Barrier("))
    text = text.replace(barrier + "\n", "")  # missing
    text = text.replace(send, send.replace("int count", "long count"))  # declared differently
    text = text.replace("/* clang-format on */", "int MPI_Not_a_call(int x);\n/* clang-format on */")
    open(calls, "w").write(text)
    expect("an altered mpi_calls.h", gen_bindings.check_header(procs, mpi_h),
           "does not declare MPI_Barrier", "declares MPI_Send as", "declares MPI_Not_a_call")

    lib_c = os.path.join(tmp, "lib.c")
    open(lib_c, "w").write("int PMPI_Send(void) { return 0; }\n"
                           "int MPI_Send(void) __attribute__((weak, alias(\"PMPI_Send\")));\n"
                           "int MPI_Not_a_call(void) { return 1; }\n")
    lib = os.path.join(tmp, "libfake.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, lib_c], check=True)
    errors = gen_bindings.check_library(procs, lib)
    expect("a library with too little", errors, "does not export MPI_Barrier",
           "does not export PMPI_Barrier", "exports MPI_Not_a_call")
    if any("MPI_Send," in e or e.endswith("MPI_Send") for e in errors):
        failures.append("a library exporting MPI_Send and PMPI_Send was said not to")

for f in failures:
    print(f)
sys.exit(1 if failures else 0)
