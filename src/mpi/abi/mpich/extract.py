"""MPICH's ABI, read from MPICH's mpi.h by compiling a program against it.

    extract.py MPI_H [OUT]       writes the face's table (face.json) from MPI_H's values
    extract.py --check MPI_H     compares src/mpi/abi/mpich/face.json with MPI_H's values

The names come from the standard ABI's table (src/mpi/abi/standard/face.json: every
predefined handle and constant the faces know) and the few below that only MPICH's
ABI has; their values, the status layout and the integer types from a C program
compiled with MPI_H's directory first on the include path and run. A name MPI_H does
not declare is left out (the compiler names it; the program is compiled again without
it). MPICH's ABI has been stable since 3.1: Debian's MPICH 4.0 and MPICH 5 must agree
(tests/abi: abi_mpich_table_*), and where 5 adds a name the table has 5's.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "face.json")
TEMPLATE = os.path.join(HERE, "..", "standard", "face.json")

# the status's fields, in MPICH's order (checked against the header: offsets)
STATUS_FIELDS = ["count_lo", "count_hi_and_cancelled", "MPI_SOURCE", "MPI_TAG", "MPI_ERROR"]
# handle types that are pointers in MPICH's ABI (ROMIO's MPI_File): the others are ints
POINTER_HANDLES = {"MPI_File"}
# special addresses: a constant, or an object the library exports (its value is the
# symbol's address, the same in the face's library: the face exports the object)
POINTERS = [("MPI_BOTTOM", "void *"), ("MPI_IN_PLACE", "void *"), ("MPI_BUFFER_AUTOMATIC", "void *"),
            ("MPI_ARGV_NULL", "char * *"), ("MPI_ARGVS_NULL", "char * * *"),
            ("MPI_ERRCODES_IGNORE", "int *"), ("MPI_STATUS_IGNORE", "MPI_Status *"),
            ("MPI_STATUSES_IGNORE", "MPI_Status *")]
EXPORTED_OBJECTS = ["MPI_UNWEIGHTED", "MPI_WEIGHTS_EMPTY", "MPI_F_STATUS_IGNORE",
                    "MPI_F_STATUSES_IGNORE"]
CALLBACKS = [("MPI_NULL_COPY_FN", "MPI_Copy_function"), ("MPI_DUP_FN", "MPI_Copy_function"),
             ("MPI_NULL_DELETE_FN", "MPI_Delete_function"),
             ("MPI_COMM_NULL_COPY_FN", "MPI_Comm_copy_attr_function"),
             ("MPI_COMM_DUP_FN", "MPI_Comm_copy_attr_function"),
             ("MPI_COMM_NULL_DELETE_FN", "MPI_Comm_delete_attr_function"),
             ("MPI_TYPE_NULL_COPY_FN", "MPI_Type_copy_attr_function"),
             ("MPI_TYPE_DUP_FN", "MPI_Type_copy_attr_function"),
             ("MPI_TYPE_NULL_DELETE_FN", "MPI_Type_delete_attr_function"),
             ("MPI_WIN_NULL_COPY_FN", "MPI_Win_copy_attr_function"),
             ("MPI_WIN_DUP_FN", "MPI_Win_copy_attr_function"),
             ("MPI_WIN_NULL_DELETE_FN", "MPI_Win_delete_attr_function"),
             ("MPI_CONVERSION_FN_NULL", "MPI_Datarep_conversion_function"),
             ("MPI_CONVERSION_FN_NULL_C", "MPI_Datarep_conversion_function_c")]
# MPICH's predefined handles the standard ABI has not: its 16-bit floats, and MPI-1's
# bounds markers, which Tollway lacks (the face maps those to the kind's null handle,
# so that a call with one fails cleanly)
EXTRA_HANDLES = {"MPI_Datatype": ["MPI_LB", "MPI_UB", "MPIX_C_FLOAT16", "MPIX_BFLOAT16"]}
# MPICH's DUP callbacks are one function its library exports: the face's library
# exports it too (src/mpi/abi/mpich/hooks.c)
DUP_FN = "MPIR_Dup_fn"
SIZES = {"int": 4, "long": 8, "long long": 8}


def program(names):
    """The C program printing each (kind, name) of names: one line each."""
    out = ["#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>", "#include <mpi.h>",
           "#define TYPE_NAME(x) _Generic((x), int: \"int\", long: \"long\", long long: \"long long\", "
           "default: \"other\")",
           "int main(void) {"]
    for kind, n in names:
        if kind in ("int", "constant"):
            out.append(f'    printf("{kind} {n} %lld\\n", (long long)({n}));')
        elif kind == "handle":  # an int handle as unsigned, not sign-extended
            out.append(f'    printf("handle {n} %#llx\\n", sizeof({n}) == sizeof(int) ? '
                       f'(unsigned long long)(unsigned)(uintptr_t)({n}) : (unsigned long long)(uintptr_t)({n}));')
        elif kind == "pointer":
            out.append(f'    printf("pointer {n} %#llx\\n", (unsigned long long)(uintptr_t)({n}));')
        elif kind == "object":
            out.append(f'    printf("object {n} %d\\n", (void *)&{n} != NULL);')
        elif kind == "callback":
            out.append(f'    printf("callback {n} %s\\n", (void *)({n}) == (void *)0 ? "0" : '
                       f'(void *)({n}) == (void *){DUP_FN} ? "{DUP_FN}" : "other");')
        elif kind == "status":
            out.append(f'    printf("status {n} %zu\\n", offsetof(MPI_Status, {n}));')
        elif kind == "size":
            out.append(f'    printf("size {n} %zu %s\\n", sizeof({n}), TYPE_NAME(({n})0));')
    out.append('    printf("size MPI_Status %zu -\\n", sizeof(MPI_Status));')
    out += ["    return 0;", "}"]
    return "\n".join(out) + "\n"


def names_of(template):
    names = []
    for ht, _tag, rows in template["handles"]:
        names += [("handle", n) for n, _ in rows] + [("handle", n) for n in EXTRA_HANDLES.get(ht, [])]
    for _title, _form, rows in template["constants"]:
        names += [("constant", n) for n, _ in rows]
    names += [("pointer", n) for n, _ in POINTERS] + [("object", n) for n in EXPORTED_OBJECTS]
    names += [("callback", n) for n, _ in CALLBACKS] + [("status", f) for f in STATUS_FIELDS]
    names += [("size", n) for n in ("MPI_Aint", "MPI_Offset", "MPI_Count", "MPI_Fint")]
    names += [("int", n) for n in ("MPI_VERSION", "MPI_SUBVERSION")]
    return names


def read_header(mpi_h, cc="cc"):
    """{(kind, name): value text} of MPI_H, by a program compiled against it."""
    template = json.load(open(TEMPLATE))
    names = names_of(template)
    inc = os.path.dirname(os.path.abspath(mpi_h))
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "values.c"), os.path.join(d, "values")
        for _ in range(50):
            open(src, "w").write(program(names))
            r = subprocess.run([cc, "-std=c11", "-w", "-I", inc, "-o", exe, src], capture_output=True,
                               text=True, env=dict(os.environ, LC_ALL="C"))
            if r.returncode == 0:
                break
            # the names the header does not declare: compiled again without them
            missing = set(re.findall(r"'(MPI\w+)' undeclared|no member named '(\w+)'", r.stderr))
            missing = {x for t in missing for x in t if x}
            if not missing:
                sys.exit(f"extract.py: the program against {mpi_h} does not compile:\n{r.stderr}")
            names = [(k, n) for k, n in names if n not in missing]
        else:
            sys.exit(f"extract.py: {mpi_h}: too many names missing")
        r = subprocess.run([exe], capture_output=True, text=True, check=True)
    values = {}
    for line in r.stdout.splitlines():
        kind, name, *rest = line.split()
        values[(kind, name)] = rest
    return template, values


def table(template, values, header_name):
    v = {n: rest for (k, n), rest in values.items()}
    size = lambda n: " ".join(v[n][1:]) if n in v else None
    status_size = int(values[("size", "MPI_Status")][0])
    offsets = [int(v[f][0]) for f in STATUS_FIELDS]
    if offsets != [4 * i for i in range(len(STATUS_FIELDS))] or status_size != 4 * len(STATUS_FIELDS):
        sys.exit(f"extract.py: {header_name}'s MPI_Status is not {STATUS_FIELDS} (offsets {offsets}, "
                 f"size {status_size})")
    t = {
        "face": "mpich",
        "description": "MPICH's ABI (libmpi.so.12, stable since MPICH 3.1; Intel MPI, Cray MPICH and "
                       "MVAPICH share it): the values of MPICH's mpi.h, written by "
                       "src/mpi/abi/mpich/extract.py from " + header_name,
        "soname": "libmpi.so.12",
        "library": "mpi",
        # libmpich.so.12: Debian's MPICH programs; libmpi.so: what a module that loads
        # its MPI at run time asks for first (PyPI's mpi4py: it then takes the ABI the
        # library's symbols say), which in the faces' directory is this face rather than
        # another MPI's libmpi.so further down the path
        "aliases": ["libmpich.so.12", "libmpi.so"],
        "header": "mpich/mpi.h",
        "header_in_tree": False,
        "guard": "MPI_INCLUDED",
        "hooks": "mpi/abi/mpich/hooks.h",
        "abi_calls": False,
        # MPI_Comm_c2f and the rest, which C programs call (mpi4py, HDF5): a Fortran
        # handle is the C one's int, a Fortran status the C one's ints, as mpif.h of
        # MPICH has them (the Fortran face's library relies on it)
        "fortran_conversions": True,
        "fortran_handles": "c",
        # the mpif.h and mpi module programs' library (Debian's libmpichfort.so.12)
        "fortran": {"soname": "libmpifort.so.12", "aliases": ["libmpichfort.so.12"],
                    "commons": "mpi/abi/mpich/fortran/commons.h"},
        "version": [["MPI_VERSION", int(v["MPI_VERSION"][0])], ["MPI_SUBVERSION", int(v["MPI_SUBVERSION"][0])]],
        "integer_types": [["MPI_Aint", size("MPI_Aint")], ["MPI_Fint", size("MPI_Fint")],
                          ["MPI_Count", size("MPI_Count")], ["MPI_Offset", size("MPI_Offset")]],
        "handle_form": "int",
        "pointer_handles": sorted(POINTER_HANDLES),
        "predefined_below": 1,
        "status": {"fields": STATUS_FIELDS, "public": ["MPI_SOURCE", "MPI_TAG", "MPI_ERROR"],
                   "internal": None},
        "handles": [],
        "constants": [],
        "pointers": [],
        "objects": [n for n in EXPORTED_OBJECTS if ("object", n) in values],
        "callbacks": [],
    }
    for ht, tag, rows in template["handles"]:
        names = [n for n, _ in rows] + EXTRA_HANDLES.get(ht, [])
        got = []
        for n in names:
            if ("handle", n) in values:
                got.append([n, "%#010x" % int(values[("handle", n)][0], 16)])
        # an alias is the value of the row it aliases: keep the first name of each value
        seen = {}
        for row in got:
            if row[1] in seen and ht != "MPI_Request" and ht != "MPI_Message":
                row[1] = seen[row[1]]
            else:
                seen.setdefault(row[1], row[0])
        t["handles"].append([ht, tag.replace("MPI_ABI_", "MPICH_"), got])
    for title, form, rows in template["constants"]:
        got = [[n, int(values[("constant", n)][0])] for n, _ in rows if ("constant", n) in values]
        t["constants"].append([title, form if form == "typedef enum" else "define", got])
    for n, ty in POINTERS:
        if ("pointer", n) in values:
            x = int(values[("pointer", n)][0], 16)
            t["pointers"].append([n, ty, x - (1 << 64) if x >= 1 << 63 else x])
    for n, ty in CALLBACKS:
        if ("callback", n) in values:
            x = values[("callback", n)][0]
            t["callbacks"].append([n, ty, 0 if x == "0" else x])
    return t


def dump(t):
    """face.json's text: one row a line."""
    lines = ["{"]
    items = list(t.items())
    for i, (k, val) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if k in ("handles", "constants"):
            lines.append(f' "{k}": [')
            for j, (a, b, rows) in enumerate(val):
                lines.append(f"  [{json.dumps(a)}, {json.dumps(b)}, [")
                lines += ["    " + json.dumps(r) + ("," if m < len(rows) - 1 else "") for m, r in enumerate(rows)]
                lines.append("  ]]" + ("," if j < len(val) - 1 else ""))
            lines.append(" ]" + end)
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(val)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv):
    check = argv[:1] == ["--check"]
    if check:
        argv = argv[1:]
    if len(argv) not in (1, 2):
        sys.exit(__doc__)
    mpi_h = argv[0]
    template, values = read_header(mpi_h, os.environ.get("CC", "cc"))
    t = table(template, values, "MPICH's mpi.h")
    if not check:
        text = dump(t)
        if len(argv) == 2 and argv[1] != "-":
            open(argv[1], "w").write(text)
        else:
            sys.stdout.write(text)
        return 0
    have = json.load(open(TABLE))
    errors = []
    if have["status"] != t["status"]:
        errors.append(f"status: the table has {have['status']}, {mpi_h} {t['status']}")
    # the integer types by size (MPICH 4.0's MPI_Count is a long, 5's a long long: the same ABI)
    sizes = {n: int(values[("size", n)][0]) for n, _ in t["integer_types"]}
    for n, ty in have["integer_types"]:
        if SIZES[ty] != sizes.get(n):
            errors.append(f"{n}: the table has {ty}, {mpi_h} a type of {sizes.get(n)} bytes")
    flat = lambda rows_of: {n: x for _, _, rows in rows_of for n, x in rows}
    for what in ("handles", "constants"):
        a, b = flat(have[what]), flat(t[what])
        for n in sorted(set(a) | set(b)):
            if n not in b:
                continue  # a name this header lacks (an older MPICH): the table has the newer's
            if isinstance(b[n], str) and b[n].endswith("_NULL"):
                continue  # a name an older MPICH has as the null handle: not there yet
            if a.get(n) != b[n]:
                errors.append(f"{n}: the table has {a.get(n)}, {mpi_h} {b[n]}")
    for what in ("pointers", "callbacks"):
        a = {r[0]: r[2] for r in have[what]}
        for n, _, x in t[what]:
            if a.get(n) != x:
                errors.append(f"{n}: the table has {a.get(n)}, {mpi_h} {x}")
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} difference(s) between {TABLE} and {mpi_h}")
        return 1
    n = sum(len(r[2]) for r in t["handles"]) + sum(len(r[2]) for r in t["constants"])
    print(f"{n} handles and constants, the status and the integer types: the table's, as {mpi_h} has them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
