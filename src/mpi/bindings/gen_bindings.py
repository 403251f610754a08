#!/usr/bin/env python3
"""Generates libmpi's C bindings from the MPI Forum's description of the standard.

The input is standard.json (beside this file): a compact extract of the Forum's
machine-readable API (PyPI pympistandard 0.2.0, its apis.json), written by this tool's
`extract` subcommand, so the build needs no pip package. not_claimed.txt names each
function of the description that libmpi does not implement yet, with why. What is
left is what libmpi claims: each is declared in the headers and exported.

The model (procedures, their parameters and kinds) is loaded once; each output is
an emitter over it. The library defines each call under an internal name
(tw_mpi_impl_Send for MPI_Send: rename.h, included before everything in every libmpi
source, makes that so for the definitions and for the library's own calls alike).
The public symbols are thin wrappers (api.c): PMPI_Send checks what the description
alone decides (a count is not negative, a datatype not MPI_DATATYPE_NULL:
Procedure.checks, and LEFT_OUT for what it leaves to the implementation), takes the
thread lock when
MPI_THREAD_MULTIPLE is on and calls the implementation; MPI_Send is a weak alias of
PMPI_Send. So a tool that defines MPI_Send sees exactly the user's calls and reaches
the library through PMPI_Send, and the library's internal calls never pass through
the tool.

usage: gen_bindings.py extract                 (rewrites standard.json from pympistandard)
       gen_bindings.py headers [DIR]           (DIR/tollway/mpi_calls.h, DIR/tollway/pmpi.h,
                                                each face's header, DIR/mpi_abi.h;
                                                DIR defaults to the tree's include/)
       gen_bindings.py rename OUT              (rename.h)
       gen_bindings.py wrappers OUT            (api.c)
       gen_bindings.py wrappers-face OUT       (api_face.c: api.c's bodies, hidden, for the faces)
       gen_bindings.py face-c FACE OUT         (a face's entry points: gen_face.py; FACE is
                                                a directory of src/mpi/abi, e.g. standard)
       gen_bindings.py face-header FACE OUT    (the face's header, e.g. mpi_abi.h)
       gen_bindings.py face-map FACE OUT       (the face's version script)
       gen_bindings.py fortran-c OUT           (libmpifort's entry points, C)
       gen_bindings.py fortran-constants MPI_H OUT   (the C program that prints the
                                                Fortran constants from MPI_H's values)
       gen_bindings.py mpif-h CONSTANTS OUT    (mpif.h, with what that program printed)
       gen_bindings.py mpi-module CONSTANTS OUT (the mpi module's source, mpi.f90)
       gen_bindings.py f08-c OUT               (mpi_f08's entry points, C)
       gen_bindings.py mpi-f08-module CONSTANTS MPI_H OUT (the mpi_f08 module's source)
       gen_bindings.py constants-values MPI_H OUT  (a C program printing the constants)
       gen_bindings.py constants-print CONSTANTS MPI_H BINDING OUT (the same in Fortran,
                                                through mpif.h, mpi or mpi_f08)
       gen_bindings.py names                   (the claimed functions, one a line)
       gen_bindings.py check-library LIBMPI    (nm -D of LIBMPI against the claim)
       gen_bindings.py check-header MPI_H      (mpi.h's prototypes against the claim)
       gen_bindings.py check-face FACE LIB     (nm -D of a face's library against its calls)
OUT may be - for standard output.
"""
import copy
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DESCRIPTION = os.path.join(HERE, "standard.json")
NOT_CLAIMED = os.path.join(HERE, "not_claimed.txt")
PYMPISTANDARD_VERSION = "0.2.0"

# Calls cheap and pure enough to need no lock, or that must work without one.
UNLOCKED = {"MPI_Wtime", "MPI_Wtick", "MPI_Aint_add", "MPI_Aint_diff", "MPI_Initialized",
            "MPI_Finalized", "MPI_Query_thread", "MPI_Is_thread_main", "MPI_Get_version",
            "MPI_Get_library_version", "MPI_Pcontrol",
            # a partition is marked with one atomic OR; the call takes the lock
            # itself only to put what is marked (src/mpi/pt2pt/partitioned.c)
            "MPI_Pready", "MPI_Pready_range", "MPI_Pready_list"}

