#!/usr/bin/env python3
"""Time from a recorded program's exit to the last line of memframe run's summary.

    tests/bench/summary_latency.py --build build -- game_loop_workload --frames 1550 --threads 2

Runs `memframe run -o OUT -- PROGRAM ARGS` with stdout and stderr merged and
stamps every line as it arrives. The program's exit is its last line
(game_loop_workload prints cpu_ms last; with another program pass
--exit-line PREFIX); the summary's end is memframe's last line. Prints both
times, the wall between them, and the CPU seconds memframe spent (all
children's CPU minus the program's own cpu_ms when it prints one), since a
loaded machine stretches wall time. Not a ctest: timings are for people.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--output", default="/tmp/summary_latency.mfc")
    parser.add_argument("--exit-line", default="peak_rss_kb=")
    parser.add_argument("--keep", action="store_true", help="keep the capture")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = [a for a in args.program if a != "--"]
    if program and not os.path.sep in program[0]:
        program[0] = os.path.join(args.build, "bin", program[0])
    cmd = [os.path.join(args.build, "bin", "memframe"), "run", "--force", "-o", args.output, "--"] + program
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    exit_at = None
    last_at = start
    program_cpu_ms = 0
    for line in proc.stdout:
        now = time.monotonic()
        sys.stdout.write("%8.3f %s" % (now - start, line))
        if line.startswith(args.exit_line):
            exit_at = now
            m = re.search(r"cpu_ms=(\d+)", line)
            if m:
                program_cpu_ms = int(m.group(1))
        last_at = now
    rc = proc.wait()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - program_cpu_ms / 1000.0
    if exit_at is None:
        print("no line starting with %r: the program's exit is unknown" % args.exit_line)
        return 1
    print("exit at %.3f s, summary's last line at %.3f s: %.3f s after the exit (memframe's CPU all run: %.2f s), rc %d"
          % (exit_at - start, last_at - start, last_at - exit_at, cpu, rc))
    if not args.keep:
        os.unlink(args.output)
    return rc


if __name__ == "__main__":
    sys.exit(main())
