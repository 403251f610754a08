#!/usr/bin/env python3
"""Summary of an interleaved mpibench, collbench and rmabench run (bench/mpi/compare.sh writes
its input).

usage: plot.py RAW_CSV OUTDIR

RAW_CSV rows: mpi,test,size,round,value; rows whose test is probe-before:<test> or
probe-after:<test> are the placement probes framing that run (us). A run is clean when
both its probes read within 25 % of the median of all probes (the two cores stayed
where they usually are); other runs are left out and counted. Without probes every
run is clean.

Prints, per (mpi, test, size), the median of the clean rounds for the sizes the
project's targets name, and the ratios those targets need, each against the best of the
peers in the run (Open MPI 4.1 and 5, MPICH 4.0 and 5, Intel MPI: bench/peers.sh), whose
name the ratio's column gives. With Tollway: latency
8 B vs the lowest (target <= 0.8), bandwidth 64 KiB .. 4 MiB vs
the higher (>= 1.0 at every size), message rate 8 B vs the higher (>= 1.5); the
collectives (barrier; bcast and allreduce at 8 B; bcast, allreduce, allgather and
alltoall at 64 KiB and 1 MiB) vs the lower time (<= 1.0); the one-sided latencies at 8 B
(put-lat, get-lat, put-fence-lat, get-fence-lat, acc-lat, fop-lat, cas-lat) vs the lower
(<= 1.0) and put-bw at 1 MiB vs the higher (>= 1.0). The overlap of rmabench at 64 KiB
and 1 MiB is shown without a ratio (a ratio of percentages near zero says nothing). Without
Tollway: the first two peers. A ratio is the median of per-round ratios against the peer
with the better median: rounds measure the MPIs seconds apart, while a whole run spans
minutes over which a shared machine's speed drifts. Its range is shown beside it.

Writes OUTDIR/summary.csv (every test and size: medians, clean and left-out rounds,
and the ratios) OUTDIR/mpibench.png (latency and bandwidth vs size, log-log, one
line per MPI), OUTDIR/collbench.png (time per collective call vs size) and
OUTDIR/rmabench.png (the one-sided latencies at 8 B, put bandwidth and overlap vs size).
matplotlib comes from Debian's python3-matplotlib, installed with apt-get when missing;
without it the table and CSV are still written."""
import csv
import os
import shutil
import statistics
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


def can_import(python):
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


def find_matplotlib():
    """True when matplotlib imports. The python3 first on PATH may not be Debian's, which is the
    one python3-matplotlib installs into: then rerun under Debian's python."""
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        pass
    here = os.path.realpath(sys.executable)
    rerun = os.path.exists(SYSTEM_PYTHON) and os.path.realpath(SYSTEM_PYTHON) != here
    if rerun and can_import(SYSTEM_PYTHON):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    if shutil.which("apt-get") and os.geteuid() == 0 and not os.environ.get("MPIBENCH_NO_APT"):
        print("plot.py: installing python3-matplotlib", file=sys.stderr)
        os.environ["MPIBENCH_NO_APT"] = "1"  # once, even across the rerun
        cmd = ["apt-get", "install", "-y", "-q", "python3-matplotlib"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if subprocess.run(cmd, stdout=sys.stderr, env=env).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], stdout=sys.stderr, env=env)
            subprocess.run(cmd, stdout=sys.stderr, env=env)
        if rerun and can_import(SYSTEM_PYTHON):
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        try:
            import matplotlib  # noqa: F401,F811
            return True
        except ImportError:
            pass
    print("plot.py: no matplotlib (apt-get install python3-matplotlib): no PNG",
          file=sys.stderr)
    return False


COLLECTIVES = ("bcast", "allreduce", "allgather", "alltoall")
RMA_LATENCIES = ("put-lat", "get-lat", "put-fence-lat", "get-fence-lat", "acc-lat", "fop-lat",
                 "cas-lat")
UNITS = {"latency": "us", "bandwidth": "MB/s", "rate": "msg/s", "strided": "us", "barrier": "us",
         "put-bw": "MB/s", "overlap": "%"}
UNITS.update({c: "us" for c in COLLECTIVES + RMA_LATENCIES})
# bench/peers.sh's MPIs
PEERS = ("openmpi", "mpich", "openmpi5", "mpich5", "impi")
NAMES = {"openmpi": "Open MPI 4.1", "mpich": "MPICH 4.0", "openmpi5": "Open MPI 5",
         "mpich5": "MPICH 5", "impi": "Intel MPI", "tollway": "Tollway",
         "kernel-cma": "kernel CMA"}  # compare.sh's exchange: the floor of the 2-rank exchange
