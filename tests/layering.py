#!/usr/bin/env python3
"""Checks that the source tree keeps to its layers (docs/architecture.md).

Reads the #include lines of every file under src/, tools/ and include/ and checks:

  1. what each layer may include:
       src/mpi      its own headers, the public headers (include/), src/common
       src/device   device, link, runtime, common, public; of src/link only the
                    table's headers (src/link/*.h), never one link's folder
       src/link     link, runtime, common, public (never device); a link's folder
                    (src/link/NAME/) never another link's
       src/runtime  runtime, common, public
       src/common   common, public
       tools/X      its own folder, runtime, common, public
       include/     public only
  2. inside src/mpi, one folder per chapter of the standard (MPI_FOLDERS, from the
     bottom up): a file of a folder includes headers of its own folder and of those
     below it, never of one above, nor calls an MPI_ function one above defines (the
     public API is no way around the order); every file of src/mpi is in one of them;
  3. no cycle of #include among headers;
  4. no header that declares a function defined in a C file of another unit which
     includes that header (directly or not): the header and that unit then stand on
     each other. A unit is foo.c with foo.h, and the foo_*.c and foo_*.h beside them;
     a folder whose header is named after it (src/link/shm/shm.h) is one unit.

Prints one line per violation naming the file, the include and the rule, and exits 1
when there is any. `layering.py --self-test` runs the checks on small synthetic
trees and fails when a violation planted there goes unnoticed.
"""

import os
import re
import sys
import tempfile

import tree_check  # tests/: the command line the checkers share

ALLOWED = {
    "mpi": {"mpi", "public", "common"},
    "device": {"device", "link", "runtime", "common", "public"},
    "link": {"link", "runtime", "common", "public"},
    "runtime": {"runtime", "common", "public"},
    "common": {"common", "public"},
    "public": {"public"},
    # tools: their own folder (layer "tools/NAME"), checked separately
    "tools": {"runtime", "common", "public"},
}

RULE_TEXT = {
    "mpi": "src/mpi may include only its own headers, the public headers and src/common",
    "device": "src/device may include device, link, runtime, common and public headers",
    "link": "src/link may include link, runtime, common and public headers, never device",
    "runtime": "src/runtime may include only runtime, common and public headers",
    "common": "src/common may include only common and public headers",
    "public": "a public header may include only public headers",
    "tools": "a tool may include its own headers, runtime, common and public headers",
}

# src/mpi's folders from the bottom up: the environment (errors, info, threads), groups
# and communicators as objects (with attribute caching), the tools interface every
# layer above reports to, datatypes, point-to-point, collectives, the making of
# communicators (collective: dup, split, intercommunicators, topologies), one-sided,
# files (MPI-IO, on the windows for the shared file pointer),
# sessions and process management, the generated bindings over all of them, and the
# faces' tables and hooks (abi/<face>), over the bindings' face side.
MPI_FOLDERS = ["env", "comm", "tools", "datatype", "pt2pt", "coll", "comm_create", "rma", "io",
               "session", "bindings", "abi"]

SCANNED = ("src", "tools", "include")
SOURCE_EXT = (".c", ".h")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(rel):
    """The layer of a path relative to the root ('src/mpi/pt2pt/engine.c' -> 'mpi')."""
    parts = rel.split("/")
    if parts[0] == "include":
        return "public"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "tools" and len(parts) > 2:
        return "tools/" + parts[1]
    return None