# The locks a call takes under MPI_THREAD_MULTIPLE (src/mpi/env/thread.h): the
# point-to-point calls on a communicator take its channel's alone, the calls on
# requests or matched messages the channels of those, a few calls every lock (they
# look at requests of any channel: the buffered sends' buffers, MPI_T's queue
# lengths, the end of the library); every other call the library's, and first the
# channel's of each communicator it names. By name less any _c suffix.
CHANNEL_COMM_CALLS = {
    "MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Isend", "MPI_Issend", "MPI_Irsend", "MPI_Recv",
    "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Isendrecv",
    "MPI_Isendrecv_replace", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Rsend_init", "MPI_Recv_init"}
REQUEST_CALLS = {
    "MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Testany",
    "MPI_Waitsome", "MPI_Testsome", "MPI_Request_free", "MPI_Request_get_status",
    "MPI_Request_get_status_all", "MPI_Request_get_status_any", "MPI_Request_get_status_some",
    "MPI_Cancel", "MPI_Start", "MPI_Startall"}
MESSAGE_CALLS = {"MPI_Mrecv", "MPI_Imrecv"}
ALL_LOCK_CALLS = {
    "MPI_Finalize", "MPI_Session_finalize", "MPI_Buffer_attach", "MPI_Buffer_detach",
    "MPI_Buffer_flush", "MPI_Buffer_iflush", "MPI_Comm_attach_buffer", "MPI_Comm_detach_buffer",
    "MPI_Comm_flush_buffer", "MPI_Comm_iflush_buffer", "MPI_Session_attach_buffer",
    "MPI_Session_detach_buffer", "MPI_Session_flush_buffer", "MPI_Session_iflush_buffer",
    "MPI_T_pvar_read", "MPI_T_pvar_readreset", "MPI_T_pvar_reset"}


def lock_set(p):
    """The C expression of the locks p's wrapper takes (thread.h's sets)."""
    base = p.name[:-2] if p.name.endswith("_c") else p.name
    if base in ALL_LOCK_CALLS:
        return "tw_mpi_lock_all()"
    # a derived datatype's table and counts are the library's
    types = "".join(f" | tw_mpi_lock_of_type({q.name})" for q in p.params
                    if q.kind == "DATATYPE" and q.scalar)
    if base in CHANNEL_COMM_CALLS:
        comm = next(q for q in p.params if q.kind == "COMMUNICATOR" and q.direction == "in")
        return f"tw_mpi_lock_of_comm({comm.name}){types}"
    if base in REQUEST_CALLS:
        req = next(q for q in p.params if q.kind == "REQUEST")
        if not req.scalar:
            count = next(q for q in p.params if q.kind == "ARRAY_LENGTH_NNI")
            return f"tw_mpi_lock_of_requests({count.name}, {req.name})"
        return f"tw_mpi_lock_of_requests(1, {'&' if '*' not in req.decl else ''}{req.name})"
    if base in MESSAGE_CALLS:
        msg = next(q for q in p.params if q.kind == "MESSAGE")
        return f"tw_mpi_lock_of_message({msg.name}){types}"
    comms = [q for q in p.params
             if q.kind == "COMMUNICATOR" and q.direction in ("in", "inout") and q.scalar]
    return " | ".join(["TW_MPI_LOCK_LIBRARY"] +
                      [f"tw_mpi_lock_of_comm_at({q.name})" if "*" in q.decl
                       else f"tw_mpi_lock_of_comm({q.name})" for q in comms])


# Where the description (pympistandard 0.2.0) writes a parameter otherwise than the
# standard's document does: (procedure, parameter) -> the document's declaration.
ERRATA = {
    # MPI-4.1 section 11.2.1 declares char *argv[]; the description drops the '*'
    ("MPI_Info_create_env", "argv"): "char *argv[]",
}

# The MPI-1 calls MPI-3.0 removed, which the description no longer has: libmpi still
# exports them (as calls of their replacements) for old programs.
REMOVED_CALLS = [
    "int MPI_Address(const void *location, MPI_Aint *address)",
    "int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)",
    "int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)",
    "int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)",
    "int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)",
    "int MPI_Type_hindexed(int count, const int array_of_blocklengths[], "
    "const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)",
    "int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, "
    "MPI_Datatype *newtype)",
    "int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)",
    "int MPI_Type_struct(int count, const int array_of_blocklengths[], "
    "const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], "
    "MPI_Datatype *newtype)",
    "int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)",
]

# Their Fortran bindings (MPI-2.2 annex A.4, mpif.h and the mpi module only: mpi_f08
# never had them), in the description's form [NAME, type, kind, dimensions,
# direction, callback type, string length]: MPI-1's addresses, extents and
# displacements are default INTEGERs, C's MPI_Aint (FortranEntry.aint_as_integer).
def _f90(*params):
    return [None, [[n, t, k, d, io, fn, ""] for n, t, k, d, io, fn in params] +
            [["IERROR", "INTEGER", "ERROR_CODE", "", "out", "", ""]]]


REMOVED_CALLS_F90 = {
    "MPI_Address": _f90(("LOCATION", "<type>", "BUFFER", "(*)", "in", ""),
                        ("ADDRESS", "INTEGER", "DISPLACEMENT", "", "out", "")),
    "MPI_Errhandler_create": _f90(("FUNCTION", "EXTERNAL", "FUNCTION", "", "in", "HANDLER_FUNCTION"),
                                  ("ERRHANDLER", "INTEGER", "ERRHANDLER", "", "out", "")),
    "MPI_Errhandler_get": _f90(("COMM", "INTEGER", "COMMUNICATOR", "", "in", ""),
                               ("ERRHANDLER", "INTEGER", "ERRHANDLER", "", "out", "")),
    "MPI_Errhandler_set": _f90(("COMM", "INTEGER", "COMMUNICATOR", "", "in", ""),
                               ("ERRHANDLER", "INTEGER", "ERRHANDLER", "", "in", "")),
    "MPI_Type_extent": _f90(("DATATYPE", "INTEGER", "DATATYPE", "", "in", ""),
                            ("EXTENT", "INTEGER", "DISPLACEMENT", "", "out", "")),
    "MPI_Type_hindexed": _f90(("COUNT", "INTEGER", "ARRAY_LENGTH", "", "in", ""),
                              ("ARRAY_OF_BLOCKLENGTHS", "INTEGER", "BLOCKLENGTH", "(*)", "in", ""),
                              ("ARRAY_OF_DISPLACEMENTS", "INTEGER", "DISPLACEMENT", "(*)", "in", ""),
                              ("OLDTYPE", "INTEGER", "DATATYPE", "", "in", ""),
                              ("NEWTYPE", "INTEGER", "DATATYPE", "", "out", "")),
    "MPI_Type_hvector": _f90(("COUNT", "INTEGER", "ARRAY_LENGTH", "", "in", ""),
                             ("BLOCKLENGTH", "INTEGER", "BLOCKLENGTH", "", "in", ""),
                             ("STRIDE", "INTEGER", "DISPLACEMENT", "", "in", ""),
                             ("OLDTYPE", "INTEGER", "DATATYPE", "", "in", ""),
                             ("NEWTYPE", "INTEGER", "DATATYPE", "", "out", "")),
    "MPI_Type_lb": _f90(("DATATYPE", "INTEGER", "DATATYPE", "", "in", ""),
                        ("DISPLACEMENT", "INTEGER", "DISPLACEMENT", "", "out", "")),
    "MPI_Type_struct": _f90(("COUNT", "INTEGER", "ARRAY_LENGTH", "", "in", ""),
                            ("ARRAY_OF_BLOCKLENGTHS", "INTEGER", "BLOCKLENGTH", "(*)", "in", ""),
                            ("ARRAY_OF_DISPLACEMENTS", "INTEGER", "DISPLACEMENT", "(*)", "in", ""),
                            ("ARRAY_OF_TYPES", "INTEGER", "DATATYPE", "(*)", "in", ""),
                            ("NEWTYPE", "INTEGER", "DATATYPE", "", "out", "")),
    "MPI_Type_ub": _f90(("DATATYPE", "INTEGER", "DATATYPE", "", "in", ""),
                        ("DISPLACEMENT", "INTEGER", "DISPLACEMENT", "", "out", "")),
}

# Attributes a prototype carries in the headers (e.g. "__attribute__((deprecated))"),
# by function. mpi.h had none when the bindings became generated; the description's
# deprecated flags are in the model but not made warnings (programs built with
# -Werror use MPI_Info_get and the attribute calls of MPI-1).
ATTRIBUTES = {}

# ---- the argument checks the wrappers make (see Procedure.checks) ----

# The kinds of a scalar input that must not be negative (the description's *_NNI), and
# the class of a negative one: MPI_ERR_COUNT for an element or request count, where
# MPICH raises it too; a block length or a byte size is MPI_ERR_ARG, as in MPICH and in
# the implementation (datatype.c, bsend.c). Parameter names override the kind.
NON_NEGATIVE = {"POLYXFER_NUM_ELEM_NNI": "MPI_ERR_COUNT", "XFER_NUM_ELEM_NNI": "MPI_ERR_COUNT",
                "POLYDTYPE_NUM_ELEM_NNI": "MPI_ERR_COUNT", "ARRAY_LENGTH_NNI": "MPI_ERR_ARG",
                "POLYNUM_BYTES_NNI": "MPI_ERR_ARG"}
NON_NEGATIVE_BY_NAME = {"blocklength": "MPI_ERR_ARG", "count": "MPI_ERR_COUNT",
                        "incount": "MPI_ERR_COUNT"}

# The handle kinds whose null an input may never be, with the null and its class.
# MPI_COMM_NULL and MPI_WIN_NULL are not here: the call's communicator or window is
# the object whose handler hears of the other errors, and the implementation's look-up
# of it rejects every invalid handle, the null among them, with MPI_ERR_COMM or
# MPI_ERR_WIN on the world's handler; a test of the null before it would be a
# second, narrower check of the same. MPI_INFO_NULL is allowed wherever an info
# brings hints: NOT_NULL_INFO_CALLS names where it is not.
NOT_NULL = {"DATATYPE": ("MPI_DATATYPE_NULL", "MPI_ERR_TYPE"),
            "OPERATION": ("MPI_OP_NULL", "MPI_ERR_OP"),
            "GROUP": ("MPI_GROUP_NULL", "MPI_ERR_GROUP"),
            "INFO": ("MPI_INFO_NULL", "MPI_ERR_INFO")}
NOT_NULL_INFO_CALLS = re.compile(r"MPI_Info_(delete|dup|get|get_nkeys|get_nthkey|get_string|"
                                 r"get_valuelen|set)$")

# What the generated checks leave to the implementation, and why: a call (every
# parameter) or (call, parameter), or a kind (every call). Procedure.checks consults it;
# the self-test (tests/mpi/bindings_self_test.py) checks that each names what exists.
LEFT_OUT = {
    # kinds
    "RANK": "pt2pt ranks: the bound is the communicator's size, which only the look-up "
            "of the communicator gives; the implementation looks it up and checks the "
            "rank with the same class and handler (pt2pt.c check_send, check_source), so "
            "the wrapper would repeat the look-up on the hot path for nothing",
    "TAG": "tags: as RANK (pt2pt.c checks them against TW_MPI_TAG_UB, MPI_ANY_TAG where "
           "allowed, after the look-up of the communicator, whose handler hears of it)",
    "RANK_NNI": "an RMA target rank may be MPI_PROC_NULL (a no-op), so it may be negative; "
                "its bound is the window's size (win_rma.c, win_acc.c, win_sync.c check it)",
    "RMA_DISPLACEMENT_NNI": "a dynamic window's displacement is an address (MPICH checks it "
                            "only for other windows): the window decides (win_rma.c)",
    "COMM_SIZE_PI": "positive, not non-negative: MPI_Type_create_darray checks its "
                    "arguments together",
    # calls and parameters
    "MPI_Abort": "must end the job whatever its arguments",
    "MPI_Type_get_name": "a null handle has a name too, the empty one (MPI-4.1 7.8)",
    "MPI_Intercomm_create": "peer_comm and remote_leader are significant at the leaders only",
    ("MPI_Get_accumulate", "origin_datatype"): "ignored with MPI_NO_OP (MPI-4.1 12.3.4)",
    ("MPI_Get_accumulate", "origin_count"): "ignored with MPI_NO_OP (MPI-4.1 12.3.4)",
    ("MPI_Rget_accumulate", "origin_datatype"): "ignored with MPI_NO_OP (MPI-4.1 12.3.4)",
    ("MPI_Rget_accumulate", "origin_count"): "ignored with MPI_NO_OP (MPI-4.1 12.3.4)",
    ("MPI_Buffer_attach", "size"): "ignored with MPI_BUFFER_AUTOMATIC (MPI-4.1 3.6.1)",
    ("MPI_Comm_attach_buffer", "size"): "ignored with MPI_BUFFER_AUTOMATIC",
    "MPI_Comm_create_from_group": "its errors go to the errhandler argument (MPI-4.1 7.4.2)",
    "MPI_Intercomm_create_from_groups": "its errors go to the errhandler argument",
    ("MPI_Dist_graph_neighbors", "maxindegree"): "the implementation checks it against the "
        "degree first (topology.c)",
    ("MPI_Dist_graph_neighbors", "maxoutdegree"): "as maxindegree",
}
# The hot calls whose instruction counts are watched (bench/hotpath/instructions.sh,
# coll_instructions.sh: 8-byte MPI_Send and MPI_Recv, MPI_Bcast, MPI_Allreduce on 2
# ranks; MPI_Isend and MPI_Irecv, the same paths non-blocking): their wrapper tests
# the non-negative inputs only. A null handle is left to the implementation, whose
# look-up of the datatype or op rejects it with the same class through the same
# handler; each test costs 2 instructions (MPI_Allreduce 667 against 659 with its
# datatype and op tested: 1.2 %, over the 1 % allowed).
HOT = {"MPI_Send", "MPI_Recv", "MPI_Bcast", "MPI_Allreduce", "MPI_Isend", "MPI_Irecv"}

# Prefixes of calls that are left out whole: conversions take null handles; the tools
# interface (MPI_T_) returns its errors and calls no handler; the ABI queries and the
# calls that work before the library is up decide alone.
LEFT_OUT_PREFIXES = {"MPI_T_": "the tools interface returns its errors, no handler hears them",
                     "MPI_Abi_": "ABI queries, valid before the library is up",
                     "_c2f": "handle conversions: a null handle converts",
                     "_f2c": "handle conversions", "_toint": "handle conversions",
                     "_fromint": "handle conversions"}
# The handle kinds that name the object whose handler hears of an error, in the order
# one is chosen: the first input of the first kind present. A call with none of them
# reports to the world's handler (tw_mpi_error(NULL, ...)), as the implementations of
# the datatype, group, info and completion calls do; a call with a session, file or
# message is left out (its handler is the session's or the file's: the
# implementation's to choose).
OBJECT_KINDS = ("COMMUNICATOR", "WINDOW")
FOREIGN_OBJECT_KINDS = {"SESSION", "FILE", "MESSAGE"}


def left_out(proc, param=None):
    """Why proc (or its parameter param) has no generated check, or None."""
    for pre, why in LEFT_OUT_PREFIXES.items():
        if proc.name.startswith(pre) or (pre.startswith("_") and proc.name.endswith(pre)):
            return why
    why = LEFT_OUT.get(proc.name)
    if why is None and param is not None:
        why = LEFT_OUT.get((proc.name, param.name)) or LEFT_OUT.get(param.kind)
    return why


class Check:
    """One generated check: its C condition of failure, the parameter, the class,
    and what the report says."""

    def __init__(self, param, kind, errclass, null=None):
        self.param, self.kind, self.errclass, self.null = param, kind, errclass, null

    @property
    def condition(self):
        return f"({self.param} == {self.null})" if self.null else f"({self.param} < 0)"

    def report(self, call, obj, handle):
        if self.null:
            return (f'tw_mpi_arg_null({obj}, {handle}, "{call}", "{self.param}", '
                    f'{self.errclass}, "{self.null}")')
        return (f'tw_mpi_arg_negative({obj}, {handle}, "{call}", "{self.param}", '
                f'{self.errclass}, {self.param})')


class Parameter:
    """One parameter: [name, kind, direction, C declaration, flags...] in the
    description, the flags being "array" and "root_only"."""

    def __init__(self, d):
        self.name, self.kind, self.direction, decl = d[:4]
        self.root_only = "root_only" in d[4:]
        self.scalar = "array" not in d[4:]
        self.decl = style(decl)  # the C declaration, as the project writes it

    @property
    def variadic(self):
        return self.decl == "..."


class F90Parameter:
    """One parameter of the Fortran binding: [NAME, type, kind, dimensions, direction,
    callback type, string length] in the description."""

    def __init__(self, d):
        self.name, self.type, self.kind, self.dims, self.direction, self.func_type, \
            self.length = d
        self.lower = self.name.lower()


class Procedure:
    def __init__(self, d, standard=True):
        self.name = d["name"]
        self.ret = d["return"]
        self.params = [Parameter(p) for p in d["params"]]
        self.deprecated = d.get("deprecated", False)
        self.standard = standard
        # the Fortran binding (mpif.h, `use mpi`): its return type (a function's) or
        # None, and its parameters; None when the call has none (C only)
        f90 = d.get("f90")
        self.f90_return = f90[0] if f90 else None
        self.f90 = [F90Parameter(q) for q in f90[1]] if f90 else None
        # mpi_f08's INTENT and ASYNCHRONOUS of each parameter, by lower-case name
        self.f08 = {n.lower(): (intent, bool(asyn)) for n, intent, asyn in d.get("f08", [])}

    @property
    def variadic(self):
        return bool(self.params) and self.params[-1].variadic

    @property
    def fixed(self):
        return [p for p in self.params if not p.variadic]

    def param_text(self):
        return ", ".join(p.decl for p in self.params) or "void"

    def fixed_text(self):
        return ", ".join(p.decl for p in self.fixed) or "void"

    def args(self):
        return ", ".join(p.name for p in self.fixed)

    def prototype(self, prefix=""):
        attr = ATTRIBUTES.get(self.name)
        return (f"{self.ret} {prefix}{self.name}({self.param_text()})" +
                (f" {attr}" if attr else "") + ";")

    def check_object(self):
        """(object, handle): whose handler hears of a failed check — ("TW_ARG_COMM",
        the communicator), ("TW_ARG_WIN", the window) or ("TW_ARG_WORLD", "0") — or
        None when the implementation chooses (a session's, a file's)."""
        ins = [p for p in self.params if p.direction == "in" and p.scalar]
        for kind, obj in zip(OBJECT_KINDS, ("TW_ARG_COMM", "TW_ARG_WIN")):
            p = next((p for p in ins if p.kind == kind), None)
            if p:
                return obj, p.name
        if any(p.kind in FOREIGN_OBJECT_KINDS for p in self.params):
            return None
        return "TW_ARG_WORLD", "0"

    def checks(self):
        """The checks the wrapper makes, in parameter order: every scalar input of a
        non-negative kind, and every input handle that may not be null, that is
        significant on every process — not root-only, not in a call with a root
        (MPI_PROC_NULL and MPI_ROOT make the rest insignificant on an
        intercommunicator), not the send side of a collective with a send and a
        receive buffer (MPI_IN_PLACE makes it insignificant) — less what LEFT_OUT
        names."""
        if not self.standard or self.check_object() is None or left_out(self) is not None:
            return []
        names = {p.name for p in self.params}
        if "root" in names:
            return []
        in_place = {"sendbuf", "recvbuf"} <= names and "dest" not in names  # a collective
        out = []
        for p in self.params:
            if p.direction != "in" or not p.scalar or p.root_only or left_out(self, p):
                continue
            if in_place and p.name.startswith("send"):
                continue
            if p.kind in NON_NEGATIVE:
                out.append(Check(p.name, p.kind,
                                 NON_NEGATIVE_BY_NAME.get(p.name, NON_NEGATIVE[p.kind])))
            elif p.kind in NOT_NULL and self.name not in HOT and \
                    (p.kind != "INFO" or NOT_NULL_INFO_CALLS.match(self.name)):
                null, errclass = NOT_NULL[p.kind]
                out.append(Check(p.name, p.kind, errclass, null))
        return out


def style(decl):
    """The standard's 'MPI_Comm* comm' as the project's 'MPI_Comm *comm'."""
    return re.sub(r"(\w)(\*+) ", r"\1 \2", decl)


def parse_prototype(text):
    m = re.fullmatch(r"\s*(\w+)\s+(\w+)\s*\((.*)\)\s*;?\s*", text, re.S)
    params = [p.strip() for p in m.group(3).split(",")] if m.group(3).strip() != "void" else []
    return {"name": m.group(2), "return": m.group(1),
            "params": [["..." if p == "..." else re.findall(r"\w+", re.sub(r"\[[^\]]*\]", "", p))[-1],
                        "", "in", p] + (["array"] if "[" in p else []) for p in params]}


def read_not_claimed(path=NOT_CLAIMED):
    """{name: reason}; a line is 'MPI_Name  reason', '#' starts a comment."""
    out = {}
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, reason = line.partition(" ")
        if not reason.strip():
            sys.exit(f"{path}:{n}: {name} has no reason")
        if name in out:
            sys.exit(f"{path}:{n}: {name} listed twice")
        out[name] = reason.strip()
    return out


def load_model():
    """The claimed procedures, by name, in the description's order, then the removed
    MPI-1 calls."""
    desc = json.load(open(DESCRIPTION))
    every = [Procedure(d) for d in desc["procedures"]]
    for p in every:
        for q in p.params:
            q.decl = ERRATA.get((p.name, q.name), q.decl)
    names = {p.name for p in every}
    not_claimed = read_not_claimed()
    unknown = sorted(set(not_claimed) - names)
    if unknown:
        sys.exit(f"not_claimed.txt names what the description does not have: {', '.join(unknown)}")
    claimed = [p for p in every if p.name not in not_claimed]
    for t in REMOVED_CALLS:
        d = parse_prototype(t)
        claimed.append(Procedure(dict(d, f90=REMOVED_CALLS_F90.get(d["name"])), standard=False))
    return sorted(claimed, key=lambda p: p.name)


# ---- the description, from pympistandard ----

def extract():
    import pympistandard as std
    from importlib.metadata import version
    if version("pympistandard") != PYMPISTANDARD_VERSION:
        sys.exit(f"pympistandard {version('pympistandard')} is installed; the extract is of "
                 f"{PYMPISTANDARD_VERSION} (pip install pympistandard=={PYMPISTANDARD_VERSION})")
    std.use_api_version(1)

    def form(expr, parseset):
        params = []
        for p, raw in zip(expr.parameters, [q for q in parseset["parameters"]
                                            if "c_parameter" not in q["suppress"]]):
            decl = str(p).replace("\\ldots", "...")
            flags = (["array"] if raw["length"] is not None else []) + \
                (["root_only"] if raw["root_only"] else [])
            params.append(["..." if decl == "..." else p.name, raw["kind"],
                           raw["param_direction"], decl] + flags)
        d = {"name": expr.name, "return": expr.return_type, "params": params}
        if parseset["attributes"]["deprecated"]:
            d["deprecated"] = True
        return d

    def form_f90(proc):
        """The Fortran (mpif.h, `use mpi`) binding: [return type or null, [[NAME, type,
        kind, dimensions, direction, callback type, string length]...]]."""
        expr = proc.express.f90
        return [expr.return_type,
                [[q.name, q.type, q.kind.name, q.dimensions or "", q.direction.name.lower(),
                  q.func_type or "", q._parseset["length"] if q.type.startswith("CHARACTER")
                  else ""] for q in expr.parameters]]

    def form_f08(expr):
        """mpi_f08's attributes of each parameter: [[name, INTENT (IN, OUT, INOUT or
        ""), ASYNCHRONOUS (0 or 1)]...]."""
        return [[q.name, re.sub(r"INTENT\((\w+)\)", r"\1", q.intent or ""), int(bool(q.asynchronous))]
                for q in expr.parameters]

    procs = []
    for proc in std.PROCEDURES.values():
        a = proc._parseset["attributes"]
        if not a["c_expressible"] or a["callback"] or a["predefined_function"]:
            continue
        procs.append(form(proc.express.iso_c, proc._parseset))
        if a["f90_expressible"]:
            procs[-1]["f90"] = form_f90(proc)
        if a["f08_expressible"]:
            procs[-1]["f08"] = form_f08(proc.express.f08)
        if proc.has_embiggenment():
            procs.append(form(proc.express.embiggen.iso_c, proc._parseset))
            if a["f08_expressible"]:
                procs[-1]["f08"] = form_f08(proc.express.embiggen.f08)
    procs.sort(key=lambda d: d["name"])
    # mpi_f08's abstract interfaces of the callbacks: [name, [parameters], [lines]]
    callbacks = []
    for cb in std.CALLBACKS.values():
        forms = [cb.express.f08] + ([cb.express.embiggen.f08] if cb.has_embiggenment() else [])
        for expr in forms:
            text = str(expr) if expr is not None else ""
            rows = [r.strip() for r in text.split("\n")[1:] if r.strip()]
            if not rows:
                continue  # no mpi_f08 form (MPI-1's, MPI_T's)
            head = re.match(r"(\w+)\((.*)\)$", rows[0])
            callbacks.append([head.group(1), [a.strip() for a in head.group(2).split(",") if a.strip()],
                              rows[1:]])
    callbacks.sort()
    # one procedure a line, so that a change of the standard reads as a diff
    lines = ",\n".join(json.dumps(d, sort_keys=True) for d in procs)
    return ('{"source": "pympistandard %s (apis.json), use_api_version(1): the C bindings, '
            'large-count forms included, the Fortran binding of each (f90) and its mpi_f08 '
            'attributes (f08), and mpi_f08\'s abstract interfaces of the callbacks; written by '
            'gen_bindings.py extract",\n'
            ' "procedures": [\n%s\n],\n'
            ' "f08_callbacks": [\n%s\n]}\n'
            % (PYMPISTANDARD_VERSION, lines, ",\n".join(json.dumps(c) for c in callbacks)))


# ---- emitters ----

GENERATED = "Generated by src/mpi/bindings/gen_bindings.py: do not edit."


def impl(name):
    return "tw_mpi_impl_" + name[len("MPI_"):]


def emit_calls_header(procs):
    out = ["/* The MPI calls libmpi implements: the MPI Forum's description of the C",
           " * bindings (src/mpi/bindings/standard.json) less what not_claimed.txt names.",
           f" * {GENERATED} */",
           "#ifndef TOLLWAY_MPI_CALLS_H", "#define TOLLWAY_MPI_CALLS_H", "",
           "/* clang-format off */"]
    out += [p.prototype() for p in procs]
    out += ["/* clang-format on */", "", "#endif", ""]
    return "\n".join(out)


def emit_pmpi_header(procs):
    out = ["/* The profiling interface: every MPI_ call's PMPI_ twin, which a tool that",
           " * defines the MPI_ call uses to reach the library (included by mpi.h).",
           f" * {GENERATED} */",
           "#ifndef TOLLWAY_PMPI_H", "#define TOLLWAY_PMPI_H", "",
           "/* clang-format off */"]
    out += [p.prototype("P") for p in procs]
    out += ["/* clang-format on */", "", "#endif", ""]
    return "\n".join(out)


def emit_rename(procs):
    out = [f"/* {GENERATED}", " * The library's own names for its calls (see the generator). */"]
    out += [f"#define {p.name} {impl(p.name)}" for p in procs]
    return "\n".join(out) + "\n"


def emit_wrappers(procs, face_bodies=False):
    """api.c: PMPI_X and the weak MPI_X; with face_bodies, api_face.c: the same bodies
    as tw_mpi_api_X, hidden, without the variadic tail and the aliases, for the faces'
    entry points to call (gen_face.py)."""
    if face_bodies:
        head = [f"/* {GENERATED}",
                " * The checked, locked bodies of the PMPI_ calls under hidden names, for the",
                " * faces (gen_face.py): api.c's, without the exported names. */",
                "#include <mpi.h>", "", '#include "mpi/bindings/checks.h"', '#include "mpi/env/thread.h"',
                '#include "mpi/pt2pt/channel.h"', "", "#pragma GCC visibility push(hidden)", ""]
    else:
        head = [f"/* {GENERATED}",
                " * PMPI_ wrappers around the library's calls, MPI_ weak aliases of them. */",
                "#include <mpi.h>", "", '#include "mpi/bindings/checks.h"', '#include "mpi/env/thread.h"',
                '#include "mpi/pt2pt/channel.h"', ""]
    out = head
    for p in procs:
        ret, name, params, fixed, args = p.ret, p.name, p.param_text(), p.fixed_text(), p.args()
        if face_bodies:
            params = fixed
        entry = f"tw_mpi_api_{name}" if face_bodies else f"P{name}"
        call = f"{impl(name)}({args})"
        out.append(f"{ret} {impl(name)}({fixed});")
        out.append(f"{ret} {entry}({params});")
        checks = p.checks()
        if checks:
            # A failed check is rare: its report, under the lock, is out of line. It
            # reports only when the implementation has no earlier error to report
            # itself (no library, an invalid communicator or window).
            obj, handle = p.check_object()
            out += [f"static {ret} __attribute__((noinline, cold)) checked_{name}({fixed}) {{",
                    "    int locked = tw_mpi_threads_on;",
                    f"    unsigned took = locked ? tw_mpi_lock_set({lock_set(p)}) : 0;",
                    f"    {ret} rc = MPI_SUCCESS;",
                    f"    if (tw_mpi_arg_reportable({obj}, {handle})) {{"]
            for i, c in enumerate(checks):
                out.append(f"        {'else ' if i else ''}if {c.condition} rc = {c.report(name, obj, handle)};")
            out += ["    }",
                    f"    if (rc == MPI_SUCCESS) rc = {call};",
                    "    if (locked) tw_mpi_unlock_set(took);", "    return rc;", "}"]
        if name in UNLOCKED:
            out += [f"{ret} {entry}({params}) {{", f"    return {call};", "}"]
        else:
            # Both ways out of PMPI_ are tail calls, so the single-threaded one costs a
            # load and a branch (and a test and a branch a count) and saves no register.
            out += [f"static {ret} __attribute__((noinline, cold)) locked_{name}({fixed}) {{",
                    f"    unsigned took = tw_mpi_lock_set({lock_set(p)});",
                    f"    {ret} rc = {call};", "    tw_mpi_unlock_set(took);",
                    "    return rc;", "}", f"{ret} {entry}({params}) {{"]
            if checks:
                test = " | ".join(c.condition for c in checks)
                out.append(f"    if (__builtin_expect({test}, 0)) return checked_{name}({args});")
            out += [f"    if (__builtin_expect(tw_mpi_threads_on, 0)) return locked_{name}({args});",
                    f"    return {call};", "}"]
        if not face_bodies:
            out.append(f'{ret} {name}({params}) __attribute__((weak, alias("P{name}")));')
        out.append("")
    if face_bodies:
        out.append("#pragma GCC visibility pop")
    return "\n".join(out)


def emit_names(procs):
    return "".join(p.name + "\n" for p in procs)


# ---- the Fortran bindings: libmpifort, mpif.h, the mpi module ----
#
# libmpifort (src/mpi/bindings/fortran/) holds a Fortran-callable entry point for each
# claimed call that has a Fortran binding, under gfortran's names (mpi_send_, and the
# profiling twin pmpi_send_ whose weak alias it is): generated C that converts the
# Fortran arguments (INTEGER handles, LOGICAL, blank-padded CHARACTER with its hidden
# length, statuses, the special addresses of mpif.h's common blocks) and calls the C
# library's PMPI_ call, so a C tool that intercepts MPI_Send sees neither the Fortran
# program's calls nor the library's own. mpif.h and the module get their constants
# from a C program compiled against mpi.h (emit_fortran_constants_program), so each
# has the C constant's value by construction; the test fortran_constants checks it.

# Calls whose Fortran entry point is written by hand (src/mpi/bindings/fortran/
# by_hand.c), and why the generator cannot make it.
FORTRAN_BY_HAND = {
    "MPI_Init": "the C call takes argc and argv, the Fortran one neither",
    "MPI_Init_thread": "as MPI_Init",
    "MPI_Info_create_env": "the C call takes argc and argv, the Fortran one neither",
    "MPI_Pcontrol": "variadic in C; Fortran passes the level alone",
    "MPI_Comm_get_attr": "a predefined attribute (MPI_TAG_UB ...) is a pointer to the value in C, "
                         "the value itself in Fortran; so is a value Fortran set (a cell)",
    "MPI_Win_get_attr": "as MPI_Comm_get_attr (MPI_WIN_BASE is the address, the others values)",
    "MPI_Attr_get": "as MPI_Comm_get_attr, into a default INTEGER",
    "MPI_Attr_put": "the value is a default INTEGER, kept in a cell whose address C gets "
                    "(MPI-4.1 19.3.7; attr_value.c)",
    "MPI_Comm_set_attr": "the value is kept in a cell whose address C gets (MPI-4.1 19.3.7)",
    "MPI_Type_set_attr": "as MPI_Comm_set_attr",
    "MPI_Win_set_attr": "as MPI_Comm_set_attr",
    "MPI_Type_get_attr": "a value Fortran set is in a cell: its value is given, not its address",
    "MPI_Comm_create_keyval": "copy and delete callbacks in Fortran: called through a C trampoline "
                              "that passes the attribute values by reference",
    "MPI_Type_create_keyval": "as MPI_Comm_create_keyval",
    "MPI_Win_create_keyval": "as MPI_Comm_create_keyval",
    "MPI_Keyval_create": "as MPI_Comm_create_keyval, the MPI-1 form",
    "MPI_Grequest_start": "query, free and cancel functions in Fortran: called through C "
                          "trampolines that pass the extra state and a Fortran status by "
                          "reference, the cancel's flag as a LOGICAL",
    "MPI_Register_datarep": "conversion and extent functions in Fortran take their arguments "
                            "by reference: called through C trampolines, with MPI_CONVERSION_FN_NULL "
                            "recognised by its address",
    "MPI_Info_get": "the value is written only when the key is there, and never past the "
                    "CHARACTER's length whatever valuelen says",
    "MPI_Info_get_string": "Fortran has no terminator: buflen out is the value's length, at most "
                           "buflen characters are written, none for a key not there",
    "MPI_Status_f2f08": "a TYPE(MPI_Status) argument: the generator converts INTEGER statuses only",
    "MPI_Status_f082f": "as MPI_Status_f2f08",
}

# Calls with a Fortran binding that libmpifort does not have yet, and why.
FORTRAN_NOT_YET = {}

# A Fortran parameter's type -> the C type its storage is (gfortran's, on LP64).
F90_C_TYPES = {"INTEGER": "int", "INTEGER(KIND=MPI_ADDRESS_KIND)": "MPI_Aint",
               "INTEGER(KIND=MPI_OFFSET_KIND)": "MPI_Offset",
               "INTEGER(KIND=MPI_COUNT_KIND)": "MPI_Count", "LOGICAL": "int"}
# the handle types: an INTEGER in Fortran, converted by fortran.h's TW_F2C and TW_C2F
# (a cast where the C handle is an int: natively, and in MPICH's face)
HANDLE_CONVERSIONS = ("MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Request", "MPI_Op", "MPI_Info",
                      "MPI_Win", "MPI_Errhandler", "MPI_Message", "MPI_File", "MPI_Session")
# callbacks whose C type the Fortran subroutine's arguments match one for one (all by
# reference, handles as MPI_Fint): the Fortran procedure is called as the C one
CALLBACK_CASTS = {"USER_FUNCTION": "MPI_User_function",
                  "USER_FUNCTION_C": "MPI_User_function_c",
                  "COMM_ERRHANDLER_FUNCTION": "MPI_Comm_errhandler_function",
                  "WIN_ERRHANDLER_FUNCTION": "MPI_Win_errhandler_function",
                  "FILE_ERRHANDLER_FUNCTION": "MPI_File_errhandler_function",
                  "SESSION_ERRHANDLER_FUNCTION": "MPI_Session_errhandler_function",
                  "HANDLER_FUNCTION": "MPI_Handler_function"}
# the callbacks given a handle, which fortran/callbacks.c converts where a C handle is
# not an INTEGER (MPI_Handler_function's calls were removed: no face has them)
HANDLE_CALLBACKS = {"MPI_User_function", "MPI_User_function_c", "MPI_Comm_errhandler_function",
                    "MPI_Win_errhandler_function", "MPI_File_errhandler_function",
                    "MPI_Session_errhandler_function"}
# arrays of CHARACTER with a count of entries (the others end at a blank entry)
STRING_ARRAY_COUNTS = {("MPI_Comm_spawn_multiple", "array_of_commands"): "count"}
# array kinds whose Fortran special address stands for a C null
SPECIAL_ARRAYS = {"ERROR_CODE": "tw_f_errcodes", "WEIGHT": "tw_f_weights"}


def fortran_array_length(call, param):
    """The length of a handle array of a Fortran entry point: the faces' table
    (gen_face.ARRAY_LENGTHS), over the entry's arguments (pointers to INTEGERs)."""
    from gen_face import ARRAY_LENGTHS
    length = ARRAY_LENGTHS.get((call, param))
    if length is None:
        raise ValueError(f"{param}: a handle array of no known length (gen_face.ARRAY_LENGTHS)")
    peers = re.fullmatch(r"tw_face_comm_peers\(comm_in\(comm\), (\d)\)", length)
    if peers:
        return f"tw_f_comm_peers(*comm, {peers.group(1)})"
    if not re.fullmatch(r"\w+", length):
        raise ValueError(f"{param}: the length {length} is no parameter")
    return f"*{length}"


def c_shape(decl):
    """(base type, pointer depth, array, const) of a C declaration."""
    const = decl.startswith("const ")
    d = decl.replace("const ", "")
    return d.split()[0], d.count("*") + d.count("["), "[" in d, const


def fortran_procs(procs):
    """The claimed calls with a Fortran binding."""
    return [p for p in procs if p.f90 is not None and not p.name.endswith("_c")]


class FortranEntry:
    """The C text of one call's Fortran entry point, or why it cannot be made."""

    def __init__(self, proc):
        self.proc, self.why = proc, None
        self.formals, self.hidden, self.pre, self.args, self.post = [], [], [], [], []
        try:
            self.build()
        except ValueError as e:
            self.why = str(e)

    def build(self):
        p = self.proc
        c_by_name = {q.name: q for q in p.fixed}
        f_names = {q.lower for q in p.f90}
        missing = [q.name for q in p.fixed if q.name not in f_names]
        if missing or p.variadic:
            raise ValueError(f"C parameters without a Fortran one: {', '.join(missing) or '...'}")
        for f in p.f90:
            c = c_by_name.get(f.lower)
            if c is None:
                if f.lower != "ierror":
                    raise ValueError(f"Fortran parameter {f.name} has no C one")
                self.formals.append("MPI_Fint *ierror")
                continue
            self.param(f, c)
        self.args = [self.args_by_name[q.name] for q in p.fixed]

    args_by_name = None

    def arg(self, c, text):
        if self.args_by_name is None:
            self.args_by_name = {}
        self.args_by_name[c.name] = text

    def param(self, f, c):
        n = c.name
        base, depth, array, const = c_shape(c.decl)
        cq = "const " if const else ""
        if f.type == "<type>":
            self.formals.append(f"{cq}void *{n}")
            self.arg(c, f"tw_f_buf({n})")
        elif f.type == "EXTERNAL":
            cast = CALLBACK_CASTS.get(f.func_type)
            if cast is None:
                raise ValueError(f"callback {f.func_type} needs a trampoline")
            self.formals.append(f"void (*{n})(void)")
            # the procedure itself, or a trampoline that passes its handle's INTEGER
            # where a C handle is wider (fortran/callbacks.c)
            self.arg(c, f"tw_f_{cast}({n})" if cast in HANDLE_CALLBACKS else f"({cast} *){n}")
        elif f.type.startswith("CHARACTER") and f.dims:
            self.strings(f, c)
        elif f.type.startswith("CHARACTER"):
            if depth != 1 or base != "char":
                raise ValueError(f"{f.name}: CHARACTER as {c.decl}")
            self.formals.append(f"{cq}char *{n}")
            self.hidden.append(f"size_t {n}_len")
            if const or f.direction == "in":
                # an info key or value loses its leading blanks too (MPI_Info_set)
                conv = "tw_f_string_trimmed_in" if self.proc.name.startswith("MPI_Info_") \
                    else "tw_f_string_in"
                self.pre.append(f"char *{n}_c = {conv}({n}, {n}_len);")
                self.arg(c, f"{n}_c")
                self.post.append(f"free({n}_c);")
            else:
                size = f"{n}_len" if not (f.length or "").startswith("MPI_") else \
                    f"({n}_len > {f.length} ? {n}_len : {f.length})"
                self.pre.append(f"char *{n}_c = tw_f_string_buf({size});")
                self.arg(c, f"{n}_c")
                self.post.append(f"if (rc == MPI_SUCCESS) tw_f_string_out({n}_c, {n}, {n}_len);")
                self.post.append(f"free({n}_c);")
        elif f.kind == "STATUS" or base == "MPI_Status":
            if f.type != "INTEGER" or base != "MPI_Status":
                raise ValueError(f"{f.name}: a status of type {f.type}")
            self.formals.append(f"{cq}MPI_Fint *{n}")
            # a Fortran status is a C status (the same six ints, asserted in the
            # output): passed as it is, not copied
            if array:
                self.arg(c, f"tw_f_statuses({n})")
            elif const:
                self.arg(c, f"(const MPI_Status *){n}")
            else:
                # its error field is left as the program had it, as in C: only the
                # calls of several statuses set it (MPI-4.1 3.2.5)
                self.arg(c, f"tw_f_status_ignored({n}) ? MPI_STATUS_IGNORE : (MPI_Status *){n}")
        elif base in HANDLE_CONVERSIONS:
            if f.type != "INTEGER":
                raise ValueError(f"{f.name}: a handle of type {f.type}")
            self.formals.append(f"{cq}MPI_Fint *{n}")
            kind = "Type" if base == "MPI_Datatype" else base[4:]
            if array:
                # the array itself where a handle is an INTEGER in C too (natively,
                # MPICH's), else a converted copy (fortran.h's TW_F_HANDLES_IN)
                length = fortran_array_length(self.proc.name, n)
                self.pre.append(f"{base} {n}_small[TW_F_SMALL];")
                self.pre.append(f"{base} *{n}_c = TW_F_HANDLES_IN({base}, {kind}, {n}, {length}, {n}_small);")
                self.arg(c, f"{n}_c")
                write = 0 if const or f.direction == "in" else 1
                self.post.append(f"TW_F_HANDLES_DONE({base}, {kind}, {n}_c, {n}, {length}, {n}_small, {write});")
            # a handle has the same value in both bindings (convert.c, and the faces
            # whose Fortran handles are their C ones): a cast, where MPI_Comm_f2c would
            # be a call into libmpi on every call (fortran.h's TW_F2C)
            elif depth == 0:
                self.arg(c, f"TW_F2C({base}, {kind}, *{n})")
            else:
                f2c = f"TW_F2C({base}, {kind}, *{n})"
                c2f = f"TW_C2F({base}, {kind}, {n}_c)"
                # in by reference (MPI_Cancel's request): read, not written back
                init = f" = {f2c}" if f.direction in ("in", "inout") else ""
                self.pre.append(f"{base} {n}_c{init};")
                self.arg(c, f"&{n}_c")
                if f.direction != "in":
                    self.post.append(f"*{n} = {c2f};")
        elif f.type == "LOGICAL":
            if base != "int":
                raise ValueError(f"{f.name}: LOGICAL as {base}")
            self.formals.append(f"{cq}MPI_Fint *{n}")
            if array:  # gfortran's LOGICAL is an int, 1 or 0: an array passes as it is
                self.arg(c, f"({cq}int *){n}")
            elif depth == 0:
                self.arg(c, f"*{n} != 0")
            else:
                self.pre.append(f"int {n}_c = 0;")
                self.arg(c, f"&{n}_c")
                self.post.append(f"*{n} = {n}_c != 0;")
        elif f.type in F90_C_TYPES:
            ftype = F90_C_TYPES[f.type]
            if base == "void":
                if depth != 1 or ftype != "MPI_Aint":
                    raise ValueError(f"{f.name}: an address as {f.type}")
                self.formals.append(f"MPI_Aint *{n}")
                # in: the value is the address (an attribute's, extra state); out: the
                # C call stores an address into the MPI_Aint (baseptr)
                self.arg(c, f"(void *)*{n}" if f.direction == "in" else f"(void *){n}")
            elif base == "MPI_Aint" and ftype == "int" and not self.proc.standard:
                self.aint_as_integer(f, c, depth, array)
            elif base != ftype and not (base == "int" and ftype == "int"):
                raise ValueError(f"{f.name}: {f.type} is {ftype}, the C parameter {base}")
            else:
                self.formals.append(f"{cq}{ftype} *{n}")
                if f.kind == "INDEX" and re.fullmatch(r"MPI_(Wait|Test)(any|some)", self.proc.name):
                    # Fortran counts requests from 1 (MPI-4.1 3.7.5)
                    self.arg(c, n)
                    if array:
                        self.post.append(f"if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) "
                                         f"tw_f_indices_from_1({n}, *outcount);")
                    else:
                        self.post.append(f"if (*{n} >= 0) *{n} += 1;")
                elif array and f.kind in SPECIAL_ARRAYS:
                    self.arg(c, f"{SPECIAL_ARRAYS[f.kind]}({n})")
                elif depth == 0:
                    self.arg(c, f"*{n}")
                elif re.search(r"\[\]\[\d+\]", c.decl):  # int ranges[][3]
                    inner = re.search(r"\[\d+\]", c.decl).group(0)
                    self.arg(c, f"({cq}{base} (*){inner}){n}")
                else:
                    self.arg(c, n)
        else:
            raise ValueError(f"{f.name}: Fortran type {f.type}")

    def aint_as_integer(self, f, c, depth, array):
        """A removed MPI-1 call's address, extent or displacement: a default INTEGER
        in Fortran, an MPI_Aint in C; one that does not fit the INTEGER is an error."""
        n = c.name
        if array and f.direction == "in":
            self.formals.append(f"const MPI_Fint *{n}")
            self.pre.append(f"MPI_Aint *{n}_c = tw_f_aints_in({n}, *count);")
            self.arg(c, f"{n}_c")
            self.post.append(f"free({n}_c);")
        elif depth == 0 and f.direction == "in":
            self.formals.append(f"const MPI_Fint *{n}")
            self.arg(c, f"(MPI_Aint)*{n}")
        elif depth == 1 and not array and f.direction == "out":
            self.formals.append(f"MPI_Fint *{n}")
            self.pre.append(f"MPI_Aint {n}_c = 0;")
            self.arg(c, f"&{n}_c")
            self.post.append(f'if (rc == MPI_SUCCESS) rc = tw_f_aint_out({n}_c, {n}, "{self.proc.name}", '
                             f'"{n}");')
        else:
            raise ValueError(f"{f.name}: an INTEGER {f.direction} as {c.decl}")

    def strings(self, f, c):
        """An array of blank-padded CHARACTER in (MPI-4.1 11.8.2): argv ends at its
        first blank entry (MPI_ARGV_NULL: none), array_of_commands has count entries,
        array_of_argv(count, *) is a command's argv a row, each ending at a blank
        entry (MPI_ARGVS_NULL: none); C gets arrays of C strings, freed after."""
        n = c.name
        base, depth, _, _ = c_shape(c.decl)
        count = STRING_ARRAY_COUNTS.get((self.proc.name, n))
        if f.direction != "in" or base != "char":
            raise ValueError(f"{f.name}: an array of CHARACTER {f.direction} as {c.decl}")
        self.formals.append(f"const char *{n}")
        self.hidden.append(f"size_t {n}_len")
        # read at the root alone (a blank entry need not end another rank's argv)
        names = {q.name for q in self.proc.fixed}
        at_root = "tw_f_is_root(root, comm) ? " if c.root_only and {"root", "comm"} <= names else ""
        if f.kind == "STRING_2DARRAY" and depth == 3:
            rows = f"*{f.length.lower()}"
            self.pre.append(f"char ***{n}_c = {at_root}tw_f_argvs_in({n}, {n}_len, {rows})"
                            f"{' : NULL' if at_root else ''};")
            self.post.append(f"tw_f_argvs_free({n}_c, {rows});")
        elif f.kind == "STRING_ARRAY" and depth == 2:
            entries = f"*{count}" if count else "-1"
            self.pre.append(f"char **{n}_c = {at_root}tw_f_strings_in({n}, {n}_len, 1, {entries})"
                            f"{' : NULL' if at_root else ''};")
            self.post.append(f"tw_f_strings_free({n}_c);")
        else:
            raise ValueError(f"{f.name}: an array of CHARACTER of kind {f.kind} as {c.decl}")
        self.arg(c, f"{n}_c")

    def text(self):
        p = self.proc
        low = p.name.lower()
        formals = ", ".join(self.formals + self.hidden) or "void"
        call = f"P{p.name}({', '.join(self.args)})"
        out = []
        if p.f90_return:
            ret = {"DOUBLE PRECISION": "double",
                   "INTEGER(KIND=MPI_ADDRESS_KIND)": "MPI_Aint"}[p.f90_return]
            out.append(f"{ret} p{low}_({formals});")
            out.append(f"{ret} p{low}_({formals}) {{")
            out.append(f"    return {call};")
        else:
            ret = "void"
            out.append(f"void p{low}_({formals});")
            out.append(f"void p{low}_({formals}) {{")
            out += ["    " + x for x in self.pre]
            out.append(f"    int rc = {call};")
            out += ["    " + x for x in self.post]
            out.append("    *ierror = rc;")
        out.append("}")
        out.append(f'{ret} {low}_({formals}) __attribute__((weak, alias("p{low}_")));')
        short = low[len("mpi_"):]
        out.append(f"TW_F_ALSO({ret}, {short}, ({formals}))")
        if PERSISTENT_COLLECTIVE.match(short):
            out.append(f"TW_F_ALSO_PERSISTENT_COLLECTIVE({ret}, {short}, ({formals}))")
        return "\n".join(out) + "\n"


# MPI-4.0's persistent collectives (their entry points' names without mpi_)
PERSISTENT_COLLECTIVE = re.compile(
    r"(allgatherv?|allreduce|alltoall[vw]?|barrier|bcast|exscan|gatherv?|neighbor_\w+|"
    r"reduce|reduce_scatter(_block)?|scan|scatterv?)_init$")


def fortran_entries(procs):
    """(generated entries, the calls written by hand); stops on a call that can be
    neither generated nor is in FORTRAN_BY_HAND or FORTRAN_NOT_YET."""
    made, errors = [], []
    fp = fortran_procs(procs)
    names = {p.name for p in fp}
    for table in (FORTRAN_BY_HAND, FORTRAN_NOT_YET):
        for name in table:
            if name not in names:
                errors.append(f"{name} is in a Fortran table but has no claimed Fortran binding")
    for p in fp:
        if p.name in FORTRAN_BY_HAND or p.name in FORTRAN_NOT_YET:
            continue
        e = FortranEntry(p)
        if e.why:
            errors.append(f"{p.name}: no Fortran entry point can be generated ({e.why}): write "
                          "it by hand (FORTRAN_BY_HAND) or say why not yet (FORTRAN_NOT_YET)")
        else:
            made.append(e)
    if errors:
        sys.exit("\n".join(errors))
    return made


def emit_fortran_c(procs):
    out = [f"/* {GENERATED}",
           " * libmpifort: the Fortran-callable entry points (gfortran's names), each a",
           " * conversion of its arguments around the C library's PMPI_ call. */",
           "#include <stdlib.h>", "", '#include "mpi/bindings/fortran/fortran.h"', "",
           "/* clang-format off */"]
    entries, large = fortran_entries(procs), [e for _, e in large_count(procs) if e]
    out.append('_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), '
               '"a Fortran status is a C status");')
    out.append("")
    # the calls removed in MPI-3.0, which a face does not export: its library has none
    out += [e.text() if e.proc.standard else f"#ifndef TW_F_NO_REMOVED\n{e.text()}#endif\n"
            for e in entries]
    out.append("/* the large-count forms, for mpi_f08's generics (mpif.h and mpi have none) */")
    out += [e.text() for e in large]
    out.append("/* clang-format on */")
    return "\n".join(out) + "\n"


# ---- the constants of mpif.h and the mpi module ----

# what Fortran has that C names otherwise, or not at all: name -> C expression
FORTRAN_ONLY_CONSTANTS = {
    "MPI_STATUS_SIZE": "MPI_F_STATUS_SIZE",
    "MPI_SOURCE": "1 + offsetof(MPI_Status, MPI_SOURCE) / sizeof(MPI_Fint)",
    "MPI_TAG": "1 + offsetof(MPI_Status, MPI_TAG) / sizeof(MPI_Fint)",
    "MPI_ERROR": "1 + offsetof(MPI_Status, MPI_ERROR) / sizeof(MPI_Fint)",
    "MPI_ADDRESS_KIND": "sizeof(MPI_Aint)", "MPI_OFFSET_KIND": "sizeof(MPI_Offset)",
    "MPI_COUNT_KIND": "sizeof(MPI_Count)", "MPI_INTEGER_KIND": "sizeof(MPI_Fint)",
}
# the constants whose Fortran kind the standard gives, whatever their value
FORTRAN_CONSTANT_KINDS = {"MPI_DISPLACEMENT_CURRENT": "INTEGER(KIND=MPI_OFFSET_KIND)"}
# mpi.h's macros that are no Fortran constant: types, C-only objects, special
# addresses (mpif.h's common blocks stand for those)
NOT_FORTRAN_CONSTANTS = re.compile(
    r"MPI_(BOTTOM|IN_PLACE|STATUS_IGNORE|STATUSES_IGNORE|ARGV_NULL|ARGVS_NULL|ERRCODES_IGNORE|"
    r"F_STATUS_IGNORE|F_STATUSES_IGNORE|F08_STATUS_IGNORE|F08_STATUSES_IGNORE|UNWEIGHTED|"
    r"WEIGHTS_EMPTY|F_STATUS_SIZE|F_SOURCE|F_TAG|F_ERROR|T_\w+|\w*_FN|CONVERSION_FN_NULL\w*|"
    r"\w*_function|Aint|Count|Offset|Fint)$")
# (Fortran name, common block, declaration): the special addresses, recognised by
# libmpifort (fortran.c) by the address of their common block
SPECIAL_ADDRESSES = [
    ("MPI_BOTTOM", "MPI_FORTRAN_BOTTOM", "INTEGER MPI_BOTTOM"),
    ("MPI_IN_PLACE", "MPI_FORTRAN_IN_PLACE", "INTEGER MPI_IN_PLACE"),
    ("MPI_STATUS_IGNORE", "MPI_FORTRAN_STATUS_IGNORE", "INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)"),
    ("MPI_STATUSES_IGNORE", "MPI_FORTRAN_STATUSES_IGNORE",
     "INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)"),
    ("MPI_ERRCODES_IGNORE", "MPI_FORTRAN_ERRCODES_IGNORE", "INTEGER MPI_ERRCODES_IGNORE(1)"),
    ("MPI_ARGV_NULL", "MPI_FORTRAN_ARGV_NULL", "CHARACTER*1 MPI_ARGV_NULL(1)"),
    ("MPI_ARGVS_NULL", "MPI_FORTRAN_ARGVS_NULL", "CHARACTER*1 MPI_ARGVS_NULL(1,1)"),
    ("MPI_UNWEIGHTED", "MPI_FORTRAN_UNWEIGHTED", "INTEGER MPI_UNWEIGHTED(1)"),
    ("MPI_WEIGHTS_EMPTY", "MPI_FORTRAN_WEIGHTS_EMPTY", "INTEGER MPI_WEIGHTS_EMPTY(1)"),
]


def c_constants(mpi_h):
    """The names of mpi.h's object-like MPI_ macros that are Fortran constants."""
    names = []
    for path in [mpi_h] + [os.path.join(os.path.dirname(mpi_h), "tollway", h) for h in
                           re.findall(r'#\s*include\s*<tollway/([\w.]+)>', open(mpi_h).read())]:
        for m in re.finditer(r"^\s*#\s*define\s+(MPI_[A-Za-z0-9_]+)(\(?)", open(path).read(), re.M):
            if not m.group(2) and not NOT_FORTRAN_CONSTANTS.match(m.group(1)) and \
                    m.group(1) not in names:
                names.append(m.group(1))
    return names


def emit_fortran_constants_program(mpi_h):
    """A C program that prints, from mpi.h's values, the Fortran declarations of the
    constants: INTEGER (or INTEGER(KIND=MPI_ADDRESS_KIND) past 32 bits) PARAMETERs,
    lines of at most 72 columns from the 7th, for fixed and free form alike. A
    string constant (MPI_VERSION's are numbers) is left out."""
    out = [f"/* {GENERATED} */", "#include <mpi.h>", "#include <stddef.h>", "#include <stdio.h>",
           "", "static void constant_of(const char *name, long long value, const char *kind) {",
           '    printf("      %s %s\\n", kind, name);',
           '    printf("      PARAMETER (%s=%lld)\\n", name, value);', "}",
           "", "static void constant(const char *name, long long value, int is_integer) {",
           "    if (!is_integer) return;",
           '    int small = value >= -2147483647LL - 1 && value <= 2147483647LL;',
           '    constant_of(name, value, small ? "INTEGER" : "INTEGER(KIND=MPI_ADDRESS_KIND)");', "}",
           "#define INTEGER_TYPE(x) _Generic((x), int: 1, unsigned: 1, long: 1, unsigned long: 1, "
           "long long: 1, unsigned long long: 1, default: 0)",
           "#define C(name) constant(#name, (long long)(name), INTEGER_TYPE(name))",
           "", "int main(void) {"]
    for name, expr in FORTRAN_ONLY_CONSTANTS.items():
        out.append(f'    constant("{name}", (long long)({expr}), 1);')
    out += [f'    constant_of("{n}", (long long)({n}), "{FORTRAN_CONSTANT_KINDS[n]}");'
            if n in FORTRAN_CONSTANT_KINDS else f"    C({n});"
            for n in c_constants(mpi_h) if n not in FORTRAN_ONLY_CONSTANTS]
    out += ["    return 0;", "}"]
    return "\n".join(out) + "\n"


def fortran_interface_names(procs):
    """The calls libmpifort has: generated or written by hand."""
    return [p for p in fortran_procs(procs) if p.name not in FORTRAN_NOT_YET]


# the predefined callbacks libmpifort defines for Fortran (fortran.c)
FORTRAN_PREDEFINED_CALLBACKS = [
    "MPI_NULL_COPY_FN", "MPI_NULL_DELETE_FN", "MPI_DUP_FN",
    "MPI_COMM_NULL_COPY_FN", "MPI_COMM_NULL_DELETE_FN", "MPI_COMM_DUP_FN",
    "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_NULL_DELETE_FN", "MPI_TYPE_DUP_FN",
    "MPI_WIN_NULL_COPY_FN", "MPI_WIN_NULL_DELETE_FN", "MPI_WIN_DUP_FN", "MPI_CONVERSION_FN_NULL"]


def fixed_lines(words, first, indent="      ", width=72):
    """first followed by words joined by ', ', as statements of at most width columns
    (one statement a line, each repeating first): usable in fixed and free form."""
    out, line = [], ""
    for w in words:
        if line and len(indent + first + " " + line + ", " + w) > width:
            out.append(indent + first + " " + line)
            line = ""
        line = f"{line}, {w}" if line else w
    if line:
        out.append(indent + first + " " + line)
    return out


def fortran_status_type():
    """TYPE(MPI_Status), the same integers as an INTEGER status, for the mpi and the
    mpi_f08 modules: one definition, so that the two are the same type (BIND(C), no
    private component) and a status passes from a unit using one to a unit using
    the other. Not in mpif.h: gfortran -Wall warns of a BIND(C) type whose components
    are not of a kind from ISO_C_BINDING, which an include file cannot USE."""
    return ["  TYPE, BIND(C) :: MPI_Status",
            "    INTEGER(KIND=C_INT) :: " + ", ".join(STATUS_FIELDS[:3]),
            "    INTEGER(KIND=C_INT) :: " + ", ".join(STATUS_FIELDS[3:]),
            "  END TYPE MPI_Status"]


# TYPE(MPI_Status)'s components, in the order of an INTEGER status's elements
STATUS_FIELDS = ("MPI_SOURCE", "MPI_TAG", "MPI_ERROR", "tw_count_lo", "tw_count_hi", "tw_cancelled")


def fortran_specials():
    out = ["! the special addresses: libmpifort knows them by their common blocks"]
    for name, block, decl in SPECIAL_ADDRESSES:
        out += [f"      {decl}", f"      COMMON /{block}/ {name}"]
    return out


def fortran_functions(procs):
    """{Fortran type: [names]} of the calls that are functions."""
    out = {}
    for p in fortran_interface_names(procs):
        if p.f90_return:
            out.setdefault(p.f90_return, []).append(p.name.upper())
    return out


def emit_mpif_h(procs, constants):
    out = ["! mpif.h: Tollway's MPI for Fortran programs that include it (fixed or free",
           f"! form). {GENERATED}",
           "! The constants have mpi.h's values (made by a C program compiled against it)."]
    out += constants.rstrip("\n").split("\n")
    out += fortran_specials()
    for ftype, names in fortran_functions(procs).items():
        names = names + ["P" + n for n in names]
        out += fixed_lines(names, ftype)
        out += fixed_lines(names, "EXTERNAL")
    out += fixed_lines(FORTRAN_PREDEFINED_CALLBACKS, "EXTERNAL")
    out += ["      EXTERNAL MPI_F_SYNC_REG"]
    return "\n".join(out) + "\n"


F90_DECL = {"CHARACTER*(*)": "CHARACTER(LEN=*)"}


def fortran_interface(p):
    """The explicit interface of one call, free form."""
    args = [f.name for f in p.f90]
    kinds = sorted({k for f in p.f90 for k in re.findall(r"MPI_\w+_KIND|MPI_STATUS_SIZE|MPI_Status",
                                                           f.type + f.dims)} |
                   set(re.findall(r"MPI_\w+_KIND", p.f90_return or "")))
    head = "FUNCTION" if p.f90_return else "SUBROUTINE"
    prefix = f"{p.f90_return} " if p.f90_return else ""
    out, line = [], f"  {prefix}{head} {p.name.upper()}("
    for i, a in enumerate(args):  # free form: at most 132 columns, '&' continues
        if len(line) + len(a) > 100:
            out.append(line + " &")
            line = "      "
        line += a + (", " if i + 1 < len(args) else "")
    out.append(line + ")")
    if kinds:
        out.append(f"    IMPORT :: {', '.join(kinds)}")
    out.append("    IMPLICIT NONE")
    for f in p.f90:
        dims = f", DIMENSION{f.dims.replace(' ', '')}" if f.dims else ""
        if f.type == "<type>":
            out.append(f"    !GCC$ ATTRIBUTES NO_ARG_CHECK :: {f.name}")
            out.append(f"    TYPE(*), DIMENSION(*) :: {f.name}")
        elif f.type == "EXTERNAL":
            out.append(f"    EXTERNAL :: {f.name}")
        else:
            intent = {"in": "IN", "out": "OUT", "inout": "INOUT"}[f.direction]
            out.append(f"    {F90_DECL.get(f.type, f.type)}{dims}, INTENT({intent}) :: {f.name}")
    out.append(f"  END {head} {p.name.upper()}")
    return out


# MPI_SIZEOF's specific procedures (MPI-4.1 19.1.9): a type, the suffix of its name
SIZEOF_TYPES = [(f"{t}(KIND={k})", f"{t[0].lower()}{k}") for t in ("INTEGER", "LOGICAL")
                for k in (1, 2, 4, 8)] + \
    [(f"REAL(KIND={k})", f"r{k}") for k in (4, 8, 16)] + \
    [(f"COMPLEX(KIND={k})", f"c{k}") for k in (4, 8, 16)]


def fortran_only_interfaces(f08):
    """MPI_SIZEOF (a generic over the types, any rank) and MPI_F_SYNC_REG (a call the
    compiler cannot see into: libmpifort's no-op), for the mpi and mpi_f08 modules."""
    out = ["  INTERFACE MPI_Sizeof"]
    out += [f"    MODULE PROCEDURE tw_sizeof_{sfx}" for _, sfx in SIZEOF_TYPES]
    out += ["  END INTERFACE MPI_Sizeof", "  INTERFACE"]
    if f08:
        out += ['  SUBROUTINE MPI_F_sync_reg(buf) BIND(C, name="MPI_F_sync_reg_f08")',
                "    IMPLICIT NONE", "    TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf",
                "  END SUBROUTINE MPI_F_sync_reg"]
    else:
        out += ["  SUBROUTINE MPI_F_SYNC_REG(buf)", "    IMPLICIT NONE",
                "    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf", "    TYPE(*), DIMENSION(*) :: buf",
                "  END SUBROUTINE MPI_F_SYNC_REG"]
    out.append("  END INTERFACE")
    return out


def fortran_only_procedures(f08):
    out = []
    for t, sfx in SIZEOF_TYPES:
        out += [f"  SUBROUTINE tw_sizeof_{sfx}(x, size, ierror)",
                f"    {t}, DIMENSION(..), INTENT(IN) :: x", "    INTEGER, INTENT(OUT) :: size",
                f"    INTEGER{', OPTIONAL' if f08 else ''}, INTENT(OUT) :: ierror",
                "    size = STORAGE_SIZE(x) / 8",
                "    IF (PRESENT(ierror)) ierror = MPI_SUCCESS" if f08 else "    ierror = MPI_SUCCESS",
                f"  END SUBROUTINE tw_sizeof_{sfx}"]
    return out


def emit_mpi_module(procs, constants):
    out = ["! The mpi module (`use mpi`): mpif.h's constants and special addresses, and an",
           "! explicit interface for each call; a choice buffer takes any type and rank.",
           f"! {GENERATED}",
           "MODULE MPI", "  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_INT", "  IMPLICIT NONE",
           "  PRIVATE :: C_INT"]
    out += constants.rstrip("\n").split("\n")
    out += fortran_status_type()
    out += fortran_specials()
    out += fixed_lines(FORTRAN_PREDEFINED_CALLBACKS, "EXTERNAL")
    out += ["", "  INTERFACE"]
    for p in fortran_interface_names(procs):
        out += fortran_interface(p)
        if p.f90_return:  # a function's PMPI_ twin has a type too, as in mpif.h
            twin = copy.copy(p)
            twin.name = "P" + p.name
            out += fortran_interface(twin)
    out += ["  END INTERFACE"]
    out += fortran_only_interfaces(False)
    out += ["CONTAINS"] + fortran_only_procedures(False) + ["END MODULE MPI"]
    return "\n".join(out) + "\n"


# ---- the mpi_f08 module ----
#
# `use mpi_f08` declares each call as a generic (MPI_Send, and PMPI_Send for the
# profiling interface) over the specific procedures MPI_Send_f08 / PMPI_Send_f08
# (MPI-4.1 19.1.5), whose interfaces are BIND(C) with those names: the handles are
# TYPE(MPI_Comm) ... (one INTEGER, MPI_VAL), a status TYPE(MPI_Status) (the ints of
# mpif.h's status, so the same layout), ierror OPTIONAL, a choice buffer
# TYPE(*), DIMENSION(..) (ASYNCHRONOUS where the call returns a request), a CHARACTER
# by descriptor. The C side of each (emit_f08_c) takes the descriptors, turns a
# non-contiguous array section into a datatype (f08.c) and calls libmpifort's
# entry point of the call (pmpi_send_), so both bindings convert the same way.

F08_HANDLE_TYPES = ["MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Request", "MPI_Op", "MPI_Win",
                    "MPI_Info", "MPI_Errhandler", "MPI_Message", "MPI_Session", "MPI_File"]

# Calls of mpi_f08 that are Fortran module procedures (calling libmpifort's entry
# point) rather than BIND(C) interfaces, and why: they have no _f08 linker name of
# their own (their profiling names are the generics PMPI_...).
F08_IN_FORTRAN = {
    "MPI_Status_f2f08": "a copy of the status's integers, in Fortran",
    "MPI_Status_f082f": "as MPI_Status_f2f08",
}

# A call with a procedure argument (a user function, an error handler, attribute copy
# and delete functions: every call with an EXTERNAL argument) cannot be a BIND(C)
# interface: its dummy procedure would have to be BIND(C) too, and the user's is not
# (gfortran 12: 'must have the BIND(C) attribute'). It is an external procedure
# without BIND(C) instead, MPI_Op_create_f08 and PMPI_Op_create_f08 as for the others,
# whose linker names are then the compiler's for an external procedure (MPI-4.1
# 19.1.5, as MPICH and Open MPI do): gfortran's mpi_op_create_f08_ and
# pmpi_op_create_f08_, the first a weak alias of the second.
def f08_linker_name(p, name):
    return f"{name.lower()}_" if any(f.type == "EXTERNAL" for f in p.f90) else name

# Calls of mpi_f08 not there yet, and why (beyond FORTRAN_NOT_YET's).
F08_NOT_YET = {}

# Calls that keep their buffer past the call (a window's memory, an attached buffer):
# a non-contiguous array section cannot be a copy there, and is an error.
F08_KEPT_BUFFERS = re.compile(r"MPI_(Win_create|Win_attach|Win_detach|Buffer_attach|Buffer_detach|"
                              r"Comm_attach_buffer|Session_attach_buffer|Comm_detach_buffer|"
                              r"Session_detach_buffer|Free_mem)$")

F08_STATUS_DIMS = re.compile(r"\(\s*MPI_STATUS_SIZE\s*,?\s*")


def f08_handle(p, f, c_by_name):
    c = c_by_name.get(f.lower)
    if c is None or f.type != "INTEGER":
        return None
    base = c_shape(c.decl)[0]
    return base if base in F08_HANDLE_TYPES else None


def f08_buffer_pairs(p):
    """{buffer name: (count name, datatype name)} for the choice buffers described by
    one scalar count and one datatype of their own; a buffer sharing its pair with
    another (MPI_Reduce's) or with a count array (MPI_Gatherv's) is not in it."""
    scalar = {f.lower for f in p.f90 if not f.dims}
    names = [f.lower for f in p.f90]
    out = {}
    for f in p.f90:
        if f.type != "<type>":
            continue
        stem = re.sub(r"_?(buf|addr)$", "", f.lower)
        cnt = next((n for n in (f"{stem}count", f"{stem}_count", "count") if n in scalar), None)
        dt = next((n for n in (f"{stem}type", f"{stem}_datatype", "datatype") if n in names), None)
        if cnt and dt:
            out[f.lower] = (cnt, dt)
    used = {}
    for b, pair in out.items():
        used.setdefault(pair, []).append(b)
    return {b: pair for b, pair in out.items() if len(used[pair]) == 1}


# collectives whose count is per block (per rank): a section's blocks must be alike
# for one datatype to describe each (f08.c)
F08_PER_BLOCK = re.compile(r"MPI_I?(Neighbor_)?(Gather|Scatter|Allgather|Alltoall)(_init)?(_c)?$",
                           re.IGNORECASE)

# one-sided calls without a request: their buffers are in use until the epoch ends
F08_RMA = re.compile(r"MPI_(Put|Get|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap)$")


def f08_asynchronous(p):
    """Whether the call's buffers are used after it returns (ASYNCHRONOUS, no copy)."""
    return bool(F08_RMA.match(p.name)) or any(c_shape(q.decl)[0] == "MPI_Request" and q.direction == "out" for q in p.fixed)


# Large-count calls (_c) mpi_f08 does not overload its generic with, and why.
SAME_KIND = ("MPI_COUNT_KIND is MPI_ADDRESS_KIND (both 8 bytes): the overload would be the "
             "base call's, which already takes INTEGER(KIND=MPI_ADDRESS_KIND)")
F08_LARGE_COUNT_NOT_YET = {
    "MPI_Type_get_extent_c": SAME_KIND,
    "MPI_Type_get_true_extent_c": SAME_KIND,
    "MPI_Type_create_resized_c": SAME_KIND,
    "MPI_File_get_type_extent_c": SAME_KIND,
}


# callbacks whose large-count form takes an MPI_Count where the base's takes an int
# (their Fortran abstract interface: the name with _c), and their C types
LARGE_CALLBACKS = ("USER_FUNCTION", "DATAREP_CONVERSION_FUNCTION")
LARGE_CALLBACK_TYPES = {"MPI_User_function": "MPI_User_function_c",
                        "MPI_Datarep_conversion_function": "MPI_Datarep_conversion_function_c"}


def large_count(procs):
    """large_count_procs, stopping when what cannot be made is not what the table says."""
    made, why = large_count_procs(procs)
    if set(why) != set(F08_LARGE_COUNT_NOT_YET):
        sys.exit("large-count calls without an mpi_f08 overload differ from "
                 "F08_LARGE_COUNT_NOT_YET: " +
                 "; ".join(f"{n}: {w}" for n, w in why.items() if n not in F08_LARGE_COUNT_NOT_YET) +
                 " ".join(f"{n} is listed but made" for n in F08_LARGE_COUNT_NOT_YET if n not in why))
    return made


def large_count_procs(procs):
    """[(the _c call with a Fortran binding made from its base's, its libmpifort entry)]
    for the generics of mpi_f08: each parameter whose C type is MPI_Count (or MPI_Aint)
    where the base call's is int becomes INTEGER(KIND=MPI_COUNT_KIND) (or
    MPI_ADDRESS_KIND). {name: why} of those that cannot be made."""
    import copy
    by_name = {p.name: p for p in procs}
    made, why = [], {}
    for pc in procs:
        base = by_name.get(pc.name[:-2]) if pc.name.endswith("_c") else None
        if base is None or base.f90 is None or base.name in FORTRAN_NOT_YET:
            continue
        # MPI_Op_create_c: the user function's len is an MPI_Count;
        # MPI_Register_datarep_c: the conversion functions' count
        c_base = {q.name: LARGE_CALLBACK_TYPES.get(c_shape(q.decl)[0], c_shape(q.decl)[0])
                  for q in base.fixed}
        c_big = {q.name: c_shape(q.decl)[0] for q in pc.fixed}
        # MPI_Type_get_envelope_c, MPI_Type_get_contents_c: a count of large counts and
        # their array besides the base's, each made from its twin of addresses
        added = set(c_big) - set(c_base)
        if set(c_base) - set(c_big) or any(
                n.replace("large_counts", "addresses") not in c_base or n.count("large_counts") != 1
                for n in added):
            why[pc.name] = "its C parameters are not its base call's"
            continue
        params = []
        for f in base.f90:
            params.append(f)
            twin = [n for n in added if n.replace("large_counts", "addresses") == f.lower]
            for n in twin:
                g = copy.copy(f)
                g.name, g.lower = n.upper(), n
                params.append(g)
        f90, changed, own_callback = [], False, False
        for f in params:
            g = copy.copy(f)
            if f.func_type in LARGE_CALLBACKS:
                g.func_type, changed, own_callback = f.func_type + "_C", True, True
            b, c = c_base.get(f.lower), c_big.get(f.lower)
            if b != c:
                changed = True
                if c == "MPI_Count":
                    g.type = "INTEGER(KIND=MPI_COUNT_KIND)"
                elif c == "MPI_Aint":
                    g.type = "INTEGER(KIND=MPI_ADDRESS_KIND)"
                else:
                    why[pc.name] = f"{f.name}: C type {c}, no Fortran kind for it"
                    break
            f90.append(g)
        if pc.name in why:
            continue
        def kinds(fs):  # MPI_Count and MPI_Aint are both 64 bits (mpi.h): one Fortran kind
            return [f.type.replace("MPI_COUNT_KIND", "MPI_ADDRESS_KIND") for f in fs]
        if not changed or (kinds(f90) == kinds(base.f90) and not own_callback):
            why[pc.name] = SAME_KIND
            continue
        synth = copy.copy(pc)
        synth.f90, synth.f90_return = f90, base.f90_return
        if base.name in FORTRAN_BY_HAND:  # its entry is written beside its base's
            made.append((synth, None))
            continue
        e = FortranEntry(synth)
        if e.why:
            why[pc.name] = e.why
            continue
        made.append((synth, e))
    return made, why


def f08_procs(procs):
    """(the calls as BIND(C) interfaces, the calls with a procedure argument: external
    procedures without BIND(C), f08_linker_name)"""
    bind, fortran = [], []
    for p in fortran_interface_names(procs):
        if p.name in F08_NOT_YET or p.name in F08_IN_FORTRAN or not p.standard:
            continue  # the removed MPI-1 calls were never in mpi_f08
        if any(f.type == "EXTERNAL" for f in p.f90):
            fortran.append(p)
        else:
            bind.append(p)
    return bind, fortran


def f08_callbacks():
    """mpi_f08's abstract interfaces of the callbacks, as the standard writes them:
    [[name, [parameters], [declarations]]...] (standard.json)."""
    return json.load(open(DESCRIPTION)).get("f08_callbacks", [])


def f08_callback_interface(f):
    """The abstract interface of a procedure argument (its callback type's), or None
    (MPI-1's MPI_Copy_function has no mpi_f08 form)."""
    name = f"mpi_{f.func_type.lower()}"
    return next((n for n, _, _ in f08_callbacks() if n.lower() == name), None)


def f08_address_out(p, f):
    """A choice buffer mpi_f08 has as TYPE(C_PTR), INTENT(OUT): the address the
    detach calls give back (an assumed-type argument cannot be INTENT(OUT))."""
    return f.type == "<type>" and p.f08.get(f.lower, ("",))[0] == "OUT"


def f08_declarations(p, bind):
    c_by_name = {q.name: q for q in p.fixed}
    asyn = f08_asynchronous(p)
    out = []

    def intent_of(f, default):
        """', INTENT(X)' as the standard's mpi_f08 has it (none: ''), else default's,
        and ', ASYNCHRONOUS' where it has that (a nonblocking call's arrays)"""
        got, a = p.f08.get(f.lower, (default, False))
        return (f", INTENT({got})" if got else "") + (", ASYNCHRONOUS" if a else "")

    for f in p.f90:
        dims = f.dims.replace(" ", "")
        if f08_address_out(p, f):
            out.append(f"    TYPE(C_PTR), INTENT(OUT) :: {f.name}")
            continue
        if f.type == "<type>":
            default = "IN" if f.direction == "in" and not F08_KEPT_BUFFERS.match(p.name) else ""
            attrs = intent_of(f, default)
            if f.lower not in p.f08 and asyn:  # not in the standard's: by the call's kind
                attrs += ", ASYNCHRONOUS"
            out.append(f"    TYPE(*), DIMENSION(..){attrs} :: {f.name}")
            continue
        if f.type == "EXTERNAL":
            iface = f08_callback_interface(f)
            out.append(f"    PROCEDURE({iface}) :: {f.name}" if iface else
                       f"    EXTERNAL :: {f.name}")
            continue
        intent = {"in": "IN", "out": "OUT", "inout": "INOUT"}[f.direction]
        if f.lower == "ierror":
            out.append("    INTEGER, OPTIONAL, INTENT(OUT) :: ierror")
            continue
        handle = f08_handle(p, f, c_by_name)
        if f.kind == "C_BUFFER" and f.direction == "out":
            # memory the library allocates: mpi_f08 gives its address as TYPE(C_PTR)
            # (for C_F_POINTER), the mpi binding as INTEGER(KIND=MPI_ADDRESS_KIND): the
            # same 8 bytes, which libmpifort's entry point writes
            out.append(f"    TYPE(C_PTR), INTENT(OUT) :: {f.name}")
        elif f.kind == "STATUS" and f.type == "INTEGER":
            rest = F08_STATUS_DIMS.sub("(", dims)
            rest = "" if rest in ("(", "()", "(1)") else rest
            rest = rest.rstrip(")") + ")" if rest else ""
            out.append(f"    TYPE(MPI_Status){', DIMENSION' + rest if rest else ''}"
                       f"{intent_of(f, intent)} :: {f.name}")
        elif handle:
            out.append(f"    TYPE({handle}){', DIMENSION' + dims if dims else ''}"
                       f"{intent_of(f, intent)} :: {f.name}")
        else:
            t = F90_DECL.get(f.type, f.type)
            out.append(f"    {t}{', DIMENSION' + dims if dims else ''}{intent_of(f, intent)} :: {f.name}")
    return out


def f08_head(p, name, bind):
    args = [f.name for f in p.f90]
    head = "FUNCTION" if p.f90_return else "SUBROUTINE"
    prefix = f"{p.f90_return} " if p.f90_return else ""
    out, line = [], f"  {prefix}{head} {name}("
    for i, a in enumerate(args):
        if len(line) + len(a) > 90:
            out.append(line + " &")
            line = "      "
        line += a + (", " if i + 1 < len(args) else "")
    line += ")"
    if bind:
        out.append(line + " &")
        line = f'      BIND(C, name="{name}")'
    out.append(line)
    return out, head


def f08_interface(p, name):
    bind = f08_linker_name(p, name) == name
    head, kind = f08_head(p, name, bind)
    return head + ["    IMPORT", "    IMPLICIT NONE"] + f08_declarations(p, True) + \
        [f"  END {kind} {name}"]




def f08_constants(constants, mpi_h):
    """constants.inc's lines, the handles among them as PARAMETERs of their type."""
    types = {}
    text = open(mpi_h).read()
    for inc in re.findall(r'#\s*include\s*<tollway/([\w.]+)>', text):
        text += open(os.path.join(os.path.dirname(mpi_h), "tollway", inc)).read()
    defs = dict(re.findall(r"^\s*#\s*define\s+(MPI_\w+)\s+(.+?)\s*$", text, re.M))

    def handle_type(name, depth=0):
        d = defs.get(name, "")
        m = re.match(r"\(\((MPI_\w+)\)", d)
        if m and m.group(1) in F08_HANDLE_TYPES:
            return m.group(1)
        if d.startswith("TW_MPI_TYPE("):
            return "MPI_Datatype"
        if re.fullmatch(r"MPI_\w+", d) and depth < 4:
            return handle_type(d, depth + 1)
        return None
    out = []
    lines = constants.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"\s*INTEGER\s+(MPI_\w+)$", lines[i])
        v = re.match(r"\s*PARAMETER \((MPI_\w+)=(-?\d+)\)$", lines[i + 1]) if m and i + 1 < len(lines) else None
        if m and v and handle_type(m.group(1)):
            t = handle_type(m.group(1))
            out.append(f"  TYPE({t}), PARAMETER :: {m.group(1)} = {t}({v.group(2)})")
            i += 2
            continue
        out.append(lines[i])
        i += 1
    return out


