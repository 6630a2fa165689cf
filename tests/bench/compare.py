#!/usr/bin/env python3
"""memframe's cost against heaptrack's, in one run.

Runs each workload (game_loop_workload in one of its shapes, WORKLOADS)
natively, under `memframe run` and under heaptrack, interleaved (native,
memframe, heaptrack, native, ...) so that a noisy machine hurts all three
alike, then runs hook_microbench natively and its *Pair benchmarks under
memframe. Prints markdown tables: one per workload, then one line per
workload against the goals. See README.md for what every row means.

Nothing here judges the numbers: it only measures and prints them. Standard
library only, so it runs wherever the build does.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOOLS = ("native", "memframe", "heaptrack")

# name: (game_loop_workload arguments, default frames, what it stands for).
# About 8 M events each at the default frames (pairs-64t: 25.6 M). `lifo` is the load that
# tests/bench's earliest results measured; the others are the shapes of issue 18.
WORKLOADS = {
    "lifo": (["--shape", "lifo"], 1000, "frees in order, 64 alive (the history's load)"),
    "shuffled-2t": (["--shape", "shuffled", "--threads", "2", "--level-every", "500", "--level-mb", "50"], 500,
                    "two busy threads, 4096 blocks alive each, shuffled frees, pools"),
    "shuffled-4t": (["--shape", "shuffled", "--threads", "4", "--level-every", "500", "--level-mb", "50"], 250,
                    "four busy threads on the same cores"),
    "jobs-4t": (["--shape", "jobs", "--threads", "4"], 250,
                "a job system: main + 3 workers, frees on other threads"),
    "realloc": (["--shape", "realloc"], 1000, "string builders, doubling vectors, resized buffers"),
    "pairs-64t": (["--shape", "pairs", "--threads", "64", "--allocs", "10000", "--level-mb", "0"], 20,
                  "64 threads on 2 cores, 200,000 malloc/free pairs each (issue 34)"),
}
GOAL_RATIO = 0.20         # added wall time against heaptrack's
GOAL_P99 = 1.05           # demo-game p99 against native
GOAL_RSS_MIB = (8, 1)     # resident memory the agent adds: 8 MiB + 1 MiB a thread


# ---- running one command ---------------------------------------------------

class Run:
    """One finished command: wall time, exit status, output, rusage of its tree."""

    def __init__(self, wall, status, stdout, stderr, rusage):
        self.wall = wall
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.rusage = rusage


def run_command(cmd, workdir, env=None):
    # Output goes to files, not pipes: a full pipe would stall the program
    # and show up as its cost. os.wait4 gives the rusage of the whole tree.
    out_path = os.path.join(workdir, "stdout.txt")
    err_path = os.path.join(workdir, "stderr.txt")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, rusage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path, errors="replace") as f:
        stdout = f.read()
    with open(err_path, errors="replace") as f:
        stderr = f.read()
    return Run(wall, proc.returncode, stdout, stderr, rusage)


def parse_workload(text):
    """The workload's own report (see game_loop_workload.cpp), or None."""
    fields = {}
    for key in ("allocations", "frees", "checksum", "p50", "p99", "peak_rss_kb", "cpu_ms", "game_thread_minflt"):
        m = re.search(r"\b%s=([0-9a-f]+)" % key, text)
        if not m:
            if key == "game_thread_minflt":  # a workload built before it was printed
                continue
            return None
        fields[key] = m.group(1) if key == "checksum" else int(m.group(1))
    return fields


# ---- the three ways to run the workload -----------------------------------

class Tool:
    def __init__(self, name, available, why_not=""):
        self.name = name
        self.available = available
        self.why_not = why_not
        self.runs = []          # (Run, parsed workload fields, capture bytes)
        self.capture = None     # path of the last capture, for counting events
        self.events = None      # (count, where the count came from)
        self.failures = []


