#!/usr/bin/env python3
"""Open MPI's ABI, read from Open MPI's own mpi.h: the table of the openmpi face.

  ompi_values.py write INCLUDE_DIR...     face.json from these headers (Open MPI 4.1's and
                                          5's: their union; a value they disagree on is
                                          an error)
  ompi_values.py check INCLUDE_DIR [LIB]  face.json against this header (and the sizes
                                          of the predefined objects against LIB's, nm -D
                                          -S): 1 on a difference, 77 when the header is
                                          not there

The predefined handles' Fortran values are mpif-handles.h's, where Open MPI has Fortran.
The integer constants and special addresses are printed by a program compiled against
the header (nothing is copied by hand); the predefined handles are the header's
OMPI_PREDEFINED_GLOBAL(type, object) macros: the face exports each object with the size
Open MPI's library gives it (OBJECT_SIZES, the same in 4.1 and 5).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "face.json")
STANDARD = os.path.join(HERE, "..", "standard", "face.json")

# the size of a predefined object of each handle type in Open MPI's libmpi.so.40 (nm -D
# -S: the same in 4.1 and 5); a program built as PIE copies the objects it names
OBJECT_SIZES = {"MPI_Comm": 0x200, "MPI_Datatype": 0x200, "MPI_Op": 0x800, "MPI_Errhandler": 0x400,
                "MPI_File": 0x600, "MPI_Group": 0x100, "MPI_Info": 0x100, "MPI_Win": 0x200,
                "MPI_Message": 0x100, "MPI_Request": 0x100, "MPI_Session": 0x200}
# Open MPI's predefined callbacks: functions its library exports, which mpi.h names
CALLBACK_TYPES = {"MPI_NULL_COPY_FN": "MPI_Copy_function", "MPI_DUP_FN": "MPI_Copy_function",
                  "MPI_NULL_DELETE_FN": "MPI_Delete_function"}
for _k, _t in (("COMM", "Comm"), ("TYPE", "Type"), ("WIN", "Win")):
    CALLBACK_TYPES[f"MPI_{_k}_NULL_COPY_FN"] = f"MPI_{_t}_copy_attr_function"
    CALLBACK_TYPES[f"MPI_{_k}_DUP_FN"] = f"MPI_{_t}_copy_attr_function"
    CALLBACK_TYPES[f"MPI_{_k}_NULL_DELETE_FN"] = f"MPI_{_t}_delete_attr_function"


# extensions whose predefined handles programs name through mpi-ext.h: Open MPI 5's
# 16-bit float (MPIX_C_FLOAT16, MPIX_SHORT_FLOAT), which mpi4py's wheel uses
EXTENSION_HEADERS = ["openmpi/mpiext/mpiext_shortfloat_c.h"]


def read_header(inc):
    """mpi.h's path, and its text followed by the extensions' headers that are there."""
    path = os.path.join(inc, "mpi.h")
    with open(path) as f:
        text = f.read()
    for h in EXTENSION_HEADERS:
        if os.path.exists(os.path.join(inc, h)):
            with open(os.path.join(inc, h)) as f:
                text += "\n" + f.read()
    return path, text


def handles(text):
    """[(handle type, struct tag, [(MPI name, object)])] in the header's order."""
    types = [(m.group(2), m.group(1)) for m in re.finditer(r"typedef struct (\w+) \*(MPI_\w+);", text)]
    types = [(t, tag) for t, tag in types if t in OBJECT_SIZES]
    rows = {t: [] for t, _ in types}
    for m in re.finditer(r"#\s*define\s+(MPIX?_\w+)\s+OMPI_PREDEFINED_GLOBAL\(\s*(\w+)\s*,\s*(\w+)\s*\)", text):
        name, t, obj = m.groups()
        if t in rows and (name, obj) not in rows[t]:
            rows[t].append((name, obj))
    return [(t, tag, rows[t]) for t, tag in types]


def callbacks(text):
    out = []
    for m in re.finditer(r"#\s*define\s+(MPI_\w+_FN)\s+(OMPI_C_\w+)", text):
        if m.group(1) in CALLBACK_TYPES and m.group(1) not in [n for n, _, _ in out]:
            out.append((m.group(1), CALLBACK_TYPES[m.group(1)], m.group(2)))
    return out