def emit_mpi_f08_module(procs, constants, mpi_h):
    bind, fortran = f08_procs(procs)
    out = ["! The mpi_f08 module (`use mpi_f08`): handle types, TYPE(MPI_Status), optional",
           "! ierror, choice buffers TYPE(*), DIMENSION(..) (array sections included).",
           f"! {GENERATED}",
           "MODULE MPI_F08", "  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR, C_INT",
           "  IMPLICIT NONE", "  PRIVATE :: C_PTR, C_INT"]
    for t in F08_HANDLE_TYPES:
        out += [f"  TYPE, BIND(C) :: {t}", "    INTEGER :: MPI_VAL", f"  END TYPE {t}"]
    out += fortran_status_type()
    out += f08_constants(constants, mpi_h)
    # every choice buffer takes a non-contiguous section, but those the library keeps
    # (MPI_Win_create, MPI_Buffer_attach ...), which the standard has simply contiguous
    out += ["  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .TRUE.",
            "  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.",
            "! the special addresses: the common blocks of mpif.h's, known by their address",
            "  INTEGER :: MPI_BOTTOM, MPI_IN_PLACE", "  COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM",
            "  COMMON /MPI_FORTRAN_IN_PLACE/ MPI_IN_PLACE",
            "  TYPE(MPI_Status) :: MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE(1)",
            "  COMMON /MPI_FORTRAN_STATUS_IGNORE/ MPI_STATUS_IGNORE",
            "  COMMON /MPI_FORTRAN_STATUSES_IGNORE/ MPI_STATUSES_IGNORE",
            "  INTEGER :: MPI_ERRCODES_IGNORE(1), MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)",
            "  COMMON /MPI_FORTRAN_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE",
            "  COMMON /MPI_FORTRAN_UNWEIGHTED/ MPI_UNWEIGHTED",
            "  COMMON /MPI_FORTRAN_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY",
            "  CHARACTER(LEN=1) :: MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1,1)",
            "  COMMON /MPI_FORTRAN_ARGV_NULL/ MPI_ARGV_NULL",
            "  COMMON /MPI_FORTRAN_ARGVS_NULL/ MPI_ARGVS_NULL"]
    out += fixed_lines(FORTRAN_PREDEFINED_CALLBACKS + ["MPI_CONVERSION_FN_NULL_C"], "EXTERNAL",
                       indent="  ")
    out += ["", "  ABSTRACT INTERFACE"]
    for name, args, rows in f08_callbacks():
        out += [f"  SUBROUTINE {name}({', '.join(args)})", "    IMPORT", "    IMPLICIT NONE"]
        # the module's own ISO_C_BINDING comes in by IMPORT
        out += [f"    {r}" for r in rows if not r.startswith("USE")]
        out += [f"  END SUBROUTINE {name}"]
    out += ["  END INTERFACE", ""]
    ops = []
    for t in F08_HANDLE_TYPES:
        short = t[4:].lower()
        ops.append((f"tw_eq_{short}", f"tw_ne_{short}", t))
    out.append("  INTERFACE OPERATOR(==)")
    out += [f"    MODULE PROCEDURE {eq}" for eq, _, _ in ops]
    out += ["  END INTERFACE", "  INTERFACE OPERATOR(/=)"]
    out += [f"    MODULE PROCEDURE {ne}" for _, ne, _ in ops]
    out.append("  END INTERFACE")
    big = {p.name[:-2]: p for p, _ in large_count(procs)
           if not any(f.type == "EXTERNAL" for f in p.f90)}
    # MPI_Op_create_c: a generic of its own (a procedure argument does not tell the
    # specifics of one generic apart)
    big_callbacks = [p for p, _ in large_count(procs) if any(f.type == "EXTERNAL" for f in p.f90)]
    for prefix in ("", "P"):
        for p in bind + fortran + big_callbacks:
            out += [f"  INTERFACE {prefix}{p.name}"]
            out += f08_interface(p, f"{prefix}{p.name}_f08")
            if p.name in big:  # the large-count overload (MPI-4.1 19.1.5: MPI_Send_c_f08)
                out += f08_interface(big[p.name], f"{prefix}{p.name}_c_f08")
            out += [f"  END INTERFACE {prefix}{p.name}"]
    out += ["  INTERFACE MPI_Status_f2f08", "    MODULE PROCEDURE MPI_Status_f2f08_f08",
            "  END INTERFACE", "  INTERFACE MPI_Status_f082f",
            "    MODULE PROCEDURE MPI_Status_f082f_f08", "  END INTERFACE"]
    out += fortran_only_interfaces(True)
    out += ["CONTAINS"]
    out += fortran_only_procedures(True)
    for eq, ne, t in ops:
        for name, op in ((eq, "=="), (ne, "/=")):
            out += [f"  ELEMENTAL LOGICAL FUNCTION {name}(a, b)", f"    TYPE({t}), INTENT(IN) :: a, b",
                    f"    {name} = a%MPI_VAL {op} b%MPI_VAL", f"  END FUNCTION {name}"]
    out += ["  SUBROUTINE MPI_Status_f2f08_f08(f_status, f08_status, ierror)",
            "    INTEGER, INTENT(IN) :: f_status(MPI_STATUS_SIZE)",
            "    TYPE(MPI_Status), INTENT(OUT) :: f08_status",
            "    INTEGER, OPTIONAL, INTENT(OUT) :: ierror",
            # field by field, not TRANSFER: flang calls its runtime library for a
            # TRANSFER to a derived type, which libmpifort would then carry
            *[f"    f08_status%{f} = f_status({i})" for i, f in enumerate(STATUS_FIELDS, 1)],
            "    IF (PRESENT(ierror)) ierror = MPI_SUCCESS",
            "  END SUBROUTINE MPI_Status_f2f08_f08",
            "  SUBROUTINE MPI_Status_f082f_f08(f08_status, f_status, ierror)",
            "    TYPE(MPI_Status), INTENT(IN) :: f08_status",
            "    INTEGER, INTENT(OUT) :: f_status(MPI_STATUS_SIZE)",
            "    INTEGER, OPTIONAL, INTENT(OUT) :: ierror",
            *[f"    f_status({i}) = f08_status%{f}" for i, f in enumerate(STATUS_FIELDS, 1)],
            "    IF (PRESENT(ierror)) ierror = MPI_SUCCESS",
            "  END SUBROUTINE MPI_Status_f082f_f08"]
    out += ["END MODULE MPI_F08"]
    return "\n".join(out) + "\n"


