#!/usr/bin/env python3
"""Table, summary and plot of an MPI-IO comparison (bench/io/compare.sh writes its input).

usage: summary.py RAW_CSV OUTDIR

RAW_CSV rows: mpi,fs,nprocs,round,pattern,mode,op,bytes,best_s,median_s,mb_s; one row per
iobench line (mb_s is the median of that run's repetitions), and the file system's ceiling
as rows of mpi "dd" (pattern dd, mode -).

A cell is the median over the rounds of an MPI's MB/s (10^6 bytes/s, all ranks together).
With Tollway, the ratio is Tollway / the better peer (the peer with the higher median):
the median of the per-round ratios, since rounds measure the MPIs minutes apart at most
while a whole run spans long enough for a shared machine's speed to drift. "of dd" is the
best MPI's median over the dd ceiling of the same file system, ranks and op: near or above
1 means the cell is at the file system's own limit.

Each Tollway cell also counts the rounds in which Tollway was at or above that peer,
and a two-sided sign test over the rounds says whether a ratio below 1 is more than the
rounds' noise: "behind" only when it is (p < 0.05; with 7 rounds, behind in all 7, with
9 in 8 of them). The last lines count the cells at or above the better peer, below it
within the noise, and behind it (and of those, how many have Tollway's own median at
0.95 of the dd ceiling or more).

Writes OUTDIR/summary.csv and OUTDIR/iobench.png (MB/s against ranks; a panel per pattern,
file system and op; a colour per MPI, solid collective, dashed independent, dotted
non-blocking, the dd ceiling in grey). matplotlib comes from Debian's python3-matplotlib; without it the plot is skipped
with a message and the table and CSV are still written."""
import csv
import math
import os
import statistics
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
NAMES = {"tollway": "Tollway", "mpich": "MPICH 5 (ROMIO)", "openmpi": "Open MPI 5 (OMPIO)"}
PATTERNS = ("contiguous", "interleaved", "subarray", "shared")
MODES = ("independent", "collective", "nonblocking")  # the last when asked for
OPS = ("write", "read")


def have_matplotlib():
    """True when matplotlib imports, if need be under Debian's python (which
    python3-matplotlib installs into) when the python3 first on PATH is another."""
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        pass
    here = os.path.realpath(sys.executable)
    if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(SYSTEM_PYTHON) != here:
        probe = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True)
        if probe.returncode == 0:
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    print("summary.py: no matplotlib (apt-get install python3-matplotlib): no plot",
          file=sys.stderr)
    return False