def candidates(text, handle_names):
    """The names of the header's integer constants: its enums' members and object-like
    MPI_ macros that are no handle, type, callback or address."""
    names = []
    for body in re.findall(r"enum\s*\w*\s*\{(.*?)\}", text, re.S):
        names += re.findall(r"\b(MPI_[A-Z0-9_]+)\s*(?:=|,|$)", re.sub(r"/\*.*?\*/", "", body, flags=re.S))
    for m in re.finditer(r"^\s*#\s*define\s+(MPI_[A-Z0-9_]+)(?!\()\s+(.+)$", text, re.M):
        n, v = m.group(1), re.sub(r"/\*.*?(\*/|$)|//.*$", "", m.group(2))
        if "OMPI_PREDEFINED_GLOBAL" in v or "OMPI_C_" in v or "REMOVED" in v or "NULL" in v or "(MPI_T_" in v or "*" in v or '"' in v or n in handle_names:
            continue
        names.append(n)
    seen, out = set(), []
    for n in names:
        if n not in seen and n not in handle_names and not n.endswith("_FN") and n != "MPI_BOTTOM":
            seen.add(n)
            out.append(n)
    return out


POINTERS = [("MPI_BOTTOM", "void *"), ("MPI_IN_PLACE", "void *"), ("MPI_BUFFER_AUTOMATIC", "void *"),
            ("MPI_ARGV_NULL", "char * *"), ("MPI_ARGVS_NULL", "char * * *"), ("MPI_ERRCODES_IGNORE", "int *"),
            ("MPI_STATUS_IGNORE", "MPI_Status *"), ("MPI_STATUSES_IGNORE", "MPI_Status *"),
            ("MPI_UNWEIGHTED", "int *"), ("MPI_WEIGHTS_EMPTY", "int *")]


def compile_values(inc, names, text):
    """{name: int} of the integer constants and special addresses, as a program compiled
    against the header prints them. Names that do not compile as integers are dropped."""
    pointers = [n for n, _ in POINTERS if re.search(rf"\b{n}\b", text)]
    lines = list(names)
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "values.c"), os.path.join(tmp, "values")
        while True:
            body = ["#include <stdio.h>", "#include <stdint.h>", "#include <mpi.h>", "int main(void) {"]
            first = len(body) + 1
            body += [f'    printf("%s %lld\\n", "{n}", (long long)({n}));' for n in lines]
            body += [f'    printf("%s %lld\\n", "{n}", (long long)(intptr_t)({n}));' for n in pointers]
            body += ['    printf("sizeof %zu %zu %zu %zu\\n", sizeof(MPI_Aint), sizeof(MPI_Offset), '
                     'sizeof(MPI_Count), sizeof(MPI_Status));', "    return 0;", "}"]
            with open(src, "w") as f:
                f.write("\n".join(body) + "\n")
            r = subprocess.run(["cc", "-w", "-I", inc, "-o", exe, src], capture_output=True, text=True)
            if r.returncode == 0:
                break
            bad = {int(m) - first for m in re.findall(r"values\.c:(\d+):\d+: (?:error|note)", r.stderr)}
            bad = {i for i in bad if 0 <= i < len(lines)}
            if not bad:
                sys.exit(f"cannot compile a program against {inc}/mpi.h:\n{r.stderr}")
            lines = [n for i, n in enumerate(lines) if i not in bad]
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    values, sizes = {}, None
    for line in out.splitlines():
        n, *v = line.split()
        if n == "sizeof":
            sizes = [int(x) for x in v]
        else:
            values[n] = int(v[0])
    if sizes[:3] != [8, 8, 8] or sizes[3] != 24:
        sys.exit(f"{inc}/mpi.h: MPI_Aint, MPI_Offset, MPI_Count, MPI_Status are {sizes} bytes, not 8, 8, 8, 24")
    return values, pointers


# the Fortran headers (mpif.h's parts) that give the predefined handles' INTEGER values
FORTRAN_HANDLE_HEADERS = ("mpif-handles.h", "mpif-io-handles.h")


def fortran_handles(inc):
    """{MPI name: INTEGER} of the predefined handles in Fortran (Open MPI's indices),
    from mpif-handles.h and mpif-io-handles.h; None where Open MPI was built without
    Fortran (PyPI's Open MPI 5 has no mpif.h)."""
    if not all(os.path.exists(os.path.join(inc, h)) for h in FORTRAN_HANDLE_HEADERS):
        return None
    values = {}
    for h in FORTRAN_HANDLE_HEADERS:
        with open(os.path.join(inc, h)) as f:
            for m in re.finditer(r"parameter\s*\(\s*(MPI_\w+)\s*=\s*(-?\d+)\s*\)", f.read(), re.I):
                values[m.group(1)] = int(m.group(2))
    return values


def extract(inc):
    path, text = read_header(inc)
    hs = handles(text)
    handle_names = {n for _, _, rows in hs for n, _ in rows}
    values, pointers = compile_values(inc, candidates(text, handle_names), text)
    return {"handles": hs, "values": values, "pointers": pointers, "callbacks": callbacks(text),
            "fortran_handles": fortran_handles(inc)}