def f08_c_entry(p):
    """The C of one call's mpi_f08 entry point (PMPI_Send_f08, MPI_Send_f08 its weak
    alias; f08_linker_name's for a call with a procedure argument): descriptors in,
    libmpifort's entry point called."""
    low = p.name.lower()
    pname, name = f08_linker_name(p, f"P{p.name}_f08"), f08_linker_name(p, f"{p.name}_f08")
    bind = name == f"{p.name}_f08"
    pairs = f08_buffer_pairs(p)
    formals, pre, args, hidden, post, lengths = [], [], [], [], [], []
    for f in p.f90:
        n = f.lower
        if f.type == "<type>" and not f08_address_out(p, f):
            formals.append(f"CFI_cdesc_t *{n}")
            pre.append(f"tw_f08_section {n}_s = {{0}};")
            # a call that does not keep the buffer may use a copy of it (held by the
            # request of a nonblocking one); one-sided calls without a request use
            # their buffers until the epoch ends: a datatype always describes those
            how = "TW_F08_NO_COPY" if F08_KEPT_BUFFERS.match(p.name) or F08_RMA.match(p.name) \
                else {"in": "TW_F08_COPY_IN", "out": "TW_F08_COPY_OUT"}.get(f.direction,
                                                                         "TW_F08_COPY_INOUT")
            if n in pairs:
                cnt, dt = pairs[n]
                big = int(any(g.lower == cnt and "COUNT_KIND" in g.type for g in p.f90))
                if F08_PER_BLOCK.match(p.name):
                    how += " | TW_F08_BLOCKS"
                pre.append(f"if (rc == MPI_SUCCESS) rc = tw_f08_section_of({n}, {cnt}, {big}, {dt}, "
                           f"&{n}_s, \"{p.name}\", \"{n}\", {how});")
            else:
                if F08_RMA.match(p.name):
                    how = "TW_F08_FIRST"  # one datatype's worth (MPI_Fetch_and_op ...)
                pre.append(f"if (rc == MPI_SUCCESS) rc = tw_f08_section_of({n}, NULL, 0, NULL, "
                           f"&{n}_s, \"{p.name}\", \"{n}\", {how});")
            args.append(f"{n}_s.addr")
            post.append(f"tw_f08_section_done(&{n}_s);")
        elif f.type.startswith("CHARACTER") and not bind:
            # a procedure without BIND(C) (it takes a procedure): the compiler passes
            # the characters and their length last, as to mpif.h's
            formals.append(f"char *{n}")
            args.append(n)
            hidden.append(f"{n}_len")
            lengths.append(f"size_t {n}_len")
        elif f.type.startswith("CHARACTER"):
            formals.append(f"CFI_cdesc_t *{n}")
            args.append(f"{n}->base_addr")
            hidden.append(f"{n}->elem_len")
        elif n == "ierror":
            formals.append("MPI_Fint *ierror")
            args.append("&rc")
        else:
            formals.append(f"void *{n}")
            args.append(n)
    # a buffer turned into a datatype passes its count and datatype in their stead
    for b, (cnt, dt) in pairs.items():
        args = [f"{b}_s.count_arg" if a == cnt else f"{b}_s.type_arg" if a == dt else a
                for a in args]
    fsig = ", ".join(formals + lengths) or "void"
    decl_types = ", ".join(["void *"] * len(args) + ["size_t"] * len(hidden)) or "void"
    call_args = ", ".join(args + [f"(size_t){h}" for h in hidden])
    # the generated mpif.h entry points are in this unit (fortran.c, included), to be
    # inlined; those written by hand are declared
    by_hand = p.name in FORTRAN_BY_HAND or p.name.removesuffix("_c") in FORTRAN_BY_HAND
    out = []
    if p.f90_return:
        ret = {"DOUBLE PRECISION": "double", "INTEGER(KIND=MPI_ADDRESS_KIND)": "MPI_Aint"}[p.f90_return]
        out += [f"{ret} p{low}_({decl_types});"] if by_hand else []
        out += [f"{ret} {pname}({fsig});",
                f"{ret} {pname}({fsig}) {{", f"    return p{low}_({call_args});", "}"]
    else:
        ret = "void"
        out += [f"void p{low}_({decl_types});"] if by_hand else []
        bufs = [f.lower for f in p.f90 if f.type == "<type>" and not f08_address_out(p, f)]
        body = pname
        if bufs and any(f.lower == "ierror" for f in p.f90):
            # every buffer a scalar or contiguous, the common case: its address, the
            # caller's count and datatype, straight to the entry point; the sections'
            # work in a function of its own, so this path saves no registers for it
            fast = [f"{a[:-len('_s.addr')]}->base_addr" if a.endswith("_s.addr") else a for a in args]
            fast = [next((cnt for b, (cnt, dt) in pairs.items() if a == f"{b}_s.count_arg"),
                         next((dt for b, (cnt, dt) in pairs.items() if a == f"{b}_s.type_arg"), a))
                    for a in fast]
            fast = ["ierror ? ierror : &rc" if a == "&rc" else a for a in fast]
            test = " && ".join(f"tw_f08_simple({b})" for b in bufs)
            body = f"{pname}_sections"
            names = ", ".join(f.lower for f in p.f90)
            out += [f"static void {body}({fsig});",
                    f"void {pname}({fsig});", f"void {pname}({fsig}) {{",
                    f"    if ({test}) {{", "        MPI_Fint rc;",
                    f"        p{low}_({', '.join(fast + [f'(size_t){h}' for h in hidden])});",
                    "        return;", "    }", f"    {body}({names});", "}",
                    f"__attribute__((noinline)) static void {body}({fsig}) {{",
                    "    MPI_Fint rc = MPI_SUCCESS;"]
        else:
            out += [f"void {pname}({fsig});", f"void {pname}({fsig}) {{", "    MPI_Fint rc = MPI_SUCCESS;"]
        out += ["    " + x for x in pre]
        out += [f"    if (rc == MPI_SUCCESS) p{low}_({call_args});"]
        request = next((q.name.lower() for q in p.fixed
                        if c_shape(q.decl)[0] == "MPI_Request" and q.direction == "out"), None)
        buffers = [f"&{f.lower}_s" for f in p.f90 if f.type == "<type>" and not f08_address_out(p, f)]
        if request and buffers:
            out.append(f"    tw_f08_sections_held((tw_f08_section *const[]){{{', '.join(buffers)}}}, "
                       f"{len(buffers)}, rc, {request});")
        out += ["    " + x for x in post]
        if any(f.lower == "ierror" for f in p.f90):
            out.append("    if (ierror) *ierror = rc;")
        out.append("}")
    out.append(f'{ret} {name}({fsig}) __attribute__((weak, alias("{pname}")));')
    return "\n".join(out) + "\n"