def sign_test(behind, n):
    """Two-sided sign test: the chance of a split at least this uneven among n rounds
    when either MPI is as likely to be ahead in each."""
    if n == 0:
        return 1.0
    k = max(behind, n - behind)
    tail = sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n
    return min(1.0, 2 * tail)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, outdir = sys.argv[1], sys.argv[2]
    have_mpl = have_matplotlib()  # first: it may rerun this script under Debian's python
    # (mpi, fs, nprocs, pattern, mode, op) -> {round: MB/s}
    values = {}
    with open(raw, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["mpi"], row["fs"], int(row["nprocs"]), row["pattern"], row["mode"],
                   row["op"])
            values.setdefault(key, {})[int(row["round"])] = float(row["mb_s"])
    if not values:
        sys.exit("summary.py: no rows in " + raw)
    med = {k: statistics.median(v.values()) for k, v in values.items()}
    mpis = sorted({k[0] for k in values if k[0] != "dd"}, key=lambda m: (m != "tollway", m))
    peers = [m for m in mpis if m != "tollway"]
    fss = [fs for fs in ("disk", "tmpfs") if any(k[1] == fs for k in values)]
    nps = sorted({k[2] for k in values})

    def ratio(fs, n, pattern, mode, op):
        """Tollway / the better peer: (median of per-round ratios, peer, rounds Tollway
        was at or above it, rounds, sign test's p) or None."""
        cell = (fs, n, pattern, mode, op)
        if ("tollway",) + cell not in med:
            return None
        ranked = [p for p in peers if (p,) + cell in med]
        if not ranked:
            return None
        best = max(ranked, key=lambda p: med[(p,) + cell])
        tw, pv = values[("tollway",) + cell], values[(best,) + cell]
        per_round = [tw[r] / pv[r] for r in tw if r in pv and pv[r] > 0]
        if not per_round:
            return None
        ahead = sum(1 for x in per_round if x >= 1)
        return (statistics.median(per_round), best, ahead, len(per_round),
                sign_test(len(per_round) - ahead, len(per_round)))

    rows = []
    for fs in fss:
        for n in nps:
            for pattern in PATTERNS:
                for mode in MODES:
                    for op in OPS:
                        cell = (fs, n, pattern, mode, op)
                        if not any((m,) + cell in med for m in mpis):
                            continue
                        dd = med.get(("dd", fs, n, "dd", "-", op))
                        best = max((med[(m,) + cell] for m in mpis if (m,) + cell in med))
                        rr = ratio(*cell)
                        tw = med.get(("tollway",) + cell)
                        if rr and dd and tw is not None:
                            rr = rr + (tw / dd,)  # Tollway's own over the ceiling
                        rows.append((cell, [med.get((m,) + cell) for m in mpis], dd,
                                     best / dd if dd else None, rr))

    def at_dd(rr):
        """Tollway's own median at 0.95 of the ceiling or more."""
        return len(rr) > 5 and rr[5] >= 0.95

    def verdict(rr, of_dd):
        """What a ratio below 1 amounts to, after the cell's figures."""
        if rr[0] >= 1 or rr[4] >= 0.05:
            return ""
        return " behind, at dd" if at_dd(rr) else " behind"

    def mb(v):
        """A cell of the table: small figures (the shared pattern's) keep their digits."""
        if v is None:
            return f"{'-':>9}"
        return f"{v:9.1f}" if v >= 10 else f"{v:9.3f}"

    head = (f"{'fs':6} {'ranks':>5} {'pattern':12} {'mode':12} {'op':5} "
            + " ".join(f"{m:>9}" for m in mpis) + f" {'dd':>9} {'of dd':>6}")
    if "tollway" in mpis:
        head += "  tollway/better peer"
    print("MB/s (10^6 bytes/s, all ranks together), medians of the rounds; higher is better")
    print(head)
    for cell, cells, dd, of_dd, rr in rows:
        fs, n, pattern, mode, op = cell
        line = (f"{fs:6} {n:>5} {pattern:12} {mode:12} {op:5} "
                + " ".join(mb(v) for v in cells)
                + (f" {mb(dd)} {of_dd:6.2f}" if dd else f" {'-':>9} {'-':>6}"))
        if rr:
            line += f"  {rr[0]:.2f} (vs {rr[1]}, ahead {rr[2]}/{rr[3]}){verdict(rr, of_dd)}"
        elif "tollway" in mpis:
            line += "  -"
        print(line)
    print("dd: one stream of the largest total of the run, written with conv=fsync, read back"
          " from the page cache;\n'of dd': the best MPI over it. Reads of every column are"
          " page-cache reads. 'ahead k/n': the rounds in which Tollway was at or above\n"
          "that peer; 'behind': below it in more rounds than noise explains (sign test,"
          " p < 0.05).")
    judged = [(rr, of_dd) for _, _, _, of_dd, rr in rows if rr]
    if judged:
        above = sum(1 for rr, _ in judged if rr[0] >= 1)
        behind = [(rr, of_dd) for rr, of_dd in judged if rr[0] < 1 and rr[4] < 0.05]
        at_ceiling = sum(1 for rr, _ in behind if at_dd(rr))
        print(f"Tollway in {len(judged)} cells: {above} at or above the better peer,"
              f" {len(judged) - above - len(behind)} below it within the rounds' noise,"
              f" {len(behind)} behind it ({at_ceiling} of them with Tollway at the dd ceiling)")

    summary = os.path.join(outdir, "summary.csv")
    with open(summary, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["fs", "nprocs", "pattern", "mode", "op"]
                   + [f"{m}_mb_s" for m in mpis]
                   + ["dd_mb_s", "best_of_dd", "tollway_ratio", "ratio_peer", "rounds",
                      "tollway_ahead_rounds", "sign_test_p"])
        for cell, cells, dd, of_dd, rr in rows:
            rounds = max(len(values.get((m,) + cell, {})) for m in mpis)
            w.writerow(list(cell) + [f"{v:.4g}" if v is not None else "" for v in cells]
                       + [f"{dd:.4g}" if dd else "", f"{of_dd:.3f}" if of_dd else "",
                          f"{rr[0]:.3f}" if rr else "", rr[1] if rr else "", rounds,
                          rr[2] if rr else "", f"{rr[4]:.3f}" if rr else ""])
    print(f"\nraw runs: {raw}\nsummary:  {summary}")

    if not have_mpl:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(fs, op) for fs in fss for op in OPS]
    fig, axes = plt.subplots(len(panels), len(PATTERNS), figsize=(4.2 * len(PATTERNS),
                                                                   3.2 * len(panels)),
                             squeeze=False)
    for row, (fs, op) in enumerate(panels):
        for col, pattern in enumerate(PATTERNS):
            ax = axes[row][col]
            for i, m in enumerate(mpis):
                for mode in MODES:
                    # a log axis: a run too slow to show 0.001 MB/s is left out
                    pts = [(n, med[(m, fs, n, pattern, mode, op)]) for n in nps
                           if med.get((m, fs, n, pattern, mode, op), 0) > 0]
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                                markersize=3, color=f"C{i}",
                                linestyle={"collective": "-", "nonblocking": ":"}.get(mode, "--"),
                                label=f"{NAMES.get(m, m)} {mode}")
            dd = [(n, med[("dd", fs, n, "dd", "-", op)]) for n in nps
                  if ("dd", fs, n, "dd", "-", op) in med]
            if dd:
                ax.plot([p[0] for p in dd], [p[1] for p in dd], color="grey", linestyle=":",
                        label="dd (ceiling)")
            ax.set_title(f"{pattern}, {op}, {fs}", fontsize=9)
            ax.set_xticks(nps)
            ax.set_xlabel("ranks")
            ax.set_ylabel("MB/s")
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8)
    fig.suptitle("iobench: MPI-IO bandwidth, medians of the rounds (higher is better; reads "
                 "from the page cache)", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    png = os.path.join(outdir, "iobench.png")
    fig.savefig(png, dpi=100)
    print(f"plot:     {png}")


if __name__ == "__main__":
    main()