def tool_command(tool, paths, workload_args, tmp, tag):
    """The command line for one run, and the capture it writes (or None)."""
    workload = [paths["workload"]] + workload_args
    if tool == "native":
        return workload, None
    if tool == "memframe":
        capture = os.path.join(tmp, "memframe-%s.mfc" % tag)
        return [paths["memframe"], "run", "-o", capture, "--no-summary", "--"] + workload, capture
    base = os.path.join(tmp, "heaptrack-%s" % tag)
    return [paths["heaptrack"], "-o", base] + workload, base


def capture_file(tool, path):
    """The file a run left: heaptrack appends its compressor's suffix."""
    if path is None:
        return None
    if tool == "heaptrack":
        for suffix in (".zst", ".gz", ""):
            if os.path.exists(path + suffix):
                return path + suffix
        return None
    return path if os.path.exists(path) else None


def memframe_events(paths, capture, timeout):
    """allocations + frees from `memframe report --json`, or None."""
    try:
        result = subprocess.run([paths["memframe"], "report", capture, "--json"], capture_output=True,
                                text=True, timeout=timeout)
        report = json.loads(result.stdout)
        return int(report["allocations"]) + int(report["frees"])
    except (subprocess.TimeoutExpired, OSError, ValueError, KeyError, TypeError):
        return None


def heaptrack_events(run):
    """Allocations + frees from heaptrack's end-of-run stats, or None.

    heaptrack prints allocations and leaked allocations; every other
    allocation was freed, and each free is one event in its file too.
    """
    text = run.stdout + run.stderr
    allocs = re.search(r"^\s*allocations:\s*(\d+)", text, re.M)
    leaked = re.search(r"^\s*leaked allocations:\s*(\d+)", text, re.M)
    if not allocs:
        return None
    n = int(allocs.group(1))
    return 2 * n - (int(leaked.group(1)) if leaked else 0)


# ---- the demo game's frame times -------------------------------------------

def parse_demo(text):
    """`frame_time_us frames=N p50=.. p99=.. max=..` from the demo game, or None."""
    m = re.search(r"frame_time_us frames=(\d+) p50=(\d+) p99=(\d+) max=(\d+)", text)
    return None if not m else {"frames": int(m.group(1)), "p50": int(m.group(2)), "p99": int(m.group(3)),
                               "max": int(m.group(4))}


def run_demo(paths, tmp, frames, runs):
    """{tool: [parsed]}: the demo game natively, under memframe and heaptrack, interleaved.

    The game renders with Mesa's software rasteriser; without a display each
    run gets its own xvfb-run, so run the script under one X server
    (tests/integration/with_xvfb.sh) for steadier percentiles. Its frame times are measured by the game itself
    (swap to swap), so the tools' start-up and flush do not count.
    """
    wrapper = [] if os.environ.get("DISPLAY") else ["xvfb-run", "-a"]
    if wrapper and not shutil.which("xvfb-run"):
        print("warning: no DISPLAY and no xvfb-run: demo game not run", file=sys.stderr)
        return {}
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1")
    game = [paths["demo"], "--frames", str(frames), "--frame-times"]
    results = {}
    for i in range(runs):
        for tool in TOOLS:
            if tool == "native":
                cmd = game
            elif tool == "memframe":
                cmd = [paths["memframe"], "run", "-o", os.path.join(tmp, "demo-%d.mfc" % i), "--no-summary", "--"] + game
            elif paths["heaptrack"]:
                cmd = [paths["heaptrack"], "-o", os.path.join(tmp, "demo-heaptrack-%d" % i)] + game
            else:
                continue
            run = run_command(wrapper + cmd, tmp, env)
            parsed = parse_demo(run.stdout)
            if run.status != 0 or parsed is None:
                print("warning: demo game under %s failed (status %d): %s" % (tool, run.status, run.stderr[-500:]),
                      file=sys.stderr)
                continue
            results.setdefault(tool, []).append(parsed)
    return results


