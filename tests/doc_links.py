#!/usr/bin/env python3
"""Checks that README.md and docs/*.md point only at files that exist.

Two kinds of reference are checked: relative Markdown links ([text](path), anchors
stripped; web addresses are left alone), taken relative to the document, and paths of
the repository written as code (`src/link/udp.c`, `docs/bench/*.png`), taken
relative to the root; build/ paths are products of the build and not checked.
Prints each reference that names no file and exits 1 when there is one.
`doc_links.py --self-test` plants broken references in a small tree and fails when
one goes unnoticed.
"""

import glob
import os
import re
import sys
import tempfile

import tree_check  # tests/: the command line the checkers share

LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_RE = re.compile(r"`([^`\s]+)`")
TREE_TOPS = ("src", "tests", "bench", "docs", "include", "tools", "examples", ".ci")
PATH_RE = re.compile(r"^(%s)/[\w./*+-]*$" % "|".join(re.escape(t) for t in TREE_TOPS))


def documents(root):
    docs = [os.path.join(root, "README.md")]
    docs += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    return [d for d in docs if os.path.isfile(d)]


def strip_fences(text):
    """Code blocks hold commands and code, not references: blanked, lines kept."""
    return re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)


def check(root):
    problems = []
    for doc in documents(root):
        rel_doc = os.path.relpath(doc, root)
        with open(doc, encoding="utf-8") as f:
            text = strip_fences(f.read())
        for m in LINK_RE.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            line = text.count("\n", 0, m.start()) + 1
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(doc), path))):
                problems.append("%s:%d: link to %s: no such file" % (rel_doc, line, target))
        for m in CODE_RE.finditer(text):
            path = m.group(1).rstrip(".,:;")
            if not PATH_RE.match(path):
                continue
            line = text.count("\n", 0, m.start()) + 1
            if not glob.glob(os.path.join(root, path)):
                problems.append("%s:%d: path %s: no such file" % (rel_doc, line, path))
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "docs", "bench"))
        os.makedirs(os.path.join(d, "src", "link"))
        for f in ("docs/bench/a.png", "src/link/udp.c", "docs/testing.md"):
            open(os.path.join(d, f), "w").close()
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("[t](docs/testing.md#labels) [w](https://example.org/x) `src/link/udp.c`\n"
                    "`docs/bench/*.png` `build/bin/twrun` `-n`\n"
                    "```\n[not a link](nowhere.md) `src/nowhere.c`\n```\n")
        with open(os.path.join(d, "docs", "perf.md"), "w") as f:
            f.write("[up](../README.md) [plot](bench/a.png)\n")
        clean = check(d)
        with open(os.path.join(d, "README.md"), "a") as f:
            f.write("[gone](docs/gone.md) `src/link/shm.c` `docs/bench/*.svg`\n")
        with open(os.path.join(d, "docs", "perf.md"), "a") as f:
            f.write("[plot](bench/b.png)\n")
        broken = check(d)
    failures = 0
    if clean:
        failures += 1
        print("self-test: a clean tree was reported:\n  " + "\n  ".join(clean))
    for e in ("README.md:6: link to docs/gone.md", "README.md:6: path src/link/shm.c",
              "README.md:6: path docs/bench/*.svg", "docs/perf.md:2: link to bench/b.png"):
        if not any(p.startswith(e) for p in broken):
            failures += 1
            print("self-test: not caught: " + e)
    if len(broken) != 4:
        failures += 1
        print("self-test: 4 broken references expected, reported:\n  " + "\n  ".join(broken))
    print("self-test: %s" % ("failed" if failures else "every planted broken reference caught"))
    return 1 if failures else 0


def main(argv):
    return tree_check.run(argv, check, self_test, "doc_links", "broken reference(s)",
                          "every link and path in README.md and docs/*.md names a file")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