def table(extracts):
    """face.json from the extracts of one or more headers."""
    std = json.load(open(STANDARD))
    values, handles_by_type, tags, cbs, pointers, fvalues = {}, {}, {}, {}, {}, {}
    for inc, e in extracts:
        for n, v in (e["fortran_handles"] or {}).items():
            if n in fvalues and fvalues[n] != v:
                sys.exit(f"{n} is {fvalues[n]} in one mpif.h and {v} in {inc}'s: one face cannot serve both")
            fvalues[n] = v
        for n, v in e["values"].items():
            if n in values and values[n] != v:
                sys.exit(f"{n} is {values[n]} in one header and {v} in {inc}/mpi.h: one face cannot serve both")
            values[n] = v
        for t, tag, rows in e["handles"]:
            tags[t] = tag
            have = handles_by_type.setdefault(t, [])
            for n, obj in rows:
                if [n, obj] not in have:
                    have.append([n, obj])
        for n, ty, fn in e["callbacks"]:
            cbs[n] = [n, ty, fn]
        for n in e["pointers"]:
            pointers[n] = values[n]
    # the standard table's grouping, Open MPI's values; the rest in a group of their own
    constants, placed = [], set()
    for title, form, rows in std["constants"]:
        mine = [[n, values[n]] for n, _ in rows if n in values]
        if title == "Error Classes":
            mine += [[n, v] for n, v in sorted(values.items(), key=lambda x: x[1])
                     if re.match(r"MPI_(ERR_|T_ERR_)", n) and n not in {r[0] for r in rows}]
        if form == "typedef enum" and not mine:
            # a type of calls Open MPI lacks (MPI-4.x's tools events): the standard's
            # values, so that the face's header declares the calls Tollway exports
            constants.append([title, form, rows])
            continue
        constants.append([title, form, mine])
        placed |= {n for n, _ in mine}
    other = [[n, values[n]] for n in sorted(values) if n not in placed and not n.startswith("MPI_VERSION")
             and n not in ("MPI_SUBVERSION",) and n not in pointers]
    constants.append(["Open MPI's other integer constants", "enum", other])
    std_pointer_types = {n: ty for n, ty, _ in std["pointers"]}
    return {
        "face": "openmpi",
        "description": "Open MPI's ABI (libmpi.so.40, releases 4.1 and 5): the values of its mpi.h, "
                       "written by src/mpi/abi/openmpi/ompi_values.py from Open MPI's headers",
        "soname": "libmpi.so.40",
        "library": "mpi",
        "header": "tollway/face_openmpi.h",
        "guard": "TW_FACE_OPENMPI_H",
        "abi_calls": False,
        "fortran_conversions": True,
        # a predefined handle's INTEGER in Fortran is Open MPI's index (mpif-handles.h),
        # another handle's the native one
        "fortran_handles": {n: fvalues[n] for n in sorted(fvalues)},
        # the library of mpif.h and `use mpi` programs; its special addresses are the
        # common blocks Tollway's own mpif.h names (mpi_fortran_bottom and the rest).
        # The modules' own libraries (libmpi_usempif08.so.40, which calls this one's
        # entry points as ompi_send_f and the rest, libmpi_usempi_ignore_tkr.so.40 with
        # MPI_SIZEOF's procedures) are Open MPI's own over the face
        # (src/common/abi_faces.h: TW_ABI_OVER_FACE)
        "fortran": {"soname": "libmpi_mpifh.so.40", "commons": ""},
        "version": [["MPI_VERSION", values["MPI_VERSION"]], ["MPI_SUBVERSION", values["MPI_SUBVERSION"]]],
        # what MPI_Get_version says (src/mpi/bindings/gen_face.py, GET_VERSION_BODY)
        "reports": [4, 0],
        "reports_why": "MPI_Get_version: Open MPI 5 says 3.1 but its ABI carries MPI-4.0's calls "
                       "(large counts, sessions, partitioned); MPI-4.1's constants it lacks "
                       "(MPI_COMM_TYPE_RESOURCE_GUIDED)",
        "integer_types": [["MPI_Aint", "intptr_t"], ["MPI_Offset", "long long"], ["MPI_Count", "long long"], ["MPI_Fint", "int"]],
        "handle_form": "object",
        "predefined_below": 0,
        "object_sizes": {t: OBJECT_SIZES[t] for t in handles_by_type},
        "status": {"public": ["MPI_SOURCE", "MPI_TAG", "MPI_ERROR"], "internal": ["_cancelled_ucount", 3],
                   "layout": [["int", "_cancelled"], ["size_t", "_ucount"]]},
        "handles": [[t, tags[t], rows] for t, rows in handles_by_type.items()],
        "constants": constants,
        "pointers": [[n, std_pointer_types[n], v] for n, v in pointers.items()],
        "callbacks": list(cbs.values()),
    }