def print_demo(results, frames):
    if not results:
        print("## Demo game frame times: not run\n")
        return
    print("## Demo game: memframe_demo_game --frames %d --frame-times (software GL)\n" % frames)
    print("Frame time swap to swap, microseconds; median over the runs of each percentile.\n")
    names = [t for t in TOOLS if t in results]
    pick = lambda t, k: median([r[k] for r in results[t]])
    rows = [[label] + [fmt(pick(t, k), "{:.0f}") for t in names]
            for label, k in (("p50 (us)", "p50"), ("p99 (us)", "p99"), ("max (us)", "max"))]
    rows.append(["runs"] + [str(len(results[t])) for t in names])
    print_table(["", *names], rows)
    nat = pick("native", "p99") if "native" in results else None
    for t in ("memframe", "heaptrack"):
        if t in results and nat:
            print("- %s / native p99: %.2fx%s" % (t, pick(t, "p99") / nat,
                                                 "  (goal <= %.2fx)" % GOAL_P99 if t == "memframe" else ""))
    print()


# ---- hook_microbench -------------------------------------------------------

def run_microbench(paths, tmp, quick, memframe_ok):
    """{name: {"native": row, "memframe": row}}; a row is the benchmark's JSON."""
    results = {}
    min_time = ["--benchmark_min_time=%s" % ("0.05" if quick else "0.5")]
    runs = [("native", [paths["microbench"]], ".")]
    if memframe_ok:
        capture = os.path.join(tmp, "microbench.mfc")
        runs.append(("memframe", [paths["memframe"], "run", "-o", capture, "--no-summary", "--",
                                  paths["microbench"]], "Pair"))
    for label, prefix, pattern in runs:
        out = os.path.join(tmp, "microbench-%s.json" % label)
        cmd = prefix + min_time + ["--benchmark_filter=" + pattern, "--benchmark_out=" + out,
                                   "--benchmark_out_format=json"]
        run = run_command(cmd, tmp)
        if run.status != 0 or not os.path.exists(out):
            print("warning: hook_microbench (%s) failed with status %d:\n%s" % (label, run.status, run.stderr[-2000:]),
                  file=sys.stderr)
            continue
        with open(out) as f:
            for row in json.load(f).get("benchmarks", []):
                if row.get("run_type", "iteration") == "iteration":
                    results.setdefault(row["name"], {})[label] = row
    return results


def ns(row, key):
    """A benchmark time in ns whatever unit it was reported in."""
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[row.get("time_unit", "ns")]
    return row[key] * scale


# ---- printing ---------------------------------------------------------------

def fmt(value, spec="{:.2f}"):
    return "n/a" if value is None else spec.format(value)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def print_table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def summarise(tools, native_wall):
    """Per tool: the medians and derived figures that the table shows."""
    out = {}
    for t in tools:
        ok = [(r, w, b) for r, w, b in t.runs if w is not None]
        s = {"n": len(ok)}
        if ok:
            walls = [r.wall for r, _, _ in ok]
            s["wall"] = statistics.median(walls)
            s["wall_min"], s["wall_max"] = min(walls), max(walls)
            s["rss_mib"] = median([w["peak_rss_kb"] / 1024 for _, w, _ in ok])
            s["tree_rss_mib"] = median([r.rusage.ru_maxrss / 1024 for r, _, _ in ok])
            s["p50"] = median([w["p50"] for _, w, _ in ok])
            s["p99"] = median([w["p99"] for _, w, _ in ok])
            # CPU the tool's own processes used: the tree's minus the workload's.
            s["tool_cpu"] = median([r.rusage.ru_utime + r.rusage.ru_stime - w["cpu_ms"] / 1000 for r, w, _ in ok])
            s["bytes"] = median([b for _, _, b in ok])
            # CPU of everything the run started: steadier than wall time on a shared machine.
            s["tree_cpu"] = median([r.rusage.ru_utime + r.rusage.ru_stime for r, _, _ in ok])
            s["faults"] = median([w.get("game_thread_minflt") for _, w, _ in ok])
        events = t.events[0] if t.events else None
        s["events"] = events
        if events and s.get("bytes") is not None:
            s["bytes_per_event"] = s["bytes"] / events
        if events and native_wall is not None and "wall" in s and t.name != "native":
            s["added_ns"] = (s["wall"] - native_wall) / events * 1e9
            if s["tool_cpu"] and s["tool_cpu"] > 0:
                s["tool_mevents_per_cpu_s"] = events / s["tool_cpu"] / 1e6
        out[t.name] = s
    return out