def emit_f08_c(procs):
    bind, fortran = f08_procs(procs)
    out = [f"/* {GENERATED}",
           " * mpi_f08's entry points: BIND(C) procedures (PMPI_Send_f08, MPI_Send_f08 its",
           " * weak alias) over libmpifort's (pmpi_send_); those with a procedure argument",
           " * under gfortran's names of an external procedure (pmpi_op_create_f08_). */",
           "#include <stddef.h>", "", '#include "mpi/bindings/fortran/f08.h"', "",
           "/* libmpifort's mpif.h entry points (fortran-c), in this unit so that each",
           " * mpi_f08 entry point has the one it calls inlined: one conversion, no call */",
           '#include "fortran.c"', "",
           "/* clang-format off */"]
    out += [f08_c_entry(p) for p in bind + fortran]
    bound = {p.name for p in bind + fortran}
    out += [f08_c_entry(p) for p, _ in large_count(procs) if p.name[:-2] in bound]
    out.append("/* clang-format on */")
    return "\n".join(out) + "\n"


# ---- the check that the bindings' constants are mpi.h's (tests/fortran) ----

def emit_constants_values_c(mpi_h):
    """A C program printing 'NAME VALUE' for each integer constant, as C sees it."""
    out = [f"/* {GENERATED} */", "#include <mpi.h>", "#include <stddef.h>", "#include <stdio.h>",
           "#define INTEGER_TYPE(x) _Generic((x), int: 1, unsigned: 1, long: 1, unsigned long: 1, "
           "long long: 1, unsigned long long: 1, default: 0)",
           "static void value(const char *name, long long v, int is_integer) {",
           '    if (is_integer) printf("%s %lld\\n", name, v);', "}",
           "#define C(name) value(#name, (long long)(name), INTEGER_TYPE(name))",
           "int main(void) {"]
    for name, expr in FORTRAN_ONLY_CONSTANTS.items():
        out.append(f'    value("{name}", (long long)({expr}), 1);')
    out += [f"    C({n});" for n in c_constants(mpi_h) if n not in FORTRAN_ONLY_CONSTANTS]
    out += ["    return 0;", "}"]
    return "\n".join(out) + "\n"


