"""The openmpi face's hook (gen_face.py's load_hook): Open MPI's predefined handles are
the addresses of objects its library exports (mpi.h: MPI_COMM_WORLD is
&ompi_mpi_comm_world), which the face defines, each with the size Open MPI gives it.

A program built as PIE gets copy relocations of the objects it names: its own copies,
which every reference (the face's too, through the GOT) then resolves to. So a
predefined handle is recognised by what its object holds, copied with it: the native
handle, put there at build time. A handle Tollway makes for the program (a
new communicator) is the native handle shifted left, plus one: odd, never an object's
address. The null pointer is no handle (native 0, which every call refuses)."""
import gen_face  # the generator that loads this hook (its handle_out_fn)

def objects(face):
    """[(handle type, object, [MPI names], native value or None)], in the table's order."""
    out = []
    for ht, _, rows in face.t["handles"]:
        by_obj = {}
        for n, obj in rows:
            by_obj.setdefault(obj, []).append(n)
        for obj, names in by_obj.items():
            native = next((face.native[n] for n in names if n in face.native), None)
            out.append((ht, obj, names, native))
    return out


def handle_rows(face):
    rows = {ht: [] for ht, _, _ in face.t["handles"]}
    for ht, obj, names, native in objects(face):
        rows[ht].append((names[0], obj, native))
    return rows


def header_handles(face):
    out = ["/* Open MPI's predefined handles: the addresses of objects the face exports (hook.py) */",
           "typedef struct {", "    int tw_native;", "} tw_ompi_head;"]
    for size in sorted(set(face.t["object_sizes"].values())):
        out.append(f"typedef union {{ tw_ompi_head head; char bytes[{size:#x}]; }} tw_ompi_object_{size:#x};")
    for ht, tag, rows in face.t["handles"]:
        out.append(f"typedef struct {tag} *{ht};")
    size = face.t["object_sizes"]
    for ht, obj, names, _ in objects(face):
        out.append(f"extern tw_ompi_object_{size[ht]:#x} {obj};")
        out += [f"#define {n} (({ht})&{obj})" for n in names]
    return "\n".join(out) + "\n"


def header_callbacks(face):
    out = []
    for n, ty, fn in face.t["callbacks"]:
        out.append(f"{ty} {fn};")
        out.append(f"#define {n} {fn}")
    return "\n".join(out)


def exported_data(face):
    return [obj for _, obj, _, _ in objects(face)] + [fn for _, _, fn in face.t["callbacks"]]


CALLBACK_BODIES = {
    "NULL_COPY": "(void)oldobj, (void)keyval, (void)extra_state, (void)in, (void)out;\n"
                 "    *flag = 0;\n    return MPI_SUCCESS;",
    "DUP": "(void)oldobj, (void)keyval, (void)extra_state;\n"
           "    *(void **)out = in;\n    *flag = 1;\n    return MPI_SUCCESS;",
    "NULL_DELETE": "(void)obj, (void)keyval, (void)value, (void)extra_state;\n    return MPI_SUCCESS;",
}
OBJ_TYPES = {"Copy_function": "MPI_Comm", "Delete_function": "MPI_Comm"}


def handle_fns(face):
    size = face.t["object_sizes"]
    out = ["/* Open MPI's predefined objects (hook.py): the native handle, copied",
           " * with the object into a program's copy relocation. Weak, so that the face's own",
           " * references go through the GOT (to the program's copy) even under",
           " * -fno-semantic-interposition */",
           "#pragma GCC visibility push(default)"]
    for ht, obj, names, native in objects(face):
        what = f"/* {', '.join(names)}{'' if native is not None else ': not in Tollway, refused by every call'} */"
        out.append(f"tw_ompi_object_{size[ht]:#x} {obj} __attribute__((weak, aligned(64))) = "
                   f"{{.head = {{.tw_native = {native or 0:#x}}}}}; {what}")
    # the predefined attribute callbacks: functions of Open MPI's library, called through
    # the attribute trampolines like a program's own
    for n, ty, fn in face.t["callbacks"]:
        kind = "NULL_COPY" if "NULL_COPY" in n else "NULL_DELETE" if "NULL_DELETE" in n else "DUP"
        t = ty.replace("_copy_attr_function", "").replace("_delete_attr_function", "")
        obj_t = {"MPI_Type": "MPI_Datatype"}.get(t, t) if t.startswith("MPI_") and "_" not in t[4:] \
            else "MPI_Comm"
        if kind == "NULL_DELETE":
            out.append(f"int {fn}({obj_t} obj, int keyval, void *value, void *extra_state) {{")
        else:
            out.append(f"int {fn}({obj_t} oldobj, int keyval, void *extra_state, void *in, void *out, int *flag) {{")
        out.append("    " + CALLBACK_BODIES[kind])
        out.append("}")
    out.append("#pragma GCC visibility pop")
    # an address that is no predefined object's (the program's error) gives the native
    # handle check whatever it holds there, which that check refuses as it refuses any
    # invalid handle; only the null pointer is tested, as it cannot be read
    out.append("""static inline int tw_ompi_predefined(uintptr_t v) {
    return v ? ((const tw_ompi_head *)v)->tw_native : 0;
}""")
    for ht, rows in face.handles.items():
        c = ht[len("MPI_"):].lower()
        out.append(f"static inline int {c}_in({ht} h) {{")
        out.append("    uintptr_t v = (uintptr_t)h;")
        out.append("    return v & 1 ? (int)(v >> 1) : tw_ompi_predefined(v);")
        out.append("}")
        # a handle Tollway made: odd, so never an object's address
        out += gen_face.handle_out_fn(ht, c, rows, lambda obj: f"&{obj}",
                                      "(((uintptr_t)(unsigned)n << 1) | 1)")
    return "\n".join(out)