def print_results(name, workload_args, tools, summary, runs, loads):
    print("## Workload %s: game_loop_workload %s\n" % (name, " ".join(workload_args)))
    print("%d interleaved run(s) of each; medians. Load average %.1f before, %.1f after. Tools missing: %s\n" % (
        runs, loads[0], loads[1],
        ", ".join("%s (%s)" % (t.name, t.why_not) for t in tools if not t.available) or "none"))
    names = [t.name for t in tools]

    def row(label, key, spec="{:.2f}", only=None):
        cells = []
        for n in names:
            v = summary[n].get(key) if (only is None or n in only) else None
            cells.append(fmt(v, spec))
        return [label] + cells

    def spread(n):
        s = summary[n]
        return "n/a" if "wall" not in s else "%.2f..%.2f" % (s["wall_min"], s["wall_max"])

    events_src = {t.name: (t.events[1] if t.events else "") for t in tools}
    rows = [
        row("wall time (s)", "wall", "{:.3f}"),
        ["wall min..max (s)"] + [spread(n) for n in names],
        row("peak RSS of the workload (MiB)", "rss_mib", "{:.1f}"),
        row("peak RSS, largest process (MiB)", "tree_rss_mib", "{:.1f}"),
        row("minor faults, the workload's threads", "faults", "{:,.0f}"),
        row("CPU of the whole run (s)", "tree_cpu", "{:.2f}"),
        row("CPU of the tool's own processes (s)", "tool_cpu", "{:.2f}", ("memframe", "heaptrack")),
        ["events (allocs + frees)"] + ["%s%s" % (fmt(summary[n].get("events"), "{:,.0f}"),
                                                 " (%s)" % events_src[n] if events_src[n] else "") for n in names],
        row("capture bytes", "bytes", "{:,.0f}", ("memframe", "heaptrack")),
        row("bytes / event", "bytes_per_event", "{:.2f}", ("memframe", "heaptrack")),
        row("added wall ns / event", "added_ns", "{:.0f}", ("memframe", "heaptrack")),
        row("tool M events / CPU-s", "tool_mevents_per_cpu_s", "{:.1f}", ("memframe", "heaptrack")),
        row("frame time p50 (us)", "p50", "{:.0f}"),
        row("frame time p99 (us)", "p99", "{:.0f}"),
    ]
    print_table(["", *names], rows)

    print()


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def added(summary, tool, key):
    """The tool's figure minus the native run's, or None."""
    t, n = summary[tool].get(key), summary["native"].get(key)
    return None if t is None or n is None else t - n


def print_goals(results):
    """One line per workload: each goal of README.md against its result."""
    print("## Against the goals (README.md)\n")
    print("Added = the tool's median minus the native one. Goals: added wall <= %.2f of heaptrack's, bytes an event "
          "<= heaptrack's, RSS added <= %d MiB + %d MiB a thread.\n" % (GOAL_RATIO, *GOAL_RSS_MIB))
    rows = []
    for name, (threads, summary) in results.items():
        wall = ratio(added(summary, "memframe", "wall"), added(summary, "heaptrack", "wall"))
        cpu = ratio(added(summary, "memframe", "tree_cpu"), added(summary, "heaptrack", "tree_cpu"))
        mf_b, ht_b = summary["memframe"].get("bytes_per_event"), summary["heaptrack"].get("bytes_per_event")
        rss = added(summary, "memframe", "rss_mib")
        faults = added(summary, "memframe", "faults")
        rows.append([name, fmt(wall), fmt(cpu), "%s / %s" % (fmt(mf_b), fmt(ht_b)),
                     "%s (goal %d)" % (fmt(rss, "{:.1f}"), GOAL_RSS_MIB[0] + GOAL_RSS_MIB[1] * threads),
                     fmt(faults, "{:+,.0f}"),
                     fmt(ratio(summary["memframe"].get("p99"), summary["native"].get("p99")), "{:.2f}x")])
    print_table(["workload", "added wall / heaptrack's", "added CPU / heaptrack's", "bytes an event (memframe / heaptrack)",
                 "RSS added (MiB)", "game-thread faults added", "frame p99 / native"], rows)