def dump(t):
    """face.json's text: one row a line, as the standard face's table."""
    out = ["{"]
    keys = list(t)
    for i, k in enumerate(keys):
        end = "," if i < len(keys) - 1 else ""
        v = t[k]
        if k == "handles":
            out.append(f' "{k}": [')
            for j, (ty, tag, rows) in enumerate(v):
                out.append(f"  [{json.dumps(ty)}, {json.dumps(tag)}, [")
                out += [f"    {json.dumps(r)}" + ("," if x < len(rows) - 1 else "") for x, r in enumerate(rows)]
                out.append("  ]]" + ("," if j < len(v) - 1 else ""))
            out.append(" ]" + end)
        elif k == "constants":
            out.append(f' "{k}": [')
            for j, (title, form, rows) in enumerate(v):
                out.append(f"  [{json.dumps(title)}, {json.dumps(form)}, [")
                out += [f"    {json.dumps(r)}" + ("," if x < len(rows) - 1 else "") for x, r in enumerate(rows)]
                out.append("  ]]" + ("," if j < len(v) - 1 else ""))
            out.append(" ]" + end)
        elif k in ("pointers", "callbacks"):
            out.append(f' "{k}": [')
            out += [f"  {json.dumps(r)}" + ("," if x < len(v) - 1 else "") for x, r in enumerate(v)]
            out.append(" ]" + end)
        else:
            out.append(f" {json.dumps(k)}: {json.dumps(v)}{end}")
    out.append("}")
    return "\n".join(out) + "\n"


def check(inc, lib):
    if not os.path.exists(os.path.join(inc, "mpi.h")):
        print(f"SKIP: {inc}/mpi.h is not there: nothing to check the openmpi face's table against")
        return 77
    t = json.load(open(TABLE))
    e = extract(inc)
    errors = []
    mine = {n: v for _, _, rows in t["constants"] for n, v in rows}
    for n, v in e["values"].items():
        if n in ("MPI_VERSION", "MPI_SUBVERSION") or n in e["pointers"]:
            continue
        if mine.get(n) != v:
            errors.append(f"{n}: the table has {mine.get(n)}, {inc}/mpi.h {v}")
    ptrs = {n: v for n, _, v in t["pointers"]}
    for n in e["pointers"]:
        if ptrs.get(n) != e["values"][n]:
            errors.append(f"{n}: the table has {ptrs.get(n)}, {inc}/mpi.h {e['values'][n]}")
    objects = {}
    for ty, _, rows in t["handles"]:
        for n, obj in rows:
            objects[n] = (ty, obj)
    for ty, _, rows in e["handles"]:
        for n, obj in rows:
            if objects.get(n) != (ty, obj):
                errors.append(f"{n}: the table has {objects.get(n)}, {inc}/mpi.h ({ty}, {obj})")
    for n, v in (e["fortran_handles"] or {}).items():
        if t["fortran_handles"].get(n) != v:
            errors.append(f"{n}: the table has {t['fortran_handles'].get(n)} in Fortran, {inc}'s mpif.h {v}")
    cbs = {n: fn for n, _, fn in t["callbacks"]}
    for n, _, fn in e["callbacks"]:
        if cbs.get(n) != fn:
            errors.append(f"{n}: the table has {cbs.get(n)}, {inc}/mpi.h {fn}")
    if lib and os.path.exists(lib):
        nm = subprocess.run(["nm", "-D", "-S", "--defined-only", lib], capture_output=True, text=True, check=True)
        sizes = {}
        for line in nm.stdout.splitlines():
            f = line.split()
            if len(f) == 4:
                sizes[f[3]] = int(f[1], 16)
        for ty, obj in set(objects.values()):
            if obj in sizes and sizes[obj] != t["object_sizes"][ty]:
                errors.append(f"{obj}: {lib} gives it {sizes[obj]:#x} bytes, the table {t['object_sizes'][ty]:#x}")
    for x in errors:
        print(x)
    if errors:
        print(f"FAIL: {len(errors)} difference(s) between {TABLE} and {inc}/mpi.h")
        return 1
    print(f"{len(e['values'])} constants, {len(objects)} predefined handles: as {inc}/mpi.h has them")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "write":
        t = table([(inc, extract(inc)) for inc in argv[2:]])
        with open(TABLE, "w") as f:
            f.write(dump(t))
        return 0
    if len(argv) in (3, 4) and argv[1] == "check":
        return check(argv[2], argv[3] if len(argv) == 4 else None)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