KiB, MiB = 1024, 1024 * 1024
# (test, size, "lower" when smaller is better, Tollway's target ratio or None: no ratio)
TARGETS = ([("latency", 8, "lower", 0.8)]
           + [("bandwidth", s, "higher", 1.0) for s in (64 * KiB * 2**k for k in range(7))]
           + [("rate", 8, "higher", 1.5)]
           + [("strided", s, "lower", 1.0) for s in (512, 8 * KiB, 64 * KiB, MiB)]
           + [("barrier", 0, "lower", 1.0), ("bcast", 8, "lower", 1.0),
              ("allreduce", 8, "lower", 1.0)]
           + [(c, s, "lower", 1.0) for s in (64 * KiB, MiB) for c in COLLECTIVES]
           + [(t, 8, "lower", 1.0) for t in RMA_LATENCIES]
           + [("put-bw", MiB, "higher", 1.0)]
           + [("overlap", s, "higher", None) for s in (64 * KiB, MiB)])


# A run is clean when the placement probes framing it both read within this fraction
# of the median of all probes: the cores stayed where they usually are.
PROBE_SLACK = 0.25


def probes_clean(seen, probe_median):
    """True when the run's probes (seen, None where one is missing) are all within
    PROBE_SLACK of probe_median; with no probes at all (probe_median None) every run is."""
    if probe_median is None:
        return True
    return all(v is not None and abs(v / probe_median - 1) <= PROBE_SLACK for v in seen)


def raw_rows(path, columns, who, what, take):
    """Calls take(row) for each row of the CSV file at path, whose first line must name
    columns; a file that cannot be read or has other columns, or a row take() cannot
    parse (TypeError, ValueError), ends the program with a message from who naming the
    file and line."""
    try:
        f = open(path, newline="")
    except OSError as e:
        sys.exit(f"{who}: {e}")
    with f:
        reader = csv.DictReader(f)
        if reader.fieldnames != columns:
            sys.exit(f"{who}: {path}: not {what} (its first line should be {','.join(columns)})")
        for row in reader:
            try:
                take(row)
            except (TypeError, ValueError):
                sys.exit(f"{who}: {path}, line {reader.line_num}: a field is not what it should "
                         f"be: {row}")


def probe_pair(row):
    """A raw row's placement probes before and after its run, None where absent."""
    return [float(v) if v else None for v in (row["probe_before"], row["probe_after"])]


def round_ratio(ours, theirs):
    """(median, min, max, rounds) of ours[r] / theirs[r] over the rounds r both have
    (dicts round -> value), or None: figures taken seconds apart compare, whole runs
    minutes apart do not."""
    rr = [ours[r] / theirs[r] for r in ours if r in theirs and theirs[r] > 0]
    return (statistics.median(rr), min(rr), max(rr), len(rr)) if rr else None


def size_label(n, space=" "):
    if n >= MiB and n % MiB == 0:
        return f"{n // MiB}{space}MiB"
    if n >= KiB and n % KiB == 0:
        return f"{n // KiB}{space}KiB"
    return f"{n}{space}B"


