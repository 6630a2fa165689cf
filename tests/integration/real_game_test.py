#!/usr/bin/env python3
"""A game nobody here wrote, from Debian's packages, under `memframe run`
(or, with --attach, recorded by `memframe attach` once it runs).

    real_game_test.py --memframe PATH --viewer PATH --frame-source NAME [--seconds S] [--attach] -- GAME [ARGS...]

Runs inside a virtual X server (with_xvfb.sh) with Mesa's software renderer
and no audio. The game sits in its menu for --seconds, then gets SIGTERM as
a window manager would send it; a game that ignores it gets SIGKILL. It checks
what must hold for any program (capture_checks.py): frames through the
game's own present (--frame-source), no call missed, reports and viewer on
the capture, the game's and the driver's allocations told apart.

With --attach the game is started alone, memframe attaches once its GL
driver is loaded and records for --seconds, then detaches: the same checks
hold (an attached capture counts the frees of older blocks apart, never as
unknown frees), the capture says it starts at an attach, and the game runs
on after the detach until SIGTERM ends it as it would end without memframe.

Exit status 77 (ctest SKIP_RETURN_CODE) when the game is not installed.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

import capture_checks
from capture_checks import fail
from game_drive import GAME_ENV, children_of, driver_loaded


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

        capture_checks.check_capture(args.memframe, args.viewer, capture, tmp, args.frame_source,
                                     args.min_fps * args.seconds, attached=args.attach)
    print("real_game_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(capture_checks.main_guard(main))
