#!/usr/bin/env python3
"""Medians per (system, metric) of an interleaved run, the ratios the issues ask for
and the absolute bounds. usage: summarize.py RAW_CSV SUMMARY_CSV"""
import csv
import statistics
import sys

raw, summary = sys.argv[1], sys.argv[2]
values = {}
with open(raw) as f:
    for system, metric, _round, value in csv.reader(f):
        values.setdefault((system, metric), []).append(float(value))
med = {k: statistics.median(v) for k, v in values.items()}

# (label, ours, theirs, "lower" when smaller is better, target ratio)
comparisons = [
    ("VELO latency 8 B vs UCX am_lat", ("tollway", "velo-latency-8B-us"), ("ucx", "am_lat-8B-us"),
     "lower", 0.9),
    ("VELO rate 8 B vs UCX am_bw", ("tollway", "velo-rate-8B-msgs"), ("ucx", "am_bw-8B-msgs"),
     "higher", 2.0),
    ("put+completer 8 B vs UCX put_lat", ("tollway", "rma-put+completer-8B-us"),
     ("ucx", "put_lat-8B-us"), "lower", 1.5),
    # FCAA is a fetching round trip: UCX fadd is the same kind of operation; UCX add_lat
    # (half round trip of non-fetching adds) is the comparison the issue names.
    ("FCAA vs UCX fadd (fetch round trip)", ("tollway", "rma-fcaa-us"), ("ucx", "fadd-8B-us"),
     "lower", 1.5),
    ("FCAA vs UCX add_lat (one-way add)", ("tollway", "rma-fcaa-us"), ("ucx", "add_lat-8B-us"),
     "lower", 1.5),
    ("put 4 MiB to shared heap vs memcpy", ("tollway", "put-heap-4MiB-MBs"),
     ("tollway", "memcpy-4MiB-MBs"), "higher", 0.8),
    ("get 4 MiB from shared heap vs memcpy", ("tollway", "get-heap-4MiB-MBs"),
     ("tollway", "memcpy-4MiB-MBs"), "higher", 0.8),
]

# (label, measured, "lower" when smaller is better, absolute bound)
bounds = [
    ("reg+dereg, slowest size (us)", ("tollway", "reg-cost-max-us"), "lower", 1.0),
]

print(f"{'system':10} {'metric':26} {'median':>12} {'runs':>5}  values")
for (system, metric), v in sorted(values.items()):
    print(f"{system:10} {metric:26} {med[(system, metric)]:12.4g} {len(v):5}  "
          + " ".join(f"{x:.4g}" for x in v))
print()
print(f"{'comparison':40} {'ratio':>8} {'target':>10}  met")
rows = []
for label, ours, theirs, better, target in comparisons:
    if ours not in med or theirs not in med:
        continue
    ratio = med[ours] / med[theirs]
    met = ratio <= target if better == "lower" else ratio >= target
    sign = "<=" if better == "lower" else ">="
    print(f"{label:40} {ratio:8.3f} {sign + ' ' + str(target):>10}  {'yes' if met else 'NO'}")
    rows.append((label, f"{ratio:.4f}", f"{sign}{target}", "yes" if met else "no"))
for label, key, better, bound in bounds:
    if key not in med:
        continue
    value = med[key]
    met = value < bound if better == "lower" else value > bound
    sign = "<" if better == "lower" else ">"
    print(f"{label:40} {value:8.3f} {sign + ' ' + str(bound):>10}  {'yes' if met else 'NO'}")
    rows.append((label, f"{value:.4f}", f"{sign}{bound}", "yes" if met else "no"))
if "velo-rate-8B-msgs" in {m for _, m in med}:
    thesis = med[("tollway", "velo-rate-8B-msgs")] / 5.5e6
    print(f"{'VELO rate 8 B vs thesis 5.5e6/s':40} {thesis:8.3f} {'>= 4':>10}  "
          f"{'yes' if thesis >= 4 else 'NO'}")
    rows.append(("VELO rate 8 B vs thesis 5.5e6/s", f"{thesis:.4f}", ">=4",
                 "yes" if thesis >= 4 else "no"))
with open(summary, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["comparison", "ratio", "target", "met"])
    w.writerows(rows)
print(f"\nraw runs: {raw}\nsummary:  {summary}")