def load(path):
    """values[(mpi, test, size)][round], probes[(mpi, test, when)][round]"""
    values, probes = {}, {}
    with open(path) as f:
        for row in csv.reader(f):
            if not row or row[0] == "mpi":
                continue
            mpi, test, size, rnd, value = row
            if test.startswith("probe-"):
                when, test = test[len("probe-"):].split(":", 1)
                probes.setdefault((mpi, test, when), {})[rnd] = float(value)
            else:
                values.setdefault((mpi, test, int(size)), {})[rnd] = float(value)
    return values, probes


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py RAW_CSV OUTDIR")
    have_mpl = find_matplotlib()
    raw, outdir = sys.argv[1:]
    values, probes = load(raw)
    if not values:
        sys.exit(f"plot.py: no measurements in {raw}")
    all_probes = [v for by_round in probes.values() for v in by_round.values()]
    probe_median = statistics.median(all_probes) if all_probes else None

    def clean(mpi, test, rnd):
        seen = [probes.get((mpi, test, w), {}).get(rnd) for w in ("before", "after")]
        return probes_clean(seen, probe_median)

    order = [m for m in NAMES if any(k[0] == m for k in values)]
    order += sorted({k[0] for k in values} - set(order))
    runs = {(m, t, r) for (m, t, _), by_round in values.items() for r in by_round}
    left_out_runs = sorted(x for x in runs if not clean(*x))
    kept = {k: {r: v for r, v in by_round.items() if clean(k[0], k[1], r)}
            for k, by_round in values.items()}
    med = {k: statistics.median(v.values()) for k, v in kept.items() if v}

    def ratio(ours, theirs, test, size):
        """median, min, max of ours/theirs over the rounds clean for both"""
        return round_ratio(kept.get((ours, test, size), {}), kept.get((theirs, test, size), {}))

    tollway = "tollway" in order
    peers = [m for m in PEERS if m in order]
    comparisons = {}  # (test, size) -> (label, ratio tuple, target text, met)
    for test, size, better, target in TARGETS:
        if target is None:
            continue
        if tollway:
            have = [p for p in peers if (p, test, size) in med]
            if not have or ("tollway", test, size) not in values:
                continue
            pick = min if better == "lower" else max
            peer = pick(have, key=lambda p: med[(p, test, size)])
            rr = ratio("tollway", peer, test, size)
            sign = "<=" if better == "lower" else ">="
            met = rr is not None and (rr[0] <= target if better == "lower" else rr[0] >= target)
            comparisons[(test, size)] = (f"tollway/{peer}", rr, f"{sign} {target}",
                                         "yes" if met else "NO" if rr else "?")
        elif len(peers) >= 2:
            rr = ratio(peers[0], peers[1], test, size)
            comparisons[(test, size)] = (f"{peers[0]}/{peers[1]}", rr, "", "")

    if probe_median is not None:
        print(f"placement probe: median {probe_median:.3f} us one-way over {len(all_probes)} "
              f"probes; {len(left_out_runs)} of {len(runs)} runs left out (> 25 % off)")
        for m, t, r in left_out_runs:
            print(f"  left out: {m} {t} round {r}")
    else:
        print("placement probe: none (every run counted)")
    if not med:
        print("no clean measurements: every run was left out")
    width = max([11] + [len(NAMES.get(m, m)) for m in order])
    tw = max([10] + [len(t) for t, _, _, _ in TARGETS])
    head = f"{'test':{tw}} {'size':>7} " + " ".join(f"{NAMES.get(m, m):>{width}}" for m in order)
    head += f"  {'unit':5} {'ratio of':>16} {'ratio':>7} {'target':>7} {'met':>3}  {'rounds':>6}  range"
    print(head)
    for test, size, _, _ in TARGETS:
        if not any((m, test, size) in med for m in order):
            continue
        line = f"{test:{tw}} {size_label(size):>7} "
        line += " ".join(f"{med[(m, test, size)]:{width}.4g}" if (m, test, size) in med
                         else f"{'-':>{width}}" for m in order)
        line += f"  {UNITS.get(test, ''):5}"
        if (test, size) in comparisons:
            label, rr, target, met = comparisons[(test, size)]
            if rr:
                line += (f" {label:>16} {rr[0]:7.3f} {target:>7} {met:>3}  {rr[3]:>6}  "
                         f"{rr[1]:.3f} .. {rr[2]:.3f}")
            else:
                line += f" {label:>16} {'-':>7} {target:>7} {met:>3}  {0:>6}  no clean round"
        print(line)

    if "kernel-cma" in order:
        print("\nagainst the kernel's floor of the same exchange (process_vm_readv + own copy):")
        for test in ("allgather", "alltoall"):
            for size in (64 * KiB, MiB):
                for m in [m for m in order if m != "kernel-cma"]:
                    rr = ratio(m, "kernel-cma", test, size)
                    if rr:
                        print(f"  {test:9} {size_label(size):>7} {m + '/kernel-cma':>20} "
                              f"{rr[0]:7.3f}  {rr[3]:>2} rounds  {rr[1]:.3f} .. {rr[2]:.3f}")

    summary = os.path.join(outdir, "summary.csv")
    with open(summary, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "unit"]
                   + [f"{m}_{c}" for m in order for c in ("median", "rounds", "left_out")]
                   + ["ratio_of", "ratio", "ratio_min", "ratio_max", "ratio_rounds", "target",
                      "met"])
        for test, size in sorted({(t, s) for _, t, s in values}):
            row = [test, size, UNITS.get(test, "")]
            for m in order:
                k = (m, test, size)
                n_all = len(values.get(k, {}))
                n_kept = len(kept.get(k, {}))
                row += [f"{med[k]:.6g}" if k in med else "", n_kept, n_all - n_kept]
            c = comparisons.get((test, size))
            if c and c[1]:
                label, rr, target, met = c
                row += [label, f"{rr[0]:.4f}", f"{rr[1]:.4f}", f"{rr[2]:.4f}", rr[3],
                        target.replace(" ", ""), met]
            w.writerow(row)
    print(f"\nraw runs: {raw}\nsummary:  {summary}")

    if not have_mpl:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    def figure(name, panels, xlabel, extra, suptitle, width):
        """One PNG of panels (test, title, y label[, "linear"]), a line per MPI over the
        sizes, log-log unless "linear" (then the y axis is); a panel whose test is a tuple
        of tests shows each MPI's value of every one at 8 B instead. extra(m) is appended
        to the MPI's legend label."""
        fig, axes = plt.subplots(1, len(panels), figsize=(width, 4.7))
        for ax, (test, title, ylabel, *yscale) in zip(axes, panels):
            for m in order:
                if isinstance(test, tuple):
                    pts = [(i, med[(m, t, 8)]) for i, t in enumerate(test) if (m, t, 8) in med]
                else:
                    pts = sorted((s, med[(m, t, s)]) for (mm, t, s) in med
                                 if mm == m and t == test)
                if pts:
                    # one colour per MPI in every panel, whichever MPIs a panel has
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                            linestyle="none" if isinstance(test, tuple) else "-",
                            color=f"C{order.index(m)}", label=NAMES.get(m, m) + extra(m))
            if isinstance(test, tuple):
                ax.set_xticks(range(len(test)))
                ax.set_xticklabels(test, rotation=30, fontsize=7)
                ax.set_xlabel("8 B")
            else:
                ax.set_xscale("log", base=2)
                ax.xaxis.set_major_formatter(
                    FuncFormatter(lambda x, _: size_label(int(round(x)), "")))
                ax.set_xlabel(xlabel)
            ax.set_yscale(yscale[0] if yscale else "log")
            ax.set_ylabel(ylabel)
            ax.set_title(title)
            ax.grid(True, which="both", alpha=0.3)
            if ax.lines:
                ax.legend(fontsize=7)
        fig.suptitle(suptitle, fontsize=10)
        fig.tight_layout()
        png = os.path.join(outdir, name)
        fig.savefig(png, dpi=110)
        print(f"plot:     {png}")

    if any(t in ("latency", "bandwidth", "rate", "strided") for (_, t, _) in med):
        figure("mpibench.png",
               [("latency", "Ping-pong latency (half round trip)", UNITS["latency"]),
                ("bandwidth", "Bandwidth (window of 64)", UNITS["bandwidth"]),
                ("strided", "Ping-pong of a vector of doubles, every other one",
                 UNITS["strided"])],
               "message size (bytes)",
               lambda m: (f" (rate 8 B: {med[(m, 'rate', 8)] / 1e6:.2f}M msg/s)"
                          if (m, "rate", 8) in med else ""),
               "mpibench, medians of clean rounds", 18)
    if any(t in COLLECTIVES for (_, t, _) in med):
        figure("collbench.png",
               [(t, f"MPI_{t.capitalize()}, 2 ranks", "us per call") for t in COLLECTIVES],
               "bytes (per rank for allgather, per pair for alltoall)",
               lambda m: (f" (barrier {med[(m, 'barrier', 0)]:.2f} us)"
                          if (m, "barrier", 0) in med else ""),
               "collbench, medians of clean rounds (lower is better)", 18)
    if any(t in RMA_LATENCIES + ("put-bw", "overlap") for (_, t, _) in med):
        figure("rmabench.png",
               [(RMA_LATENCIES, "One-sided latency (lock/flush or fence)", "us per operation"),
                ("put-bw", "Put bandwidth (window of puts + flush)", UNITS["put-bw"]),
                ("overlap", "Put hidden behind computation (passive target)", "overlap %",
                 "linear")],
               "message size (bytes)", lambda m: "",
               "rmabench, MPI_Win_allocate windows, medians of clean rounds", 16)

if __name__ == "__main__":
    main()
