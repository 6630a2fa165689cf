#!/usr/bin/env python3
"""A game nobody here wrote, from Debian's packages, under `memframe run`
(or, with --attach, recorded by `memframe attach` once it runs).

    real_game_test.py --memframe PATH --viewer PATH --frame-source NAME [--seconds S] [--attach] -- GAME [ARGS...]

Runs inside a virtual X server (with_xvfb.sh) with Mesa's software renderer
and no audio. The game sits in its menu for --seconds, then gets SIGTERM as
a window manager would send it; a game that ignores it gets SIGKILL. We do
not know such a game's allocations, so the test checks what must hold for
any program, and would fail if the agent missed calls or frames:

- frames were found through the game's own present (--frame-source), and
  there are enough of them for the time it ran;
- every free matches an allocation memframe saw (no unknown frees) and no
  allocation lands on a block still live (no missed frees), nothing dropped;
- the reports name the sites (every hidden site has a stack), and the viewer
  opens the capture and draws it;
- who allocated: the game's own allocations and the graphics driver's are
  told apart (both classes have allocations, the summary gives the driver's
  share, driver sites are named after the game frame that led there, and
  `--hide driver` leaves none of them).

With --attach the game is started alone, memframe attaches once its GL
driver is loaded and records for --seconds, then detaches: the same checks
hold (an attached capture counts the frees of older blocks apart, never as
unknown frees), the capture says it starts at an attach, and the game runs
on after the detach until SIGTERM ends it as it would end without memframe.

Exit status 77 (ctest SKIP_RETURN_CODE) when the game is not installed.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from game_drive import GAME_ENV, children_of, driver_loaded


def stack_of(report, site):
    """The frames of a row's stack, innermost first: a report writes each
    stack once, in "stacks" (id -> frame indices) over "stack_frames"."""
    return [report["stack_frames"][i] for i in report["stacks"].get(str(site["stack_id"]), [])]


def fail(message):
    print("real_game_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def record(args, capture, log):
    env = dict(os.environ, **GAME_ENV)
    cmd = [args.memframe, "run", "--no-live", "--no-summary", "-o", capture, "--"] + args.game
    recorder = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    time.sleep(args.seconds)
    if recorder.poll() is not None:
        fail("the game ended by itself within %d s (exit %d); see %s" % (args.seconds, recorder.returncode, log.name))
    games = children_of(recorder.pid)
    if not games:
        fail("memframe run has no child process")
    for pid in games:
        os.kill(pid, signal.SIGTERM)
    try:
        recorder.wait(timeout=30)
    except subprocess.TimeoutExpired:
        for pid in children_of(recorder.pid):
            os.kill(pid, signal.SIGKILL)
        try:
            recorder.wait(timeout=30)
        except subprocess.TimeoutExpired:
            recorder.kill()
            fail("memframe run did not finish after the game was killed")
    return recorder.returncode


def record_attached(args, capture, log):
    """Starts the game alone, attaches once it draws, detaches after
    --seconds; returns the game's exit status after SIGTERM (negative: the
    signal that killed it)."""
    env = dict(os.environ, **GAME_ENV)
    game = subprocess.Popen(args.game, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not driver_loaded(game.pid):
        if game.poll() is not None or time.monotonic() > deadline:
            game.kill()
            fail("the game never loaded its GL driver (exit %s); see %s" % (game.poll(), log.name))
        time.sleep(0.1)
    # Its menu comes a few seconds after its driver (textures, fonts, levels
    # load first): attaching then records the menu, as the run records it.
    time.sleep(args.settle)
    attach = subprocess.run([args.memframe, "attach", "--no-live", "--no-summary", "--duration", str(args.seconds),
                             "-o", capture, str(game.pid)], stdout=log, stderr=subprocess.STDOUT, timeout=300)
    if attach.returncode != 0:
        game.kill()
        fail("memframe attach exited %d; see %s" % (attach.returncode, log.name))
    if game.poll() is not None:
        fail("the game did not run on after the detach (exit %d)" % game.returncode)
    game.send_signal(signal.SIGTERM)
    try:
        return game.wait(timeout=30)
    except subprocess.TimeoutExpired:
        game.kill()
        fail("the game did not end on SIGTERM after the detach")


def report(args, capture, name, *options):
    result = subprocess.run([args.memframe, "report", capture, name, "--json"] + list(options), capture_output=True,
                            text=True, timeout=300)
    # 1: the capture is incomplete (the game was killed), which a game that
    # dies of SIGTERM leaves; the report still covers everything recorded.
    if result.returncode not in (0, 1):
        fail("memframe report %s exited %d: %s" % (name, result.returncode, result.stderr))
    return json.loads(result.stdout)


def every_phase(report_json, key="sites"):
    """The rows of every phase of a per-phase report (a site in two phases is two rows)."""
    return [row for phase in report_json["phases"] for row in phase[key]]


def check_module_classes(args, capture, summary, hidden):
    classes = {c["module_class"]: c for c in summary["module_classes"]}
    total = sum(c["allocations"] for c in classes.values())
    if total != summary["allocations"]:
        fail("the classes' allocations add up to %d, not %d" % (total, summary["allocations"]))
    # A game idling in its menu may allocate nothing itself: an attach then
    # sees only its driver's allocations (a run also sees its start-up).
    for name in ("driver",) if args.attach else ("game", "driver"):
        if classes[name]["allocations"] == 0:
            fail("no allocation is classed %s: %s" % (name, classes))
    print("module classes: " + ", ".join("%s %d allocations (%.1f%%), %d bytes" % (
        name, c["allocations"], 100.0 * c["allocations"] / total, c["bytes"]) for name, c in classes.items()))
    hidden_sites = every_phase(hidden)
    driver_sites = [s for s in hidden_sites if s["module_class"] == "driver"]
    # Under llvmpipe the driver allocates in every frame the game draws.
    if not driver_sites:
        fail("no hidden site is the driver's: %s" % [s["name"] for s in hidden_sites])
    named = [s for s in driver_sites if s["name"].endswith(")") and " (via " in s["name"]]
    if not named:
        fail("no driver site names the game frame that led there: %s" % [s["name"] for s in driver_sites])
    for site in hidden_sites:
        for frame in stack_of(hidden, site):
            if "libmemframe_agent" in frame["module"]:
                fail("memframe's own frame in the stack of %s" % site["name"])
    kept = every_phase(report(args, capture, "hidden", "--hide", "driver"))
    if any(s["module_class"] == "driver" for s in kept):
        fail("--hide driver kept a driver site")
    print("driver sites: %d (e.g. %s); with --hide driver: %d sites" % (len(driver_sites), named[0]["name"],
                                                                        len(kept)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--memframe", required=True)
    parser.add_argument("--viewer", required=True)
    parser.add_argument("--frame-source", required=True)
    parser.add_argument("--seconds", type=int, default=12)
    # One frame a second: a game the agent stalls draws none, while Mesa's
    # software renderer on a loaded two-core machine (CI runs two tests at
    # once) drew Neverball's menu at ~1 frame a second.
    parser.add_argument("--min-fps", type=float, default=1.0)
    parser.add_argument("--attach", action="store_true")
    parser.add_argument("--settle", type=float, default=4.0, help="--attach: seconds from the driver to the attach")
    parser.add_argument("game", nargs="+")
    args = parser.parse_args()
    if not os.access(args.game[0], os.X_OK):
        print("real_game_test: %s is not installed (scripts/setup.sh installs it): skipped" % args.game[0])
        return 77

    with tempfile.TemporaryDirectory(prefix="memframe-real-game-") as tmp:
        capture = os.path.join(tmp, "game.mfc")
        with open(os.path.join(tmp, "run.log"), "w+") as log:
            status = record_attached(args, capture, log) if args.attach else record(args, capture, log)
            log.seek(0)
            output = log.read()
        print(("the game exited %d after the detach and SIGTERM" if args.attach else "memframe run exited %d") % status)
        if args.attach and status in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS, -signal.SIGILL):
            fail("the game crashed after the detach (signal %d); it said:\n%s" % (-status, output))
        if not os.path.exists(capture):
            fail("no capture written; memframe run said:\n" + output)

        summary = report(args, capture, "summary")
        print(json.dumps({k: v for k, v in summary.items() if not isinstance(v, (dict, list))}))
        if args.attach and not summary["capture"]["attached"]:
            fail("the capture does not say it starts at an attach")
        if summary["frame_source"] != args.frame_source:
            fail("frames came from %r, not the game's %r" % (summary["frame_source"], args.frame_source))
        if summary["frames"] < args.min_fps * args.seconds:
            fail("%d frames in %d s" % (summary["frames"], args.seconds))
        if summary["allocations"] < 1000:
            fail("only %d allocations" % summary["allocations"])
        for key in ("unknown_frees", "allocs_over_live", "dropped_events"):
            if summary[key] != 0:
                fail("%s = %d: the agent missed calls" % (key, summary[key]))
        if summary["threads"] < 1:
            fail("no threads")

        hidden = report(args, capture, "hidden")
        hidden_sites = every_phase(hidden)
        if not hidden_sites:
            fail("no call site allocates in most frames")
        for site in hidden_sites:
            if not stack_of(hidden, site):
                fail("hidden site %s has no stack" % site["stack_id"])
        print("hidden sites: %d in %d steady phases, first: %s" % (len(hidden_sites), len(hidden["phases"]),
                                                                   hidden_sites[0]["name"]))
        check_module_classes(args, capture, summary, hidden)

        png = os.path.join(tmp, "timeline.png")
        shot = subprocess.run([args.viewer, capture, "--screenshot", png, "--view", "timeline"],
                              capture_output=True, text=True, timeout=300)
        if shot.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) < 1000:
            fail("the viewer could not draw the capture (exit %d): %s" % (shot.returncode, shot.stderr))
    print("real_game_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