def source_files(root):
    files = []
    for top in SCANNED:
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith(SOURCE_EXT):
                    files.append(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    return sorted(files)


def generated_headers(root):
    """Headers configured from NAME.in (build_info.h), by the name they are included as."""
    found = {}
    for top in SCANNED:
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith(".h.in"):
                    rel = os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/")
                    found[n[: -len(".in")]] = rel
    return found


def resolve(root, including, kind, name, generated):
    """The file (relative to root) an include names, None for a system header."""
    here = os.path.dirname(including)
    dirs = ([here] if kind == '"' else []) + ["src", "include"]
    for d in dirs:
        candidate = os.path.normpath(os.path.join(d, name)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    if name in generated:
        return generated[name]
    return None


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def includes_of(root, files, generated):
    """{file: [(include as written, resolved file or None, line number)]}; unresolved
    quoted includes are returned separately."""
    graph, unresolved = {}, []
    for rel in files:
        text = read(root, rel)
        edges = []
        for m in INCLUDE_RE.finditer(text):
            kind, name = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            target = resolve(root, rel, kind, name, generated)
            if target is None:
                if kind == '"':
                    unresolved.append((rel, line, name))
                continue
            edges.append((name, target, line))
        graph[rel] = edges
    return graph, unresolved


def check_layers(graph):
    problems = []
    for rel, edges in sorted(graph.items()):
        src_layer = layer_of(rel)
        if src_layer is None:
            continue
        for name, target, line in edges:
            dst_layer = layer_of(target)
            if src_layer.startswith("tools/"):
                ok = dst_layer == src_layer or dst_layer in ALLOWED["tools"]
                rule = RULE_TEXT["tools"]
            else:
                ok = dst_layer in ALLOWED.get(src_layer, set())
                rule = RULE_TEXT.get(src_layer, "unknown layer")
            if not ok:
                problems.append(
                    "%s:%d: includes \"%s\" (%s): %s" % (rel, line, name, target, rule))
    return problems


def link_folder(rel):
    """The link whose folder holds a file ('src/link/shm/segment.h' -> 'shm'), '' for
    the table's own files (src/link/*.[ch]), None outside src/link."""
    parts = rel.split("/")
    if parts[:2] != ["src", "link"]:
        return None
    return parts[2] if len(parts) > 3 else ""


def check_link_folders(graph):
    """The device reaches a link through the table alone, and a link is a folder of its
    own: adding one changes no other."""
    problems = []
    for rel, edges in sorted(graph.items()):
        here = layer_of(rel)
        mine = link_folder(rel)
        for name, target, line in edges:
            there = link_folder(target)
            if not there:
                continue
            if here == "device":
                problems.append("%s:%d: includes \"%s\" (%s): src/device may include the link "
                                "table's headers (src/link/*.h), never one link's folder"
                                % (rel, line, name, target))
            elif mine and mine != there:
                problems.append("%s:%d: includes \"%s\" (%s): src/link/%s may not include "
                                "another link's folder" % (rel, line, name, target, mine))
    return problems


def mpi_folder(rel):
    """The chapter folder of a file of src/mpi ('src/mpi/pt2pt/engine.c' -> 'pt2pt'),
    '' for a file of src/mpi itself, None outside src/mpi."""
    parts = rel.split("/")
    if parts[:2] != ["src", "mpi"]:
        return None
    return parts[2] if len(parts) > 3 else ""


def check_mpi_folders(graph):
    problems = []
    for rel, edges in sorted(graph.items()):
        here = mpi_folder(rel)
        if here is None:
            continue
        if here not in MPI_FOLDERS:
            problems.append("%s: is in no chapter folder of src/mpi (%s)" % (rel, ", ".join(MPI_FOLDERS)))
            continue
        for name, target, line in edges:
            there = mpi_folder(target)
            if there in MPI_FOLDERS and MPI_FOLDERS.index(there) > MPI_FOLDERS.index(here):
                problems.append("%s:%d: includes \"%s\" (%s): src/mpi/%s may not include "
                                "src/mpi/%s, a folder above it" % (rel, line, name, target, here, there))
    return problems


MPI_CALL_RE = re.compile(r"\b(P?MPI_\w+)\s*\(")


def check_mpi_calls(root, graph):
    """Calls, through the public API, of MPI functions defined in a folder above."""
    defined, texts = {}, {}
    for rel in graph:
        here = mpi_folder(rel)
        if here in MPI_FOLDERS and rel.endswith(".c"):
            texts[rel] = strip_code(read(root, rel))
            for name in defined_functions(texts[rel]):
                if name.startswith("MPI_"):
                    defined[name] = here
    problems = []
    for rel, text in sorted(texts.items()):
        here = mpi_folder(rel)
        for name in sorted(set(MPI_CALL_RE.findall(text))):
            there = defined.get(name[1:] if name.startswith("PMPI_") else name)
            if there and MPI_FOLDERS.index(there) > MPI_FOLDERS.index(here):
                problems.append("%s: calls %s(), defined in src/mpi/%s: src/mpi/%s may not call "
                                "into a folder above it" % (rel, name, there, here))
    return problems


def find_cycle_chains(nodes, edges_of):
    """Every elementary cycle reached by a depth-first search, each once, as a list of
    nodes beginning and ending with the same node."""
    chains, seen_cycles = [], set()
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in edges_of(n):
            if state.get(m) == 1:
                cycle = stack[stack.index(m):] + [m]
                key = frozenset(cycle)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    chains.append(cycle)
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(nodes):
        if n not in state:
            visit(n)
    return chains


def check_header_cycles(graph):
    headers = [f for f in graph if f.endswith(".h")]

    def edges_of(h):
        return sorted({t for _, t, _ in graph.get(h, []) if t.endswith(".h")})

    return [
        "include cycle among headers: %s" % " -> ".join(chain)
        for chain in find_cycle_chains(headers, edges_of)
    ]


def strip_code(text):
    """The text without comments, string and character literals and preprocessor
    lines, so that only C declarations are left."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text


NOT_NAMES = {"if", "while", "for", "switch", "return", "sizeof", "__attribute__",
             "_Alignas", "__typeof__", "typeof", "_Static_assert", "__declspec"}
FUNC_NAME_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def function_name(statement):
    for m in FUNC_NAME_RE.finditer(statement):
        name = m.group(1)
        if name not in NOT_NAMES:
            return name
    return None


def top_level(text):
    """(statement text, ended by) for each top-level statement: ended by ';' for a
    declaration, '{' for a definition with a body (the body is skipped)."""
    out, depth, start, paren = [], 0, 0, 0
    for i, c in enumerate(text):
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "{":
            if depth == 0:
                out.append((text[start:i], "{"))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0 and paren == 0:
            out.append((text[start:i], ";"))
            start = i + 1
    return out


def declared_functions(text):
    names = set()
    for stmt, end in top_level(strip_code(text)):
        s = stmt.strip()
        if end != ";" or "(" not in s or re.match(r"(typedef|static)\b", s):
            continue
        if re.search(r"\(\s*\*", s.split("(")[0] + "(" + s.split("(", 1)[1][:2]):
            continue  # a pointer to a function, not a function
        name = function_name(s)
        if name and "=" not in s.split("(")[0]:
            names.add(name)
    return names


def defined_functions(text):
    names = set()
    for stmt, end in top_level(strip_code(text)):
        s = stmt.strip()
        if end != "{" or not s.endswith(")") and not re.search(r"\)\s*$", s):
            continue
        if re.match(r"(static|typedef|struct|union|enum)\b", s) or "=" in s:
            continue
        name = function_name(s)
        if name:
            names.add(name)
    return names


def same_unit(header, c_file):
    if os.path.dirname(header) != os.path.dirname(c_file):
        return False
    h = os.path.basename(header)[:-2]
    c = os.path.basename(c_file)[:-2]
    # a folder that is one unit (a link: src/link/shm/) has the header named after it;
    # src/mpi's chapter folders hold many units each (src/mpi/pt2pt/pt2pt.h is one)
    if h == os.path.basename(os.path.dirname(header)) and mpi_folder(header) is None:
        return True
    return c == h or c.startswith(h + "_") or h.startswith(c + "_")


def include_path(graph, start, goal):
    """The chain of includes from start to goal (breadth first), or None."""
    prev, queue = {start: None}, [start]
    while queue:
        n = queue.pop(0)
        if n == goal:
            chain = []
            while n is not None:
                chain.append(n)
                n = prev[n]
            return chain[::-1]
        for _, t, _ in graph.get(n, []):
            if t not in prev:
                prev[t] = n
                queue.append(t)
    return None


def check_declaration_cycles(root, graph):
    definitions = {}
    for rel in graph:
        if rel.endswith(".c") and rel.startswith("src/"):
            for name in defined_functions(read(root, rel)):
                definitions.setdefault(name, []).append(rel)
    problems = []
    for header in sorted(f for f in graph if f.endswith(".h") and f.startswith("src/")):
        foreign = {}
        for name in declared_functions(read(root, header)):
            for c_file in definitions.get(name, []):
                if not same_unit(header, c_file):
                    foreign.setdefault(c_file, []).append(name)
        for c_file in sorted(foreign):
            chain = include_path(graph, c_file, header)
            if chain is None:
                continue
            names = sorted(foreign[c_file])
            shown = ", ".join(n + "()" for n in names[:3]) + (", ..." if len(names) > 3 else "")
            problems.append(
                "unit cycle: %s declares %s defined in %s, which includes it: %s"
                % (header, shown, c_file, " -> ".join([header] + chain)))
    return problems


def check(root):
    files = source_files(root)
    graph, unresolved = includes_of(root, files, generated_headers(root))
    problems = ["%s:%d: includes \"%s\", which is no file of the tree" % u for u in unresolved]
    problems += check_layers(graph)
    problems += check_link_folders(graph)
    problems += check_mpi_folders(graph)
    problems += check_mpi_calls(root, graph)
    problems += check_header_cycles(graph)
    problems += check_declaration_cycles(root, graph)
    return problems


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def self_test():
    clean = {
        "include/tollway/api.h": "int tw_api(void);\n",
        "src/runtime/config.h": "int tw_config(void);\n",
        "src/runtime/config.c": '#include "runtime/config.h"\nint tw_config(void) { return 0; }\n',
        "src/link/udp.h": '#include "runtime/config.h"\nint tw_udp(int a);\n',
        "src/link/udp.c": '#include "link/udp.h"\nint tw_udp(int a) { return a; }\n',
        "src/device/velo.h": '#include <tollway/api.h>\n#include "link/udp.h"\n'
                             "int tw_velo(void);\nstatic inline int tw_velo_fast(void) { return 1; }\n",
        "src/device/velo.c": '#include "device/velo.h"\nint tw_velo(void) { return tw_udp(1); }\n',
        "src/device/velo_poll.c": '#include "device/velo.h"\nint tw_api(void) { return 0; }\n',
        "src/mpi/pt2pt/engine.h": "#include <tollway/api.h>\nint mpi_p2p(void);\n",
        "src/mpi/pt2pt/engine.c": '#include "mpi/pt2pt/engine.h"\nint mpi_p2p(void) { return tw_api(); }\n',
        "tools/twrun/server.h": '#include "runtime/config.h"\n',
        "tools/twrun/twrun.c": '#include "server.h"\n#include <stdio.h>\n',
    }
    planted = {
        # layer rules
        "src/mpi/session/init.c": '#include "runtime/config.h"\n',
        "src/link/shm.c": '#include "device/velo.h"\n',
        # a link's folder reached from the device, and from another link's folder
        "src/link/tcp/tcp.h": '#include "runtime/config.h"\n',
        "src/device/reach.c": '#include "link/tcp/tcp.h"\n',
        "src/link/ofi/ofi.c": '#include "link/tcp/tcp.h"\n',
        "tools/twinfo/twinfo.c": '#include "device/velo.h"\n',
        "src/runtime/job.c": '#include "mpi/pt2pt/engine.h"\n',
        # an include cycle of headers
        "src/device/a.h": '#include "device/b.h"\n',
        "src/device/b.h": '#include "device/c.h"\n',
        "src/device/c.h": '#include "device/a.h"\n',
        # a header declaring another unit's function, that unit including it
        "src/mpi/pt2pt/impl.h": "#include <tollway/api.h>\nvoid mpi_match(int x);\n",
        "src/mpi/pt2pt/match.c": '#include "mpi/pt2pt/impl.h"\nvoid mpi_match(int x) { (void)x; }\n',
        "src/mpi/pt2pt/nothing.c": '#include "mpi/missing.h"\n',
        # a folder including one above it, a file in no chapter folder
        "src/mpi/env/base.c": '#include "mpi/pt2pt/engine.h"\n',
        "src/mpi/loose.c": "int tw_loose;\n",
        # a call through the public API into a folder above
        "src/mpi/coll/bcast.c": "int MPI_Bcast(void) { return 0; }\n",
        "src/mpi/pt2pt/send.c": "int tw_send(void) { return MPI_Bcast(); }\n",
    }
    expect = [
        'src/mpi/session/init.c:1: includes "runtime/config.h"',
        'src/link/shm.c:1: includes "device/velo.h"',
        'src/device/reach.c:1: includes "link/tcp/tcp.h" (src/link/tcp/tcp.h): src/device may '
        "include the link table's headers",
        'src/link/ofi/ofi.c:1: includes "link/tcp/tcp.h" (src/link/tcp/tcp.h): src/link/ofi may '
        "not include another link's folder",
        'tools/twinfo/twinfo.c:1: includes "device/velo.h"',
        'src/runtime/job.c:1: includes "mpi/pt2pt/engine.h"',
        "include cycle among headers: src/device/a.h -> src/device/b.h -> src/device/c.h -> src/device/a.h",
        "unit cycle: src/mpi/pt2pt/impl.h declares mpi_match() defined in src/mpi/pt2pt/match.c, "
        "which includes it: src/mpi/pt2pt/impl.h -> src/mpi/pt2pt/match.c -> src/mpi/pt2pt/impl.h",
        'src/mpi/pt2pt/nothing.c:1: includes "mpi/missing.h", which is no file of the tree',
        'src/mpi/env/base.c:1: includes "mpi/pt2pt/engine.h" (src/mpi/pt2pt/engine.h): '
        "src/mpi/env may not include src/mpi/pt2pt, a folder above it",
        "src/mpi/loose.c: is in no chapter folder of src/mpi",
        "src/mpi/pt2pt/send.c: calls MPI_Bcast(), defined in src/mpi/coll",
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        write_tree(d, clean)
        found = check(d)
        if found:
            failures += 1
            print("self-test: a clean tree was reported:\n  " + "\n  ".join(found))
        write_tree(d, planted)
        found = check(d)
        for e in expect:
            if not any(p.startswith(e) for p in found):
                failures += 1
                print("self-test: not caught: " + e)
        if len(found) != len(expect):
            failures += 1
            print("self-test: %d violations expected, %d reported:\n  %s"
                  % (len(expect), len(found), "\n  ".join(found)))
    print("self-test: %s" % ("failed" if failures else "every planted violation caught"))
    return 1 if failures else 0


def main(argv):
    return tree_check.run(argv, check, self_test, "layering", "violation(s)",
                          "every include keeps to its layer, no cycles")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
