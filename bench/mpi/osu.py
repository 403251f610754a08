#!/usr/bin/env python3
"""Summary of an OSU run (bench/mpi/osu.sh writes its input).

usage: osu.py RAW_CSV OUTDIR

RAW_CSV: mpi,test,size,ranks,round,value,probe_before,probe_after,note; a row per figure
(value empty and note saying why for a missing run). This machine places its two cores
in one of two ways (apart, or on sibling hyperthreads, 3x shorter latencies) and
switches between them within minutes, so the probes framing the runs are not judged
against one median (plot.py's rule, which a run in both placements leaves with nothing):
a run is clean when its two probes agree within 25 % (the placement held), and a round's
ratio counts only when Tollway's run and the peer's were in one placement (their probes
within 25 % of each other). Unframed runs (more ranks than cores) are kept.

For each cell (test, size, ranks): each MPI's median over its clean rounds, and the
ratio Tollway / the best peer of the cell (bench/peers.sh's MPIs; the lower time, or
the higher bandwidth or message rate), as the median of the per-round ratios over the
rounds that count, with its range; "met" says whether Tollway is at least as good as
that peer (ratio <= 1 for times, >= 1 for bandwidths and rates).

Writes OUTDIR/summary.csv (every cell) and OUTDIR/osu.md (the table), and prints the
table and a count of the cells met per test."""
import csv
import os
import statistics
import sys

from plot import NAMES, PEERS, probe_pair, raw_rows, round_ratio, size_label

SLACK = 0.25


def agree(a, b):
    return a is not None and b is not None and abs(a / b - 1) <= SLACK


def placement(pr):
    """The probe of a run: the mean of its two (None: unframed, or the placement moved)."""
    if pr == [None, None]:
        return "unframed"
    if not agree(pr[0], pr[1]):
        return None
    return (pr[0] + pr[1]) / 2

COLUMNS = ["mpi", "test", "size", "ranks", "round", "value", "probe_before", "probe_after",
           "note"]
HIGHER = {"bw", "bibw", "mbw_mr", "put_bw", "get_bw"}  # bigger is better
UNITS = {"bw": "MB/s", "bibw": "MB/s", "put_bw": "MB/s", "get_bw": "MB/s",
         "mbw_mr": "msg/s"}


