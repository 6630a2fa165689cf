#!/usr/bin/env python3
"""What GPU tracking costs the render thread (issue 31, "Cost").

Runs gl_hook_bench (--calls: ns per GL call; --frames: a streaming game's
frame times) and the demo game's frame times three ways, interleaved so
that a busy machine hurts each alike: natively, under `memframe run
--no-gpu` (the heap recorded, the GL hooks only pass calls on) and under
`memframe run`. GPU tracking's own cost is the last against the second.
Prints markdown tables (README.md, "GPU tracking's cost"). Needs a display:
run it under one X server,

    LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s '-screen 0 1280x800x24' tests/bench/gl_cost.py --build build

Nothing here judges the numbers. Standard library only.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

WAYS = ("native", "memframe --no-gpu", "memframe")


def command(way, program, capture):
    if way == "native":
        return program
    run = [ARGS.memframe, "run", "-o", capture, "--force", "--no-summary", "--no-live"]
    if way == "memframe --no-gpu":
        run.append("--no-gpu")
    return run + ["--"] + program


def fields(text, prefix):
    """{key: float} of the line starting with `prefix`, or None."""
    for line in text.splitlines():
        if line.startswith(prefix):
            return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", line)}
    return None


def measure(program, prefix, runs, tmp):
    """{way: [fields of each run]}, the ways interleaved run by run."""
    results = {way: [] for way in WAYS}
    for i in range(runs):
        for way in WAYS:
            proc = subprocess.run(command(way, program, os.path.join(tmp, "run.mfc")), capture_output=True, text=True)
            parsed = fields(proc.stdout, prefix)
            if proc.returncode != 0 or parsed is None:
                sys.exit("%s under %s failed (status %d): %s" % (program[0], way, proc.returncode, proc.stderr[-800:]))
            results[way].append(parsed)
    return results


def table(title, results, keys, unit):
    print("\n### %s\n" % title)
    print("| %s | %s | GPU tracking against --no-gpu |" % (unit, " | ".join(WAYS)))
    print("|---|" + "---|" * (len(WAYS) + 1))
    for key in keys:
        medians = [statistics.median(r[key] for r in results[way]) for way in WAYS]
        added = (medians[2] / medians[1] - 1) * 100 if medians[1] else float("nan")
        print("| %s | %s | %+.1f %% |" % (key, " | ".join("%.1f" % m for m in medians), added))


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=2000, help="frames of each frame-time run")
    ARGS = ap.parse_args()
    ARGS.memframe = os.path.join(ARGS.build, "bin", "memframe")
    bench = os.path.join(ARGS.build, "bin", "gl_hook_bench")
    demo = os.path.join(ARGS.build, "bin", "memframe_demo_game")
    print("%d runs each, interleaved; medians of the runs" % ARGS.runs)
    with tempfile.TemporaryDirectory() as tmp:
        calls = measure([bench, "--calls"], "gl_call_ns", ARGS.runs, tmp)
        table("gl_hook_bench --calls: ns per call (best of 15 runs of 20,000 binds or 2,000 stores and images)", calls,
              ("bind_texture", "buffer_data", "tex_image_2d"), "ns/call")
        frames = measure([bench, "--frames", str(ARGS.frames)], "frame_time_us", ARGS.runs, tmp)
        table("gl_hook_bench --frames %d: 2,000 binds, 200 glBufferData, 8 glTexImage2D a frame" % ARGS.frames,
              frames, ("p50", "p99", "cpu_p50", "cpu_p99"), "frame time (us)")
        if os.access(demo, os.X_OK):
            played = measure([demo, "--frames", str(ARGS.frames), "--frame-times", "--quiet"], "frame_time_us",
                             ARGS.runs, tmp)
            table("memframe_demo_game --frames %d --frame-times" % ARGS.frames, played, ("p50", "p99"),
                  "frame time (us)")


if __name__ == "__main__":
    main()
