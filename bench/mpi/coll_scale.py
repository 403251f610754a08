#!/usr/bin/env python3
"""Summary of a collectives-at-scale run (bench/mpi/coll_scale.sh writes its input).

usage: coll_scale.py RAW_CSV OUTDIR

RAW_CSV: mpi,test,size,ranks,round,us,seconds,probe_before,probe_after,note, one row per
run (us empty when the run is missing; note says why). A run framed by placement probes
is clean when both read within 25 % of the median of all probes (plot.py's rule); other
runs are left out and counted. A run without probes (coll_scale.sh frames only runs with
a core per rank) is kept.

For each cell (collective, size, ranks): each MPI's median over its clean rounds, and
the ratio Tollway / the peer (bench/peers.sh: Open MPI 4.1 and 5, MPICH 4.0 and 5, Intel
MPI) with the lower median, as the median of the per-round ratios over the rounds clean
for both, with its range; the table's letter names that peer. Without Tollway: the first
peer / the better of the others. Below 1, Tollway is faster.

Writes OUTDIR/summary.csv (every cell: medians, clean, left-out and missing rounds,
the ratio), OUTDIR/ratios.md (the table of ratios by collective, size and rank count,
with the missing runs and why) and OUTDIR/coll_scale.png (the ratio against the rank
count, a panel per collective, a line per size); prints the table."""
import csv
import os
import statistics
import sys

from plot import (NAMES, PEERS, find_matplotlib, probe_pair, probes_clean, raw_rows, round_ratio,
                  size_label)

COLUMNS = ["mpi", "test", "size", "ranks", "round", "us", "seconds", "probe_before",
           "probe_after", "note"]


def load(path):
    """values[(mpi, test, size, ranks)][round] = us, probes[(same..., round)] = [before,
    after] (None where absent), notes[(mpi, test, size, ranks)] = [note, ...],
    seconds[mpi] = the wall time of all its runs"""
    values, probes, notes, seconds = {}, {}, {}, {}

    def take(row):
        size = int(row["size"]) if row["size"] else None
        ranks = int(row["ranks"]) if row["ranks"] else None
        key = (row["mpi"], row["test"], size, ranks)
        if row["seconds"]:
            seconds[row["mpi"]] = seconds.get(row["mpi"], 0.0) + float(row["seconds"])
        if row["note"]:
            notes.setdefault(key, []).append(row["note"])
        if row["us"]:
            values.setdefault(key, {})[row["round"]] = float(row["us"])
            probes[key + (row["round"],)] = probe_pair(row)

    raw_rows(path, COLUMNS, "coll_scale.py", "a coll_scale.sh raw.csv", take)
    return values, probes, notes, seconds


