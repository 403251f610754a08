#!/usr/bin/env python3
"""Medians per (system, metric) of an interleaved run, the ratios the issues ask for
and the absolute bounds. usage: summarize.py RAW_CSV SUMMARY_CSV

A ratio is the median of the per-round ratios: each round measures both systems
seconds apart, while over a whole run the virtual machine's placement of its two
cores changes (two sibling hyperthreads make every latency 3x shorter), so a ratio
of whole-run medians can compare one system in one placement with the other in
another. The spread of the per-round ratios is shown beside it."""
import csv
import statistics
import sys

raw, summary = sys.argv[1], sys.argv[2]
values = {}
by_round = {}
with open(raw) as f:
    for system, metric, rnd, value in csv.reader(f):
        values.setdefault((system, metric), []).append(float(value))
        by_round.setdefault((system, metric), {})[rnd] = float(value)
med = {k: statistics.median(v) for k, v in values.items()}


def round_ratios(pair, ours, theirs):
    """ours/theirs for every clean round that measured both, and the rounds left out."""
    a, b = by_round[ours], by_round[theirs]
    both = [r for r in a if r in b and b[r] > 0]
    kept = [r for r in both if clean(pair, r)]
    return [a[r] / b[r] for r in kept], len(both) - len(kept)

# (label, pair, ours, theirs, "lower" when smaller is better, target ratio)
comparisons = [
    ("VELO latency 8 B vs UCX am_lat", "velo-latency", ("tollway", "velo-latency-8B-us"),
     ("ucx", "am_lat-8B-us"), "lower", 0.9),
    ("VELO rate 8 B vs UCX am_bw", "velo-rate", ("tollway", "velo-rate-8B-msgs"),
     ("ucx", "am_bw-8B-msgs"), "higher", 2.0),
    ("put+completer 8 B vs UCX put_lat", "rma-put", ("tollway", "rma-put+completer-8B-us"),
     ("ucx", "put_lat-8B-us"), "lower", 1.5),
    # FCAA is a fetching round trip: UCX fadd is the same kind of operation; UCX add_lat
    # (half round trip of non-fetching adds) is the comparison the issue names.
    ("FCAA vs UCX fadd (fetch round trip)", "rma-fcaa", ("tollway", "rma-fcaa-us"),
     ("ucx", "fadd-8B-us"), "lower", 1.5),
    ("FCAA vs UCX add_lat (one-way add)", "rma-fcaa", ("tollway", "rma-fcaa-us"),
     ("ucx", "add_lat-8B-us"), "lower", 1.5),
    ("put 4 MiB to shared heap vs memcpy", "rma-bw", ("tollway", "put-heap-4MiB-MBs"),
     ("tollway", "memcpy-4MiB-MBs"), "higher", 0.8),
    ("get 4 MiB from shared heap vs memcpy", "rma-bw", ("tollway", "get-heap-4MiB-MBs"),
     ("tollway", "memcpy-4MiB-MBs"), "higher", 0.8),
]

# A pair is clean when the placement probe before and after it both read within 25 %
# of the run's median probe: the two cores stayed where they usually are.
probes = [v for (system, _), v in values.items() if system == "probe" for v in v]
probe_median = statistics.median(probes) if probes else None


def clean(pair, rnd):
    if probe_median is None:
        return True
    seen = [by_round.get(("probe", f"{pair}-{when}"), {}).get(rnd) for when in ("before", "after")]
    return all(v is not None and abs(v / probe_median - 1) <= 0.25 for v in seen)

# (label, measured, "lower" when smaller is better, absolute bound)
bounds = [
    ("reg+dereg, slowest size (us)", ("tollway", "reg-cost-max-us"), "lower", 1.0),
]

print(f"{'system':10} {'metric':26} {'median':>12} {'runs':>5}  values")
for (system, metric), v in sorted(values.items()):
    if system == "probe":
        continue
    print(f"{system:10} {metric:26} {med[(system, metric)]:12.4g} {len(v):5}  "
          + " ".join(f"{x:.4g}" for x in v))
print()
if probe_median is not None:
    print(f"placement probe: median {probe_median:.3f} us one-way over {len(probes)} probes")
print(f"{'comparison':40} {'ratio':>8} {'target':>10}  met   rounds  per-round range")
rows = []
for label, pair, ours, theirs, better, target in comparisons:
    if ours not in med or theirs not in med:
        continue
    rr, left_out = round_ratios(pair, ours, theirs)
    sign = "<=" if better == "lower" else ">="
    if not rr:
        print(f"{label:40} {'-':>8} {sign + ' ' + str(target):>10}  ?     0 clean ({left_out} left out)")
        continue
    ratio = statistics.median(rr)
    met = ratio <= target if better == "lower" else ratio >= target
    print(f"{label:40} {ratio:8.3f} {sign + ' ' + str(target):>10}  {'yes' if met else 'NO ':3}"
          f"   {len(rr)}+{left_out}  {min(rr):.3f} .. {max(rr):.3f}")
    rows.append((label, f"{ratio:.4f}", f"{sign}{target}", "yes" if met else "no", len(rr),
                 left_out))
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
    w.writerow(["comparison", "ratio", "target", "met", "clean_rounds", "rounds_left_out"])
    w.writerows(rows)
print(f"\nraw runs: {raw}\nsummary:  {summary}")
