#!/usr/bin/env python3
"""Summary of an interleaved run across two hosts (bench/net/compare.sh writes its input).

usage: plot.py RAW_CSV OUTDIR

RAW_CSV rows: mpi,test,size,round,value with test latency (us), bandwidth or
bandwidth-loss (MB/s). Prints per (test, size) the median of the rounds for each MPI and
Tollway's ratio to each peer: the median of the per-round ratios (rounds measure the MPIs
seconds apart, while a whole run spans minutes over which a shared machine's speed drifts),
with its range. Targets (issue 6): latency at most 1.0x Open MPI's TCP path, bandwidth at
least 1.0x at every size from 64 KiB to 4 MiB. Also how much of its bandwidth each MPI keeps
under loss (bandwidth-loss / bandwidth).

Writes OUTDIR/summary.csv and OUTDIR/net.png (bandwidth with and without loss vs size, one
line per MPI), reusing bench/mpi/plot.py's loading, labels and matplotlib lookup."""
import csv
import importlib.util
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "mpiplot", os.path.join(HERE, "..", "mpi", "plot.py"))
mpiplot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mpiplot)

UNITS = {"latency": "us", "bandwidth": "MB/s", "bandwidth-loss": "MB/s", "rate": "msg/s",
         "put": "us", "fadd": "us"}
LOWER = {"latency", "put", "fadd"}  # smaller is better
TARGET = {"latency": 1.0, "bandwidth": 1.0, "rate": 1.0, "put": 1.0, "fadd": 1.0}
PEERS = ("openmpi", "mpich", "openmpi5", "mpich5")  # 5: compare.sh OFI=1


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py RAW_CSV OUTDIR")
    have_mpl = mpiplot.find_matplotlib()
    raw, outdir = sys.argv[1:]
    values, _ = mpiplot.load(raw)
    if not values:
        sys.exit(f"plot.py: no measurements in {raw}")
    med = {k: statistics.median(v.values()) for k, v in values.items() if v}
    order = [m for m in mpiplot.NAMES if any(k[0] == m for k in values)]
    order += sorted({k[0] for k in values} - set(order))  # fi_pingpong: no MPI
    keys = sorted({(t, s) for _, t, s in values},
                  key=lambda k: (list(UNITS).index(k[0]) if k[0] in UNITS else 9, k[1]))

    def ratio(ours, theirs, test, size):
        a, b = values.get((ours, test, size), {}), values.get((theirs, test, size), {})
        rr = [a[r] / b[r] for r in a if r in b and b[r] > 0]
        return (statistics.median(rr), min(rr), max(rr), len(rr)) if rr else None

    peers = [p for p in PEERS if p in order]
    # the target: Open MPI's TCP path over the udp link; over ofi, the better of Open MPI 5
    # and MPICH 5 on the same provider
    judged = {"openmpi"} if "openmpi" in peers else {"openmpi5", "mpich5"}
    name = lambda m: mpiplot.NAMES.get(m, m)
    head = f"{'test':14} {'size':>7} " + " ".join(f"{name(m):>9}" for m in order) + "  unit"
    head += "".join(f"  {'Tollway/' + name(p):>17} {'range':>13}" for p in peers) + "  target met"
    print(head)
    rows = []
    for test, size in keys:
        line = f"{test:14} {mpiplot.size_label(size):>7} "
        line += " ".join(f"{med[(m, test, size)]:9.4g}" if (m, test, size) in med
                         else f"{'-':>9}" for m in order)
        line += f"  {UNITS.get(test, ''):4}"
        row = [test, size, UNITS.get(test, "")] + [
            f"{med[(m, test, size)]:.6g}" if (m, test, size) in med else "" for m in order]
        met = ""
        for p in peers:
            rr = ratio("tollway", p, test, size) if "tollway" in order else None
            if rr:
                line += f"  {rr[0]:17.3f} {rr[1]:5.2f}..{rr[2]:<5.2f}"
                row += [f"{rr[0]:.4f}", f"{rr[1]:.4f}", f"{rr[2]:.4f}", rr[3]]
                if p in judged and test in TARGET:
                    ok = rr[0] <= TARGET[test] if test in LOWER else rr[0] >= TARGET[test]
                    met = "NO" if met == "NO" or not ok else "yes"
            else:
                line += f"  {'-':>17} {'':>13}"
                row += ["", "", "", 0]
        if met:
            sign = "<=" if test in LOWER else ">="
            line += f"  {sign} {TARGET[test]} {met}"
        row.append(met)
        print(line)
        rows.append(row)

    kept = []
    for m in order:
        pairs = [(s, med[(m, "bandwidth-loss", s)] / med[(m, "bandwidth", s)])
                 for (mm, t, s) in med if mm == m and t == "bandwidth-loss"
                 and (m, "bandwidth", s) in med]
        if pairs:
            kept.append(f"{name(m)} " + " ".join(
                f"{mpiplot.size_label(s, '')}:{f:.0%}" for s, f in sorted(pairs)))
    if kept:
        print("bandwidth kept under loss: " + "; ".join(kept))

    summary = os.path.join(outdir, "summary.csv")
    with open(summary, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "unit"] + [f"{m}_median" for m in order]
                   + [f"tollway_{p}_{c}" for p in peers
                      for c in ("ratio", "ratio_min", "ratio_max", "rounds")] + ["target_met"])
        w.writerows(rows)
    print(f"\nraw runs: {raw}\nsummary:  {summary}")

    if not have_mpl:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.7))
    for ax, test, title in ((axes[0], "bandwidth", "Bandwidth across two hosts"),
                            (axes[1], "bandwidth-loss", "Bandwidth, 1 % of packets lost")):
        for m in order:
            pts = sorted((s, med[(mm, t, s)]) for (mm, t, s) in med if mm == m and t == test)
            if pts:
                lat = med.get((m, "latency", 8))
                label = name(m) + (f" (latency 8 B: {lat:.1f} us)" if lat else "")
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                        label=label)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda x, _: mpiplot.size_label(int(round(x)), "")))
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("MB/s")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=7)
    fig.suptitle("mpibench over a veth pair between two network namespaces, medians of the rounds",
                 fontsize=10)
    fig.tight_layout()
    png = os.path.join(outdir, "net.png")
    fig.savefig(png, dpi=110)
    print(f"plot:     {png}")


if __name__ == "__main__":
    main()