def title(test):
    return "MPI_" + test.capitalize()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: coll_scale.py RAW_CSV OUTDIR")
    have_mpl = find_matplotlib()
    raw, outdir = sys.argv[1:]
    values, probes, notes, seconds = load(raw)
    if not values and not notes:
        sys.exit(f"coll_scale.py: no runs in {raw}")

    seen = [v for pair in probes.values() for v in pair if v is not None]
    probe_median = statistics.median(seen) if seen else None
    kept, left_out = {}, {}
    for key, by_round in values.items():
        kept[key] = {r: v for r, v in by_round.items()
                     if probes[key + (r,)] == [None, None]  # not framed: not judged
                     or probes_clean(probes[key + (r,)], probe_median)}
        left_out[key] = len(by_round) - len(kept[key])
    med = {k: statistics.median(v.values()) for k, v in kept.items() if v}

    mpis = [m for m in NAMES if any(k[0] == m for k in values)]
    mpis += sorted({k[0] for k in values} - set(mpis))
    tests = []  # in the order the run took them
    for key in list(values) + list(notes):
        if key[1] not in tests:
            tests.append(key[1])
    cells = sorted({k[1:] for k in values} | {k[1:] for k in notes if k[3] is not None},
                   key=lambda c: (tests.index(c[0]), c[1], c[2]))
    all_ranks = sorted({c[2] for c in cells})

    if "tollway" in mpis and any(p in mpis for p in PEERS):
        ours, peers = "tollway", [p for p in PEERS if p in mpis]
    elif sum(p in mpis for p in PEERS) >= 2:
        ours, *peers = [p for p in PEERS if p in mpis]
    else:
        ours, peers = None, []
    ratios = {}  # cell -> (peer, (median, min, max, rounds)); (None, None): no clean pair
    for test, size, ranks in cells:
        if ours is None or (ours, test, size, ranks) not in values or not any(
                (p, test, size, ranks) in values for p in peers):
            continue
        have = [p for p in peers if (p, test, size, ranks) in med]
        if not have or (ours, test, size, ranks) not in med:
            ratios[(test, size, ranks)] = (None, None)
            continue
        peer = min(have, key=lambda p: med[(p, test, size, ranks)])
        ratios[(test, size, ranks)] = (peer, round_ratio(kept[(ours, test, size, ranks)],
                                                         kept[(peer, test, size, ranks)]))

    # the table: a row per collective and size, a column per rank count
    initial = {"openmpi": "O", "mpich": "M", "openmpi5": "O5", "mpich5": "M5", "impi": "I"}
    rows, cell_set = [], set(cells)
    for test, size in dict.fromkeys((c[0], c[1]) for c in cells):
        row = [title(test), size_label(size) if test != "barrier" else ""]
        for ranks in all_ranks:
            r = ratios.get((test, size, ranks))
            if ours is None:  # nothing to compare: the one MPI's medians
                k = (mpis[0], test, size, ranks) if mpis else None
                row.append(f"{med[k]:.4g}" if k in med else "?" if k in values else
                           "-" if (test, size, ranks) in cell_set else "")
            elif r and r[1]:
                row.append(f"{r[1][0]:.2f} {initial.get(r[0], r[0])}")
            elif r:
                row.append("?")  # figures of both, but no round clean for both
            elif (test, size, ranks) in cell_set:
                row.append("-")
            else:
                row.append("")
        rows.append(row)
    head = ["collective", "size"] + [f"{n} ranks" for n in all_ranks]
    against = (NAMES.get(peers[0], peers[0]) if len(peers) == 1 else
               "the better of " + " and ".join(NAMES.get(p, p) for p in peers))
    if ours:
        what = (f"{NAMES.get(ours, ours)} / {against}: the median of the per-round ratios "
                f"(against the MPI with the lower median; letters: O Open MPI 4.1, O5 Open MPI 5, M "
                f"MPICH 4.0, M5 MPICH 5, I Intel MPI); below 1, "
                f"{NAMES.get(ours, ours)} is faster. -: a figure is missing; ?: no round clean "
                f"for both (the placement probe left the runs out).")
    elif mpis:
        what = (f"{NAMES.get(mpis[0], mpis[0])}, us per call (median over clean rounds; no "
                "ratios: the run has neither Tollway and a peer nor both peers). -: missing; ?: "
                "the placement probe left every run out.")
    else:
        what = "No figures: every run is missing."
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    table += ["| " + " | ".join(r) + " |" for r in rows]

    if probe_median is not None:
        n_framed = sum(1 for p in probes.values() if p != [None, None])
        n_out = sum(left_out.values())
        print(f"placement probe: median {probe_median:.3f} us; {n_out} of the {n_framed} "
              "runs it framed left out (> 25 % off)")
    widths = [max(len(x[i]) for x in [head] + rows) for i in range(len(head))]
    print(what)
    for r in [head] + rows:
        print("  ".join(f"{x:<{w}}" if i < 2 else f"{x:>{w}}" for i, (x, w) in
                        enumerate(zip(r, widths))))

    missing = []
    for (mpi, test, size, ranks), ns in sorted(notes.items(), key=lambda kv: (
            kv[0][0], tests.index(kv[0][1]), kv[0][2] or 0, kv[0][3] or 0)):
        where = title(test) if mpi == "all" else f"{NAMES.get(mpi, mpi)} {title(test)}"
        if size is not None and test != "barrier":
            where += f" {size_label(size)}"
        if ranks is not None:
            where += f", {ranks} ranks"
        for note in dict.fromkeys(ns):
            count = ns.count(note)
            missing.append(f"{where}: {note}" + (f" ({count} runs)" if count > 1 else ""))
    if missing:
        print("\nmissing:")
        for m in missing:
            print("  " + m)
    if seconds:
        print("\nwall time of the runs: " + ", ".join(
            f"{NAMES.get(m, m)} {seconds[m]:.0f} s"
            for m in mpis + sorted(set(seconds) - set(mpis)) if m in seconds))

    with open(os.path.join(outdir, "ratios.md"), "w") as f:
        f.write(what + "\n\n" + "\n".join(table) + "\n")
        if missing:
            f.write("\nMissing runs:\n\n" + "".join(f"- {m}\n" for m in missing))

    summary = os.path.join(outdir, "summary.csv")
    with open(summary, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "ranks"]
                   + [f"{m}_{c}" for m in mpis for c in ("us", "rounds", "left_out", "missing")]
                   + ["ratio_of", "ratio", "ratio_min", "ratio_max", "ratio_rounds"])
        for test, size, ranks in cells:
            row = [test, size, ranks]
            for m in mpis:
                k = (m, test, size, ranks)
                row += [f"{med[k]:.6g}" if k in med else "", len(kept.get(k, {})),
                        left_out.get(k, 0), len(notes.get(k, []))]
            r = ratios.get((test, size, ranks))
            if r and r[1]:
                row += [f"{ours}/{r[0]}", f"{r[1][0]:.4f}", f"{r[1][1]:.4f}", f"{r[1][2]:.4f}",
                        r[1][3]]
            w.writerow(row)
    print(f"\nraw runs: {raw}\nsummary:  {summary}\ntable:    {os.path.join(outdir, 'ratios.md')}")

    ratios = {c: r for c, r in ratios.items() if r[1]}  # what the plot shows
    if not have_mpl or not ratios:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator, NullFormatter,
                                   NullLocator)

    plotted = [t for t in tests if any(c[0] == t for c in ratios)]
    sizes = sorted({c[1] for c in ratios if c[0] != "barrier"})
    cols = min(len(plotted), 4)
    nrows = (len(plotted) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(max(4.2 * cols, 9), 3.4 * nrows), squeeze=False,
                             sharey=True)
    legend_shown = False
    for ax, test in zip(axes.flat, plotted):
        for size in ([0] if test == "barrier" else sizes):
            pts = sorted((c[2], r[1]) for c, r in ratios.items()
                         if c[0] == test and c[1] == size and r[1])
            if not pts:
                continue
            x = [p[0] for p in pts]
            y = [p[1][0] for p in pts]
            err = [[p[1][0] - p[1][1] for p in pts], [p[1][2] - p[1][0] for p in pts]]
            colour = "C0" if test == "barrier" else f"C{sizes.index(size)}"
            ax.errorbar(x, y, yerr=err, marker="o", markersize=3, capsize=2, linewidth=1.2,
                        elinewidth=0.6, color=colour,
                        label="" if test == "barrier" else size_label(size))
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(all_ranks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(n) for n in all_ranks])
        ax.set_xlim(all_ranks[0] / 1.4, all_ranks[-1] * 1.4)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(title(test), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[1] and not legend_shown:  # the sizes, once
            ax.legend(fontsize=7)
            legend_shown = True
    for ax in axes.flat[len(plotted):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("ranks")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{NAMES.get(ours, ours)} / " + ("better peer" if len(peers) > 1
                                                        else NAMES.get(peers[0], peers[0])))
    fig.suptitle(f"{NAMES.get(ours, ours)} / {against}, time per call: below 1, "
                 f"{NAMES.get(ours, ours)} is faster\n(median of the per-round ratios; bars: "
                 "their range over the rounds)", fontsize=10)
    fig.tight_layout()
    png = os.path.join(outdir, "coll_scale.png")
    fig.savefig(png, dpi=110)
    print(f"plot:     {png}")


if __name__ == "__main__":
    main()
