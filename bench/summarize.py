#!/usr/bin/env python3
"""Medians per (system, metric) of an interleaved run, and the ratios the issues
ask for. usage: summarize.py RAW_CSV SUMMARY_CSV"""
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
]

print(f"{'system':10} {'metric':22} {'median':>12} {'runs':>5}  values")
for (system, metric), v in sorted(values.items()):
    print(f"{system:10} {metric:22} {med[(system, metric)]:12.4g} {len(v):5}  "
          + " ".join(f"{x:.4g}" for x in v))
print()
print(f"{'comparison':34} {'ratio':>8} {'target':>10}  met")
rows = []
for label, ours, theirs, better, target in comparisons:
    if ours not in med or theirs not in med:
        continue
    ratio = med[ours] / med[theirs]
    met = ratio <= target if better == "lower" else ratio >= target
    sign = "<=" if better == "lower" else ">="
    print(f"{label:34} {ratio:8.3f} {sign + ' ' + str(target):>10}  {'yes' if met else 'NO'}")
    rows.append((label, f"{ratio:.4f}", f"{sign}{target}", "yes" if met else "no"))
if "velo-rate-8B-msgs" in {m for _, m in med}:
    thesis = med[("tollway", "velo-rate-8B-msgs")] / 5.5e6
    print(f"{'VELO rate 8 B vs thesis 5.5e6/s':34} {thesis:8.3f} {'>= 4':>10}  "
          f"{'yes' if thesis >= 4 else 'NO'}")
    rows.append(("VELO rate 8 B vs thesis 5.5e6/s", f"{thesis:.4f}", ">=4",
                 "yes" if thesis >= 4 else "no"))
with open(summary, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["comparison", "ratio", "target", "met"])
    w.writerows(rows)
print(f"\nraw runs: {raw}\nsummary:  {summary}")