def print_microbench(results):
    if not results:
        print("## hook_microbench: not run\n")
        return
    print("## hook_microbench (ns per iteration; CPU time of the benchmark threads, wall in brackets)\n")
    rows = []
    for name, by in results.items():
        nat, mf = by.get("native"), by.get("memframe")
        added = "n/a"
        if nat and mf and "Pair" in name:
            # Two recorded events per pair.
            added = "%.0f" % ((ns(mf, "cpu_time") - ns(nat, "cpu_time")) / 2)
        def cell(r):
            if not r:
                return "n/a"
            if "time_per_event" in r:  # one iteration is a whole batch (BM_EncodeBatch); seconds
                return "%.1f an event" % (r["time_per_event"] * 1e9)
            return "%.1f (%.1f)" % (ns(r, "cpu_time"), ns(r, "real_time"))
        rows.append([name, cell(nat), cell(mf), added])
    print_table(["benchmark", "native", "under memframe", "added ns / event"], rows)


# ---- main ---------------------------------------------------------------------

def find_paths(build):
    paths = {
        "workload": os.path.join(build, "bin", "game_loop_workload"),
        "microbench": os.path.join(build, "bin", "hook_microbench"),
        "memframe": os.path.join(build, "bin", "memframe"),
        "agent": os.path.join(build, "lib", "libmemframe_agent.so"),
        "demo": os.path.join(build, "bin", "memframe_demo_game"),
        "heaptrack": shutil.which("heaptrack"),
    }
    return paths


def run_workload(name, workload_args, paths, available, runs, tmp, report_timeout, keep):
    """Runs one workload `runs` times under each tool, interleaved; returns (tools, summary)."""
    tools = [Tool(n, ok, why) for n, (ok, why) in available.items()]
    for i in range(runs):
        for t in tools:
            if not t.available:
                continue
            cmd, out = tool_command(t.name, paths, workload_args, tmp, "%s-%d" % (name, i))
            run = run_command(cmd, tmp)
            fields = parse_workload(run.stdout)
            path = capture_file(t.name, out)
            if run.status != 0 or fields is None:
                t.failures.append("run %d: status %d; %s" % (i, run.status, run.stderr.strip()[-500:]))
                t.runs.append((run, None, None))
                continue
            t.runs.append((run, fields, os.path.getsize(path) if path else None))
            if path:
                # Only the last capture is kept: a capture can be large.
                if t.capture and t.capture != path:
                    os.remove(t.capture)
                t.capture = path
            print("%s %s run %d: %.3f s" % (name, t.name, i + 1, run.wall), file=sys.stderr)

    # Runs must agree: the same calls, the same checksum.
    seen = {(w["allocations"], w["checksum"]) for t in tools for _, w, _ in t.runs if w}
    if len(seen) > 1:
        print("warning: %s: runs disagree on allocations/checksum: %s" % (name, sorted(seen)), file=sys.stderr)

    for t in tools:
        good = [(r, w) for r, w, _ in t.runs if w]
        if not good:
            continue
        from_workload = good[-1][1]["allocations"] + good[-1][1]["frees"]
        if t.name == "native":
            t.events = (from_workload, "counted by the workload")
        elif t.name == "memframe":
            n = memframe_events(paths, t.capture, report_timeout) if t.capture else None
            t.events = (n, "memframe report") if n else (from_workload, "workload count: report too slow")
        else:
            n = heaptrack_events(good[-1][0])
            t.events = (n, "heaptrack stats") if n else (from_workload, "workload count")
        if t.capture and not keep:
            os.remove(t.capture)  # the next workload's runs need the room
    native_wall = median([r.wall for r, w, _ in tools[0].runs if w])
    return tools, summarise(tools, native_wall)


