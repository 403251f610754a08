#!/usr/bin/env python3
"""The table of an A/B run: rows "build,round,program,test,size,value,unit" (a
program's --csv lines behind the build's label and the round), one line per test and
size with each build's median and the median (and range) of its per-round ratios to
the first, and the geometric mean of those medians.

usage: ab_summary.py CSV LABEL[=NAME] LABEL[=NAME] ...   (the first is the baseline)"""
import csv
import statistics
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    labels = [a.split("=", 1)[0] for a in sys.argv[2:]]
    names = [a.split("=", 1)[-1] for a in sys.argv[2:]]
    v = {}
    for row in csv.reader(open(sys.argv[1])):
        if len(row) != 7:
            continue
        b, r, prog, t, size, val, unit = row
        v.setdefault((prog, t, int(size), unit), {}).setdefault(b, {})[r] = float(val)
    base = labels[0]
    # the program column only when rows come from more than one (e.g. rank counts)
    progs = len({k[0] for k in v}) > 1
    print(("| program " if progs else "") + "| test | size | " + " | ".join(names) + " | " +
          " | ".join(f"{x}/{base}" for x in labels[1:]) + " | unit |")
    print("|---" * (3 + progs + 2 * len(labels) - 1) + "|")
    logs = {x: [] for x in labels[1:]}
    for (prog, t, size, unit), by in sorted(v.items()):
        a = by.get(base, {})
        med = lambda x: f"{statistics.median(by[x].values()):.4g}" if by.get(x) else "-"

        def ratio(x):
            rs = [by[x][r] / a[r] for r in a if r in by.get(x, {}) and a[r]]
            if not rs:
                return "-"
            logs[x].append(statistics.median(rs))
            return f"{statistics.median(rs):.3f} ({min(rs):.2f}-{max(rs):.2f})"
        print((f"| {prog} " if progs else "") + f"| {t} | {size} | " +
              " | ".join(med(x) for x in labels) + " | " +
              " | ".join(ratio(x) for x in labels[1:]) + f" | {unit} |")
    for x, rs in logs.items():
        if rs:
            print(f"\n{x}/{base}: geometric mean of the cells' ratios {statistics.geometric_mean(rs):.3f}"
                  f" over {len(rs)} cells")


if __name__ == "__main__":
    main()