def emit_constants_print_fortran(constants, mpi_h, binding):
    """A Fortran program printing 'NAME VALUE' for each constant, through binding
    (mpif.h, mpi or mpi_f08; free form); mpi_f08's handles by their MPI_VAL."""
    names = re.findall(r"PARAMETER \((MPI_\w+)=", constants)
    handles = set()
    if binding == "mpi_f08":
        handles = {m for m in re.findall(r"TYPE\(MPI_\w+\), PARAMETER :: (MPI_\w+)",
                                         "\n".join(f08_constants(constants, mpi_h)))}
    use = {"mpif.h": "  IMPLICIT NONE\n  INCLUDE 'mpif.h'", "mpi": "  USE mpi\n  IMPLICIT NONE",
           "mpi_f08": "  USE mpi_f08\n  IMPLICIT NONE"}[binding]
    out = [f"! {GENERATED}", f"PROGRAM constants_{binding.replace('.', '_')}"]
    if binding != "mpif.h":
        out = [out[0], f"PROGRAM constants_{binding}", use]
    else:
        out += [use]
    for n in names:
        out.append(f"  PRINT '(A,1X,I0)', '{n}', {n}{'%MPI_VAL' if n in handles else ''}")
    out.append("END PROGRAM")
    return "\n".join(out) + "\n"