def workload_arguments(name, args):
    """game_loop_workload's arguments for workload `name` under these options."""
    shape_args, frames, _ = WORKLOADS[name]
    if args.frames:
        frames = args.frames
    elif args.quick:
        frames = max(20, frames // 8)
    out = list(shape_args) + ["--frames", str(frames)]
    if name == "lifo":
        out += ["--threads", str(args.threads)]
    if args.quick:
        out += ["--level-every", "40", "--level-mb", "8"]  # later arguments win
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build"),
                    help="CMake build directory holding bin/ and lib/")
    ap.add_argument("--runs", type=int, help="runs of each tool (default 5, --quick 1)")
    ap.add_argument("--workloads", default=None,
                    help="comma-separated, of: %s (default all; --quick: lifo)" % ", ".join(WORKLOADS))
    ap.add_argument("--frames", type=int, help="frames of every workload (default: each its own, --quick an eighth)")
    ap.add_argument("--threads", type=int, default=1, help="simulation threads of the lifo workload")
    ap.add_argument("--quick", action="store_true", help="small loads that finish in well under a minute")
    ap.add_argument("--report-timeout", type=float, default=60,
                    help="seconds `memframe report` may take to count events before the workload's count is used")
    ap.add_argument("--no-microbench", action="store_true")
    ap.add_argument("--no-workload", action="store_true", help="skip game_loop_workload (demo game and microbench only)")
    ap.add_argument("--demo-frames", type=int,
                    help="gameplay frames of the demo game's frame-time run (default 2000, --quick 300; 0 skips it)")
    ap.add_argument("--keep", action="store_true", help="keep the captures (their directory is printed)")
    args = ap.parse_args()
    args.runs = args.runs or (1 if args.quick else 5)
    names = (args.workloads or ("lifo" if args.quick else ",".join(WORKLOADS))).split(",")
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        sys.exit("compare.py: unknown workload %s (known: %s)" % (", ".join(unknown), ", ".join(WORKLOADS)))

    build = os.path.abspath(args.build)
    paths = find_paths(build)
    if not os.access(paths["workload"], os.X_OK):
        sys.exit("compare.py: %s not found; build the game_loop_workload target" % paths["workload"])
    mf_ok = os.access(paths["memframe"], os.X_OK) and os.path.exists(paths["agent"])
    available = {"native": (True, ""),
                 "memframe": (mf_ok, "" if mf_ok else "build the memframe and memframe_agent targets"),
                 "heaptrack": (bool(paths["heaptrack"]), "" if paths["heaptrack"] else "not installed")}

    tmp = tempfile.mkdtemp(prefix="memframe-bench-")
    failed = False
    try:
        results = {}
        for name in ([] if args.no_workload else names):
            workload_args = workload_arguments(name, args)
            loads = (os.getloadavg()[0],)
            tools, summary = run_workload(name, workload_args, paths, available, args.runs, tmp, args.report_timeout,
                                          args.keep)
            loads += (os.getloadavg()[0],)
            print_results(name, workload_args, tools, summary, args.runs, loads)
            for t in tools:
                for f in t.failures:
                    failed = True
                    print("- %s failed: %s" % (t.name, f))
            threads = int(workload_args[workload_args.index("--threads") + 1]) if "--threads" in workload_args else 1
            results[name] = (threads, summary)
        if results:
            print_goals(results)

        demo_frames = args.demo_frames if args.demo_frames is not None else (300 if args.quick else 2000)
        if demo_frames > 0 and os.access(paths["demo"], os.X_OK) and mf_ok:
            print_demo(run_demo(paths, tmp, demo_frames, args.runs), demo_frames)

        if not args.no_microbench:
            if os.access(paths["microbench"], os.X_OK):
                print_microbench(run_microbench(paths, tmp, args.quick, mf_ok))
            else:
                print("## hook_microbench: not built\n")
    finally:
        if args.keep:
            print("captures kept in %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
