#!/usr/bin/env python3
"""The mpi_f08 module's procedures declare each parameter with the INTENT and the
ASYNCHRONOUS the standard's mpi_f08 binding gives it (src/mpi/bindings/standard.json,
extracted from the MPI Forum's description), so a program written to the standard
compiles against it as it does against the peers'.
usage: f08_attributes.py STANDARD_JSON MPI_F08_MODULE_SOURCE"""
import json
import re
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
standard = {}
for d in json.load(open(sys.argv[1]))["procedures"]:
    if "f08" in d:
        standard.setdefault(d["name"].lower(), []).append(
            {n.lower(): (intent, bool(asyn)) for n, intent, asyn in d["f08"]})

checked, wrong, extra = 0, [], []
current, params = None, None
text = open(sys.argv[2]).read().replace("&\n", " ")
for line in text.split("\n"):
    head = re.match(r"\s*(?:\w+(?:\([^)]*\))?\s+)*?(?:SUBROUTINE|FUNCTION)\s+MPI_(\w+?)_f08\s*\(", line)
    if head:
        current, params = "mpi_" + head.group(1).lower(), {}
        continue
    if current and re.match(r"\s*END\s+(SUBROUTINE|FUNCTION)", line):
        # the large-count form (MPI_Send_c) is the standard's second f08 of MPI_Send
        forms = standard.get(current.removesuffix("_c"), [])
        form = forms[-1] if current.endswith("_c") and len(forms) > 1 else (forms[0] if forms else None)
        if form is None:  # a deprecated call the standard gives no mpi_f08 form
            extra.append(current)
        else:
            for n, got in params.items():
                if n in form:
                    checked += 1
                    if got != form[n]:
                        wrong.append(f"{current}({n}): INTENT {got[0] or '-'}"
                                     f"{', ASYNCHRONOUS' if got[1] else ''}; the standard: "
                                     f"INTENT {form[n][0] or '-'}{', ASYNCHRONOUS' if form[n][1] else ''}")
        current = None
        continue
    if current and "::" in line:
        attrs, names = line.split("::", 1)
        intent = re.search(r"INTENT\((\w+)\)", attrs, re.I)
        got = (intent.group(1).upper() if intent else "", "ASYNCHRONOUS" in attrs.upper())
        for n in re.findall(r"(\w+)(?:\([^)]*\))?", names.split("!")[0]):
            params[n.lower()] = got
for w in wrong:
    print("f08_attributes:", w)
print(f"f08_attributes: {checked} parameters checked, {len(wrong)} differ from the standard; "
      f"{len(extra)} procedures the standard has no mpi_f08 form of ({', '.join(sorted(set(extra)))})")
sys.exit(1 if wrong or checked < 1000 else 0)