# ---- checks against the claim ----

def tokens(text):
    return re.findall(r"\.\.\.|\w+|[^\s\w]", text)


def check_library(procs, lib):
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                        check=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if re.search(r" P?MPI_\w+$", line)}
    # all capitals: the predefined functions and objects (MPI_COMM_DUP_FN, MPI_UNWEIGHTED)
    exported = {n for n in exported if not re.fullmatch(r"P?MPI_[A-Z0-9_]+", n)}
    want = {p.name for p in procs} | {"P" + p.name for p in procs}
    errors = [f"libmpi does not export {n}, which it claims" for n in sorted(want - exported)]
    errors += [f"libmpi exports {n}, which it does not claim (not in the description, or in "
               "not_claimed.txt)" for n in sorted(exported - want)]
    return errors


PROTOTYPE = re.compile(r"^[ \t]*(?:\w+[ \t]+)+(P?MPI_\w+)\s*\(([^;]*?)\)[^;(]*;", re.M | re.S)


def declared(header, seen):
    """{name: [prototype text]} of the calls a header and the headers it includes
    from include/ declare."""
    if header in seen:
        return {}
    seen.add(header)
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    found = {}
    for inc in re.findall(r'#\s*include\s*<(tollway/[\w.]+)>', text):
        path = os.path.join(os.path.dirname(header), inc)
        for k, v in declared(path, seen).items():
            found.setdefault(k, []).extend(v)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    for m in PROTOTYPE.finditer(text):
        name = m.group(1)
        if re.fullmatch(r"P?MPI_[A-Z0-9_]+", name) or m.group(0).split()[0] == "typedef":
            continue  # a predefined callback, or a callback's type
        found.setdefault(name, []).append(" ".join(m.group(0).split()))
    return found


