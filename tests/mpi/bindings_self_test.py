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

# The generated argument checks: LEFT_OUT names what exists; the sample that
# bindings_argchecks.c drives is checked by the wrappers; what is left out is not.
by_name = {p.name: p for p in procs}
kinds = {q.kind for p in procs for q in p.params}
for key in gen_bindings.LEFT_OUT:
    if isinstance(key, tuple):
        if key[0] not in by_name or key[1] not in {q.name for q in by_name[key[0]].params}:
            failures.append(f"LEFT_OUT names {key}, which the claimed calls do not have")
    elif key not in by_name and key not in kinds:
        failures.append(f"LEFT_OUT names {key}, neither a claimed call nor a kind")
checked = {(p.name, c.param): c.errclass for p in procs for c in p.checks()}
driven = [("MPI_Ssend", "datatype", "MPI_ERR_TYPE"), ("MPI_Send_init", "count", "MPI_ERR_COUNT"),
          ("MPI_Sendrecv", "sendcount", "MPI_ERR_COUNT"), ("MPI_Send_c", "count", "MPI_ERR_COUNT"),
          ("MPI_Psend_init", "count", "MPI_ERR_COUNT"), ("MPI_Waitall", "count", "MPI_ERR_COUNT"),
          ("MPI_Allgather", "recvcount", "MPI_ERR_COUNT"), ("MPI_Iallreduce", "op", "MPI_ERR_OP"),
          ("MPI_Allreduce", "count", "MPI_ERR_COUNT"), ("MPI_Comm_create", "group", "MPI_ERR_GROUP"),
          ("MPI_Group_size", "group", "MPI_ERR_GROUP"), ("MPI_Dist_graph_create", "n", "MPI_ERR_ARG"),
          ("MPI_Type_contiguous", "count", "MPI_ERR_COUNT"),
          ("MPI_Type_vector", "blocklength", "MPI_ERR_ARG"), ("MPI_Pack", "outsize", "MPI_ERR_ARG"),
          ("MPI_Put", "origin_count", "MPI_ERR_COUNT"), ("MPI_Accumulate", "op", "MPI_ERR_OP"),
          ("MPI_Win_post", "group", "MPI_ERR_GROUP"), ("MPI_Info_set", "info", "MPI_ERR_INFO"),
          ("MPI_Op_commutative", "op", "MPI_ERR_OP"), ("MPI_Reduce_local", "count", "MPI_ERR_COUNT")]
for call, param, errclass in driven:
    if checked.get((call, param)) != errclass:
        failures.append(f"{call} {param}: checked as {checked.get((call, param))}, not {errclass}")
for call, param in [("MPI_Send", "datatype"), ("MPI_Allreduce", "op"), ("MPI_Bcast", "count"),
                    ("MPI_Allgather", "sendcount"), ("MPI_Get_accumulate", "origin_datatype"),
                    ("MPI_Buffer_attach", "size"), ("MPI_Comm_set_info", "info"),
                    ("MPI_Send", "dest"), ("MPI_Send", "tag"), ("MPI_Put", "target_rank")]:
    if (call, param) in checked:
        failures.append(f"{call} {param} is checked, though left to the implementation")
api = gen_bindings.emit_wrappers(procs)
if "checked_MPI_Put(" not in api or "tw_mpi_arg_reportable(TW_ARG_WIN, win)" not in api:
    failures.append("the wrappers do not check MPI_Put against its window")

for f in failures:
    print(f)
sys.exit(1 if failures else 0)
