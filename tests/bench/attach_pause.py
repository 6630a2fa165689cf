#!/usr/bin/env python3
"""How long a game stops when a profiler attaches to it: `memframe attach`
against heaptrack `--pid` (which injects with gdb), on the demo game, in the
same run (issue 15). Not a test: it prints numbers for people to read.

    cmake --build build --target memframe memframe_agent memframe_demo_game
    LIBGL_ALWAYS_SOFTWARE=1 tests/integration/with_xvfb.sh tests/bench/attach_pause.py --build build --runs 5

Each run starts the demo game with --frame-log (when every gameplay frame
ended, and its length), lets it play --lead seconds, then attaches one tool
to it; tools alternate run by run so that a busy machine hurts both alike.
The attach's pause is the longest frame that ends between the tool's start
and a moment after it says it records (memframe: "recording"; heaptrack:
"injection finished"). memframe then records --hold seconds and detaches:
the detach's pause is the longest frame ending between the detach and a
moment after memframe exits. heaptrack stays until the game ends. The
"no tool" column is the longest frame of a window as long as memframe's
attach window, just before the attach: what this machine does by itself.
Medians over the runs (and every run's figure).
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

SETTLE_S = 0.3  # after the tool says it is in: frames that ended late still count


def read_frame_log(path):
    """[(end_s, length_ms)] on the monotonic clock (the game's steady_clock)."""
    frames = []
    with open(path) as f:
        for line in f:
            end_us, length_us = line.split()
            frames.append((int(end_us) / 1e6, int(length_us) / 1e3))
    return frames


def longest(frames, start, end):
    """The longest frame (ms) that ended within [start, end], or None."""
    inside = [length for at, length in frames if start <= at <= end]
    return max(inside) if inside else None


def wait_for_line(proc, words, seconds, lines):
    """Reads proc's stdout/stderr (merged) into `lines` until one holds `words`; the time it came, or None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            return None
        lines.append(line)
        if words in line:
            return time.monotonic()
    return None


# What heaptrack's gdb says when its injection did not take (heaptrack still
# says "injection finished").
HEAPTRACK_FAILURES = ("No symbol \"heaptrack_inject\"", "Couldn't write", "Could not attach", "ptrace: ")


def calibrate(game, env):
    """The game's median frame length (s), from a short native run."""
    run = subprocess.run(game + ["--frames", "200", "--frame-times", "--quiet"], capture_output=True, text=True,
                         env=env, timeout=120)
    for word in run.stdout.split():
        if word.startswith("p50="):
            return int(word[4:]) / 1e6
    sys.exit("attach_pause: the demo game did not run: " + run.stderr[-500:])


def one_run(tool, args, game, frames, env, tmp):
    """{"attach": ms, "detach": ms or None, "noise": ms} for one attach of `tool`, or None."""
    log = os.path.join(tmp, "frames.log")
    proc = subprocess.Popen(game + ["--frames", str(frames), "--quiet", "--frame-log", log], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(args.lead)
    start = time.monotonic()
    if tool == "memframe":
        cmd = [args.memframe, "attach", "--no-live", "--no-summary", "--force", "--duration", str(args.hold), "-o",
               os.path.join(tmp, "attach.mfc"), str(proc.pid)]
        said = "memframe: recording"
    else:
        cmd = [args.heaptrack, "-o", os.path.join(tmp, "heaptrack"), "--pid", str(proc.pid)]
        said = "injection finished"
    # A session of its own: heaptrack's interpreter waits forever for a
    # writer when the injection failed, and is ended with its group.
    attach = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                              start_new_session=True)
    lines = []
    inside = wait_for_line(attach, said, 60, lines)
    detach_start = time.monotonic()
    if tool == "memframe":
        rest, _ = attach.communicate(timeout=600)
        lines.append(rest)
    detach_end = time.monotonic()
    game_status = proc.wait(timeout=600)
    if tool != "memframe":
        try:
            os.killpg(attach.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        rest, _ = attach.communicate(timeout=60)
        lines.append(rest)
    said_all = "".join(lines)
    failed = [line.strip() for line in said_all.splitlines() if any(f in line for f in HEAPTRACK_FAILURES)]
    note = ("game status %d" % game_status if game_status != 0 else "") + \
        ("; " if game_status != 0 and failed else "") + ("injection failed: " + " / ".join(failed) if failed else "")
    if inside is None or not os.path.exists(log):
        print("warning: %s run lost (%s): %s" % (tool, note or "game status %d" % game_status, said_all[-300:]),
              file=sys.stderr)
        return {"lost": note or "game status %d" % game_status}
    frames_seen = read_frame_log(log)
    os.unlink(log)
    window = inside + SETTLE_S - start
    result = {"attach": longest(frames_seen, start, inside + SETTLE_S),
              "noise": longest(frames_seen, start - window, start), "note": note}
    if tool == "memframe":
        result["detach"] = longest(frames_seen, detach_start + args.hold - 0.1, detach_end + SETTLE_S)
        result["window"] = window
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5, help="attaches per tool (default 5)")
    ap.add_argument("--lead", type=float, default=1.5, help="seconds of play before the attach")
    ap.add_argument("--hold", type=float, default=1.0, help="seconds memframe records before it detaches")
    ap.add_argument("--tail", type=float, default=6.0, help="seconds the game plays after the attach starts")
    args = ap.parse_args()
    args.memframe = os.path.join(args.build, "bin", "memframe")
    args.heaptrack = shutil.which("heaptrack")
    demo = os.path.join(args.build, "bin", "memframe_demo_game")
    if not os.environ.get("DISPLAY"):
        sys.exit("attach_pause: no DISPLAY: run it under tests/integration/with_xvfb.sh")
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1")
    game = [demo]
    frame_s = calibrate(game, env)
    frames = int((args.lead + args.tail) / frame_s)
    tools = ["memframe"] + (["heaptrack"] if args.heaptrack else [])
    if not args.heaptrack:
        print("warning: heaptrack not installed: memframe only", file=sys.stderr)
    results = {tool: [] for tool in tools}
    with tempfile.TemporaryDirectory(prefix="memframe-attach-pause-") as tmp:
        for _ in range(args.runs):
            for tool in tools:
                r = one_run(tool, args, game, frames, env, tmp)
                if r:
                    results[tool].append(r)
    print("## Attach pause: the demo game's longest frame around the attach (ms)\n")
    print("demo game: %d gameplay frames of ~%.1f ms (software GL), attach after %.1f s; %d runs per tool; load %.1f\n"
          % (frames, frame_s * 1e3, args.lead, args.runs, os.getloadavg()[0]))
    print("| tool | attach: median | every run | detach: median | no tool, same window: median |")
    print("|---|---|---|---|---|")
    notes = []
    for tool in tools:
        rs = [r for r in results[tool] if "attach" in r and r["attach"] is not None]
        notes += ["%s: %s" % (tool, r.get("note") or r.get("lost")) for r in results[tool]
                  if r.get("note") or r.get("lost")]
        if not rs:
            print("| %s | n/a | | | |" % tool)
            continue

        def med(key):
            values = [r[key] for r in rs if r.get(key) is not None]
            return statistics.median(values) if values else float("nan")
        print("| %s | %.1f | %s | %s | %.1f |" % (
            tool, med("attach"), " ".join("%.0f" % r["attach"] for r in rs),
            "%.1f" % med("detach") if tool == "memframe" else "stays attached", med("noise")))
    for n in notes:
        print("\n- " + n)


if __name__ == "__main__":
    main()