def check_header(procs, mpi_h):
    found = declared(os.path.abspath(mpi_h), set())
    errors = []
    want = {}
    for p in procs:
        want[p.name] = p.prototype()
        want["P" + p.name] = p.prototype("P")
    for name in sorted(set(want) - set(found)):
        errors.append(f"mpi.h does not declare {name}, which libmpi claims")
    for name in sorted(set(found) - set(want)):
        errors.append(f"mpi.h declares {name}, which libmpi does not claim")
    for name in sorted(set(found) & set(want)):
        for text in found[name]:
            if tokens(text) != tokens(want[name]):
                errors.append(f"mpi.h declares {name} as '{text}', the description as '{want[name]}'")
    return errors


def write(path, text):
    if path == "-":
        sys.stdout.write(text)
        return
    try:  # rewritten only when changed, so nothing rebuilds for nothing
        if open(path).read() == text:
            return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, rest = argv[1], argv[2:]
    if cmd == "extract" and len(rest) <= 1:
        write(rest[0] if rest else DESCRIPTION, extract())
        return
    procs = load_model()
    if cmd == "headers" and len(rest) <= 1:
        inc = rest[0] if rest else os.path.join(TREE, "include")
        os.makedirs(os.path.join(inc, "tollway"), exist_ok=True)
        write(os.path.join(inc, "tollway", "mpi_calls.h"), emit_calls_header(procs))
        write(os.path.join(inc, "tollway", "pmpi.h"), emit_pmpi_header(procs))
        # each face's header (mpi_abi.h), from its table
        import gen_face
        native = gen_face.native_values(os.path.join(TREE, "include", "mpi.h"))
        for name in gen_face.face_names():
            face = gen_face.Face(gen_face.load_face(name), native)
            if face.t.get("header_in_tree", True):  # MPICH's: its programs use MPICH's mpi.h
                write(os.path.join(inc, face.t["header"]), gen_face.emit_face_header(face, procs))
    elif cmd in ("rename", "wrappers") and len(rest) == 1:
        write(rest[0], (emit_rename if cmd == "rename" else emit_wrappers)(procs))
    elif cmd == "wrappers-face" and len(rest) == 1:
        write(rest[0], emit_wrappers(procs, face_bodies=True))
    elif cmd in ("face-c", "face-header", "face-map") and len(rest) == 2:
        import gen_face
        face = gen_face.Face(gen_face.load_face(rest[0]), gen_face.native_values(
            os.path.join(TREE, "include", "mpi.h")))
        emit = {"face-c": gen_face.emit_face_c, "face-header": gen_face.emit_face_header,
                "face-map": gen_face.emit_face_map}[cmd]
        write(rest[1], emit(face, procs))
    elif cmd == "fortran-c" and len(rest) == 1:
        write(rest[0], emit_fortran_c(procs))
    elif cmd == "fortran-constants" and len(rest) == 2:
        write(rest[1], emit_fortran_constants_program(rest[0]))
    elif cmd in ("mpif-h", "mpi-module") and len(rest) == 2:
        constants = open(rest[0]).read()
        write(rest[1], (emit_mpif_h if cmd == "mpif-h" else emit_mpi_module)(procs, constants))
    elif cmd == "f08-c" and len(rest) == 1:
        write(rest[0], emit_f08_c(procs))
    elif cmd == "mpi-f08-module" and len(rest) == 3:
        write(rest[2], emit_mpi_f08_module(procs, open(rest[0]).read(), rest[1]))
    elif cmd == "constants-values" and len(rest) == 2:
        write(rest[1], emit_constants_values_c(rest[0]))
    elif cmd == "constants-print" and len(rest) == 4:
        write(rest[3], emit_constants_print_fortran(open(rest[0]).read(), rest[1], rest[2]))
    elif cmd == "names" and not rest:
        write("-", emit_names(procs))
    elif cmd == "check-face" and len(rest) == 2:
        import gen_face
        nm = subprocess.run(["nm", "-D", "--defined-only", rest[1]], capture_output=True, text=True,
                            check=True).stdout
        exported = {line.split()[-1] for line in nm.splitlines() if line.strip()}
        face = gen_face.Face(gen_face.load_face(rest[0]),
                             gen_face.native_values(os.path.join(TREE, "include", "mpi.h")))
        want = gen_face.face_symbols(face, procs)
        errors = [f"{rest[1]} does not export {n}, which the {rest[0]} face declares"
                  for n in sorted(want - exported)]
        errors += [f"{rest[1]} exports {n}, which is none of the {rest[0]} face's calls"
                   for n in sorted(exported - want)]
        for e in errors:
            print(e)
        if errors:
            sys.exit(f"{len(errors)} difference(s) from the face's calls")
        calls = len(gen_face.face_procs(procs, face))
        data = len(want) - 2 * calls
        print(f"{calls} calls{f' and {data} objects' if data else ''}: the face's, and nothing else")
    elif cmd in ("check-library", "check-header") and len(rest) == 1:
        errors = (check_library if cmd == "check-library" else check_header)(procs, rest[0])
        for e in errors:
            print(e)
        if errors:
            sys.exit(f"{len(errors)} difference(s) from the description less not_claimed.txt")
        print(f"{len(procs)} calls: as claimed")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
