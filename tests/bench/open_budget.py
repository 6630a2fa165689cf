#!/usr/bin/env python3
"""What opening a big capture costs: the viewer's load and `memframe report`.

    tests/bench/open_budget.py --build build --events 10000000
    tests/bench/open_budget.py --build build --events 10000000 --viewer-cpu 60 --viewer-rss-mb 1024

Makes a game-shaped synthetic capture with memframe_capture_gen (2 threads,
12,500 events a frame: the issue's play-test shape; kept in --dir and made
again only when missing, unless --remove), then runs, each --runs times:

- `memframe-viewer CAPTURE --dump-view-data timeline`: the viewer's whole
  load (reading, the heap analysis, the passes beside it, naming the sites,
  the live graph) as the window does it, without a display;
- `memframe-viewer CAPTURE --dump-view-data timeline --first-picture` with
  the index that load wrote: the viewer's first picture (header, timeline,
  live graph by class, markers, phases) as the window draws it before the
  whole load is done;
- `memframe report CAPTURE` without its summary index (CAPTURE.mfi removed
  before each run): the first open, a replay of every event, which writes
  the index;
- `memframe report CAPTURE` with the index the first open wrote: every
  open after it.

The viewer's whole load runs without an index (removed before each run),
as a first open does; it writes one.

Prints wall seconds, CPU seconds (user + system of the process and its
threads) and peak RSS of each, the medians last. CPU is the figure to read
on a shared machine: wall stretches with the load, CPU hardly.

With a budget (--viewer-cpu, --viewer-rss-mb, --report-cpu, --report-rss-mb)
it exits 1 when the median breaks it: the bench.open_10m test gives
generous ones, so that a regression of several times shows, never a busy
machine. Budgets are CPU seconds and MiB, never wall time.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def run(cmd):
    """Wall s, CPU s, peak RSS MiB of one command (its output discarded)."""
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"open_budget: {' '.join(cmd)} exited {code}: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--dir", default="/tmp", help="where the capture is made and kept")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--remove", action="store_true", help="remove the capture at the end")
    parser.add_argument("--viewer-cpu", type=float, help="budget: CPU seconds of the viewer's load")
    parser.add_argument("--viewer-rss-mb", type=float, help="budget: its peak RSS, MiB")
    parser.add_argument("--report-cpu", type=float, help="budget: CPU seconds of memframe report")
    parser.add_argument("--report-rss-mb", type=float, help="budget: its peak RSS, MiB")
    parser.add_argument("--indexed-cpu", type=float, help="budget: CPU seconds of memframe report from the index")
    parser.add_argument("--indexed-rss-mb", type=float, help="budget: its peak RSS, MiB")
    parser.add_argument("--first-picture-cpu", type=float, help="budget: CPU seconds of the viewer's first picture")
    parser.add_argument("--first-picture-rss-mb", type=float, help="budget: its peak RSS, MiB")
    args = parser.parse_args()

    bin_dir = os.path.join(args.build, "bin")
    capture = os.path.join(args.dir, f"open_budget_{args.events}.mfc")
    if not os.path.exists(capture):
        subprocess.run([os.path.join(bin_dir, "memframe_capture_gen"), capture, "--events", str(args.events),
                        "--threads", "2", "--events-per-frame", "12500"], check=True, stdout=subprocess.DEVNULL)
    size_mb = os.path.getsize(capture) / 2**20
    print(f"capture {capture}: {args.events:,} events, {size_mb:.0f} MiB")

    index = capture + ".mfi"
    report = [os.path.join(bin_dir, "memframe"), "report", capture]
    viewer = [os.path.join(bin_dir, "memframe-viewer"), capture, "--dump-view-data", "timeline"]
    # The viewer's first picture from the index its whole load wrote (with
    # the viewer's summary: the live graph by class, the markers), then the
    # reports (whose index has none).
    commands = {
        "viewer": viewer,
        "viewer, first picture": viewer + ["--first-picture"],
        "report": report,
        "report, indexed": report,
    }
    budgets = {"viewer": (args.viewer_cpu, args.viewer_rss_mb), "report": (args.report_cpu, args.report_rss_mb),
               "report, indexed": (args.indexed_cpu, args.indexed_rss_mb),
               "viewer, first picture": (args.first_picture_cpu, args.first_picture_rss_mb)}
    broken = []
    for name, cmd in commands.items():
        results = []
        for i in range(args.runs):
            if name in ("viewer", "report") and os.path.exists(index):
                os.remove(index)
            if name in ("report, indexed", "viewer, first picture") and not os.path.exists(index):
                sys.exit(f"open_budget: the first open wrote no {index}")
            wall, cpu, rss = run(cmd)
            results.append((wall, cpu, rss))
            print(f"{name} run {i + 1}: wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {rss:.0f} MiB", flush=True)
        if name in ("viewer", "report") and os.path.exists(index):
            print(f"index written by the {name}: {os.path.getsize(index) / 2**20:.2f} MiB")
        wall, cpu, rss = (statistics.median(r[k] for r in results) for k in range(3))
        print(f"{name}: median wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {rss:.0f} MiB, "
              f"{cpu * 1e9 / args.events:.0f} CPU-ns an event")
        cpu_budget, rss_budget = budgets[name]
        if cpu_budget is not None and cpu > cpu_budget:
            broken.append(f"{name}: CPU {cpu:.2f} s over its budget of {cpu_budget} s")
        if rss_budget is not None and rss > rss_budget:
            broken.append(f"{name}: peak RSS {rss:.0f} MiB over its budget of {rss_budget} MiB")
    if args.remove:
        os.remove(capture)
        if os.path.exists(index):
            os.remove(index)
    for line in broken:
        print(f"open_budget: {line}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