def load(path):
    values, probes, notes = {}, {}, {}

    def take(row):
        if row["note"]:
            notes.setdefault((row["mpi"], row["test"], int(row["ranks"])), []).append(row["note"])
        if row["value"]:
            key = (row["mpi"], row["test"], int(row["size"]), int(row["ranks"]))
            values.setdefault(key, {})[row["round"]] = float(row["value"])
            probes[key + (row["round"],)] = probe_pair(row)

    raw_rows(path, COLUMNS, "osu.py", "an osu.sh raw.csv", take)
    return values, probes, notes


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: osu.py RAW_CSV OUTDIR")
    raw, outdir = sys.argv[1:]
    values, probes, notes = load(raw)
    if not values:
        sys.exit(f"osu.py: no figures in {raw}")
    where = {k: placement(pr) for k, pr in probes.items()}
    kept = {k: {r: v for r, v in by_round.items() if where[k + (r,)] is not None}
            for k, by_round in values.items()}

    def same_placement(a, b):
        """The rounds of a and b (keys) whose runs were in one placement."""
        rounds = {}
        for r, v in kept.get(a, {}).items():
            if r not in kept.get(b, {}):
                continue
            pa, pb = where[a + (r,)], where[b + (r,)]
            if pa == pb == "unframed" or (pa != "unframed" and pb != "unframed" and agree(pa, pb)):
                rounds[r] = v
        return rounds, {r: kept[b][r] for r in rounds}
    med = {k: statistics.median(v.values()) for k, v in kept.items() if v}
    mpis = [m for m in NAMES if any(k[0] == m for k in values)]
    peers = [m for m in PEERS if m in mpis]
    tests = list(dict.fromkeys(k[1] for k in values))
    cells = sorted({k[1:] for k in values}, key=lambda c: (tests.index(c[0]), c[2], c[1]))

    rows, met_count = [], {}
    for test, size, ranks in cells:
        higher = test in HIGHER
        have = [p for p in peers if (p, test, size, ranks) in med]
        row = {"test": test, "size": size, "ranks": ranks, "unit": UNITS.get(test, "us")}
        for m in mpis:
            row[m] = med.get((m, test, size, ranks))
        row["best"], row["ratio"], row["met"] = None, None, ""
        if have and ("tollway", test, size, ranks) in med:
            pick = max if higher else min
            best = pick(have, key=lambda p: med[(p, test, size, ranks)])
            rr = round_ratio(*same_placement(("tollway", test, size, ranks),
                                             (best, test, size, ranks)))
            row["best"], row["ratio"] = best, rr
            if rr:
                ok = rr[0] >= 1.0 if higher else rr[0] <= 1.0
                row["met"] = "yes" if ok else "NO"
                n_ok, n_all = met_count.get((test, ranks), (0, 0))
                met_count[(test, ranks)] = (n_ok + ok, n_all + 1)
        rows.append(row)

    head = ["test", "ranks", "size", "unit"] + [NAMES.get(m, m) for m in mpis] + [
        "best peer", "Tollway / best", "range", "met"]
    lines = []
    for row in rows:
        rr = row["ratio"]
        lines.append([row["test"], str(row["ranks"]), size_label(row["size"]), row["unit"]]
                     + [f"{row[m]:.4g}" if row[m] is not None else "-" for m in mpis]
                     + [NAMES.get(row["best"], "-") if row["best"] else "-",
                        f"{rr[0]:.3f}" if rr else "-",
                        f"{rr[1]:.3f}..{rr[2]:.3f}" if rr else "", row["met"]])
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    n_out = sum(len(values[k]) - len(kept[k]) for k in values)
    print(f"placement probe: {n_out} figures left out (their two probes more than 25 % "
          "apart); ratios only from rounds with both runs in one placement")
    for r in [head] + lines:
        print("  ".join(f"{x:<{w}}" if i < 4 else f"{x:>{w}}" for i, (x, w) in
                        enumerate(zip(r, widths))))
    if met_count:
        print("\ncells where Tollway is at least as good as the best peer:")
        for (test, ranks), (n_ok, n_all) in met_count.items():
            print(f"  {test} ({ranks} ranks): {n_ok} of {n_all}")
    if notes:
        print("\nmissing:")
        for (mpi, test, ranks), ns in notes.items():
            for note in dict.fromkeys(ns):
                print(f"  {NAMES.get(mpi, mpi)} {test}, {ranks} ranks: {note} "
                      f"({ns.count(note)} runs)")

    with open(os.path.join(outdir, "osu.md"), "w") as f:
        f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        f.writelines("| " + " | ".join(r) + " |\n" for r in lines)
    summary = os.path.join(outdir, "summary.csv")
    with open(summary, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "ranks", "unit"] + [f"{m}_median" for m in mpis]
                   + ["best_peer", "ratio", "ratio_min", "ratio_max", "ratio_rounds", "met"])
        for row in rows:
            rr = row["ratio"]
            w.writerow([row["test"], row["size"], row["ranks"], row["unit"]]
                       + [f"{row[m]:.6g}" if row[m] is not None else "" for m in mpis]
                       + [row["best"] or ""]
                       + ([f"{rr[0]:.4f}", f"{rr[1]:.4f}", f"{rr[2]:.4f}", rr[3]] if rr
                          else ["", "", "", ""]) + [row["met"]])
    print(f"\nraw runs: {raw}\nsummary:  {summary}\ntable:    {os.path.join(outdir, 'osu.md')}")


if __name__ == "__main__":
    main()
