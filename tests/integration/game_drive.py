#!/usr/bin/env python3
"""Plays a game nobody here wrote through its menus, a load and some play,
under `memframe run` (or recorded by `memframe attach`), pressing its keys
with xdotool, and writes a script log beside the capture: each step's name
and the frame it happened in. Such a capture has a truth for its phases:
the title, the load after "Play", the level, the way back to the menu.

    game_drive.py --memframe PATH -o CAPTURE [--attach] [--mark] [--shots DIR] GAME
    game_drive.py --list
    game_drive.py --memframe PATH --phases CAPTURE   # the detector's phases beside the steps

GAME is a name from game_scripts.py (the games, their settings and steps).
The log is CAPTURE with .steps.json for .mfc:

    { "game", "command", "capture", "mode": "run"|"attach", "frame_source", "frames",
      "wall_seconds", "steps": [ { "name", "action", "screen", "loads" (the
      step's truth: game_scripts.py), "at_s" (seconds since the game was
      started), "frame" (the frame the step began in; null before an
      attach), "end_frame" (the frame its action ended in), "short" (true:
      the game drew fewer frames than the step wanted within --patience),
      "mark_frame" (--mark) } ] }

Under `memframe run` each step lasts its `wait` seconds after its action
and at least its `frames` frames, counted live on the run's live socket
(live_frames.py); under --attach, its seconds only.

Step times become frames through the capture's own clock: `memframe export
--format chrome-json` gives each frame's span in CLOCK_MONOTONIC, which
Python's time.monotonic_ns() reads too. --mark also places a `memframe mark`
at each step (run only: the live socket) to check that mapping; those
markers stay in the capture, where `lifetimes` takes them for level
boundaries, so captures meant as a truth for the analysis leave them out.

The game runs in an Xvfb of its own (the screen size its steps were written
for; no auto-repeat, so a held key is one press), with Mesa's software
renderer, no audio and HOME in a temporary folder with the game's settings
(windowed, small; etr reads its home from the password database, not HOME,
and writes ~/.etr as the real_game test does). The whole run is bounded:
past --timeout the game and memframe are killed. real_game_test.py imports
this file.
"""
import argparse
import bisect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import game_scripts
from live_frames import LiveFrames

# Mesa's software renderer and no audio device: what a headless machine has.
GAME_ENV = {"LIBGL_ALWAYS_SOFTWARE": "1", "SDL_AUDIODRIVER": "dummy", "ALSOFT_DRIVERS": "null"}


def children_of(pid):
    """Pids whose parent is `pid` (the game is memframe's child)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: fields follow the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def driver_loaded(pid):
    """True once the game's GL driver (Mesa's) is mapped: it has a context."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            maps = f.read()
    except OSError:
        return False
    return any(name in maps for name in ("swrast_dri", "libgallium", "libGLX_mesa"))


class DriveError(Exception):
    pass


class Display:
    """An Xvfb of its own: -displayfd makes the server pick a free display
    and say which, which cannot race another run starting at once;
    -noreset, as the server resets when its last client leaves (each
    xdotool call), and a game that connects then cannot open it; -r: no
    auto-repeat, a held key is one press."""

    def __init__(self, screen):
        self.screen = screen

    def __enter__(self):
        read_end, write_end = os.pipe()
        self.server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", self.screen,
                                        "-nolisten", "tcp", "-r", "-noreset"], pass_fds=(write_end,),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end) as f:
            number = f.readline().strip()
        if not number.isdigit():
            self.server.kill()
            raise DriveError("Xvfb did not start")
        self.name = ":" + number
        return self

    def __exit__(self, *exc):
        self.server.terminate()
        self.server.wait(timeout=30)


class Ui:
    """xdotool on one game window. Keys go through XTEST to the focused
    window (no window manager: the script gives it the focus)."""

    def __init__(self, display, window, pointer_rest):
        self.env = dict(os.environ, DISPLAY=display)
        self.window, self.pointer_rest = window, pointer_rest

    def xdo(self, *args):
        subprocess.run(["xdotool"] + [str(a) for a in args], env=self.env, check=True, timeout=30,
                       stdout=subprocess.DEVNULL)

    def rest_pointer(self):
        """Out of the way: a pointer over a menu item moves some games' selection."""
        self.xdo("mousemove", *self.pointer_rest)

    def focus(self):
        self.xdo("windowfocus", self.window)

    def screenshot(self, path):
        # `import -window` of a window that is gone waits for a click instead.
        try:
            subprocess.run(["import", "-window", self.window, "-resize", "320x", path], env=self.env, timeout=10,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            pass


def find_window(display, pattern, deadline, alive):
    """The id of the first visible window whose class's instance name
    (WM_CLASS's first half) matches, once it is mapped (`xdotool search
    --name` found none of SDL2's titles here)."""
    env = dict(os.environ, DISPLAY=display)
    while time.monotonic() < deadline:
        if not alive():
            raise DriveError("the game ended before its window showed")
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--classname", pattern], env=env,
                               capture_output=True, text=True, timeout=30)
        if found.returncode == 0 and found.stdout.split():
            return found.stdout.split()[0]
        time.sleep(0.25)
    raise DriveError("no window of class name %r" % pattern)


def write_home(home, files):
    for relative, text in files.items():
        path = os.path.join(home, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


class Run:
    """The game under `memframe run` or attached; the steps; its end."""

    def __init__(self, args, game, display, home, log):
        self.args, self.game, self.display, self.log = args, game, display, log
        self.env = dict(os.environ, HOME=home, DISPLAY=display, **GAME_ENV)
        self.live_socket = None
        self.live_frames = None  # run: the frame the game is in
        self.recorder = None  # memframe run, or memframe attach
        self.game_proc = None  # the game itself with --attach
        self.started_ns = None

    # --- start ---------------------------------------------------------
    def start(self):
        self.started_ns = time.monotonic_ns()
        if self.args.attach:
            self.game_proc = subprocess.Popen(self.game.command, env=self.env, stdout=self.log,
                                              stderr=subprocess.STDOUT, start_new_session=True)
            return
        # The live socket: the frames each step waits for, and --mark.
        cmd = [self.args.memframe, "run", "--no-summary", "-o", self.args.output, "--force"]
        self.recorder = subprocess.Popen(cmd + ["--"] + self.game.command, env=self.env, stdout=self.log,
                                         stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.tee(self.recorder.stderr)

    def tee(self, stream, recording=None):
        """Copies memframe's stderr to the log, noting the live socket and
        (attach) when it records."""

        def copy():
            for line in stream:
                self.log.write(line)
                self.log.flush()
                found = re.search(r"--follow (\S+live\.sock)", line)
                if found:
                    self.live_socket = found.group(1)
                if recording and line.startswith("memframe: recording"):
                    recording.set()

        threading.Thread(target=copy, daemon=True).start()

    def alive(self):
        proc = self.game_proc or self.recorder
        return proc.poll() is None

    def attach(self, deadline):
        """Attaches once the game has its GL driver, after --settle."""
        while not driver_loaded(self.game_proc.pid):
            if not self.alive() or time.monotonic() > deadline:
                raise DriveError("the game never loaded its GL driver")
            time.sleep(0.1)
        time.sleep(self.args.settle)
        recording = threading.Event()
        cmd = [self.args.memframe, "attach", "--no-summary", "--force", "-o", self.args.output]
        self.recorder = subprocess.Popen(cmd + ([] if self.args.mark else ["--no-live"]) + [str(self.game_proc.pid)],
                                         env=self.env, stdout=self.log, stderr=subprocess.PIPE, text=True,
                                         start_new_session=True)
        self.tee(self.recorder.stderr, recording)
        if not recording.wait(timeout=max(1, deadline - time.monotonic())):
            raise DriveError("memframe attach did not start recording")

    # --- steps ---------------------------------------------------------
    def follow_frames(self, deadline):
        """Connects to the run's live socket (memframe prints it as it starts)."""
        while not self.live_socket:
            if not self.alive() or time.monotonic() > deadline:
                raise DriveError("memframe run did not say where its live socket is")
            time.sleep(0.05)
        self.live_frames = LiveFrames(self.live_socket)

    def wait_for(self, step, first_frame, deadline):
        """`step.wait` seconds, then until the step has lasted
        `step.frames` frames (at most --patience seconds more); False if
        the game drew fewer."""
        time.sleep(step.wait)
        if not self.live_frames or not step.frames:
            return True
        patience = min(self.args.patience, max(0, deadline - time.monotonic()))
        return self.live_frames.wait_until(first_frame + step.frames, patience)

    def mark(self, name):
        if not self.live_socket:
            return
        subprocess.run([self.args.memframe, "mark", self.live_socket, name], stdout=subprocess.DEVNULL,
                       stderr=self.log, timeout=30)

    def play(self, ui, deadline):
        if not self.args.attach:
            self.follow_frames(deadline)
        done = []
        for number, step in enumerate(self.game.steps, 1):
            if time.monotonic() > deadline:
                raise DriveError("past --timeout at step %d (%s)" % (number, step.name))
            if not self.alive():
                raise DriveError("the game ended before step %d (%s)" % (number, step.name))
            if self.args.shots:
                ui.screenshot(os.path.join(self.args.shots, "%02d-before-%s.png" % (number, slug(step.name))))
            ui.focus()
            begin = time.monotonic_ns()
            first_frame = self.live_frames.frame if self.live_frames else 0
            if self.args.mark:
                self.mark("step %d: %s" % (number, step.name))
            step.action.run(ui)
            end = time.monotonic_ns()
            done.append({"name": step.name, "action": str(step.action), "screen": step.screen, "loads": step.loads,
                         "begin_ns": begin, "end_ns": end, "short": not self.wait_for(step, first_frame, deadline)})
        if self.args.shots and self.alive():
            ui.screenshot(os.path.join(self.args.shots, "%02d-end.png" % (len(done) + 1)))
        return done

    # --- end -----------------------------------------------------------
    def finish(self):
        """SIGTERM to the game, as a window manager ends it (after a detach
        with --attach); SIGKILL if it does not end."""
        if self.args.attach and self.recorder:
            subprocess.run([self.args.memframe, "detach", str(self.game_proc.pid)], stdout=self.log,
                           stderr=subprocess.STDOUT, timeout=60)
            ended_within(self.recorder, 60)
        games = [self.game_proc.pid] if self.game_proc else children_of(self.recorder.pid)
        signal_all(games, signal.SIGTERM)
        proc = self.game_proc or self.recorder
        if not ended_within(proc, 30):
            signal_all([self.game_proc.pid] if self.game_proc else children_of(self.recorder.pid), signal.SIGKILL)
            ended_within(proc, 30)

    def kill(self):
        """Past --timeout: each process group started here (memframe and
        the game it runs; or the game, and memframe attach)."""
        for proc in (self.recorder, self.game_proc):
            if proc and proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def signal_all(pids, number):
    for pid in pids:
        try:
            os.kill(pid, number)
        except ProcessLookupError:
            pass


def ended_within(proc, seconds):
    try:
        proc.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40]


# --- frames ----------------------------------------------------------------
def frame_spans(memframe, capture):
    """[(start_ns, end_ns, frame)] of the capture's frames, from its
    Trace Event export (CLOCK_MONOTONIC), and its markers [(name, frame)]."""
    with tempfile.TemporaryDirectory(prefix="memframe-drive-") as tmp:
        path = os.path.join(tmp, "trace.json")
        # Its warnings (a capture cut short by a kill) are the summary's too.
        subprocess.run([memframe, "export", capture, "--format", "chrome-json", "-o", path], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
    spans = sorted((int(e["ts"] * 1000), int((e["ts"] + e["dur"]) * 1000), e["args"]["frame"])
                   for e in events if e.get("cat") == "frame")
    markers = [(e["name"], e["args"]["frame"]) for e in events if e.get("cat") == "marker"]
    return spans, markers


def frame_at(spans, starts, ns):
    """The frame whose span holds `ns`: the last one begun by then; None
    before the first (a step before an attach)."""
    i = bisect.bisect_right(starts, ns) - 1
    return spans[i][2] if i >= 0 else None


def script_log(args, game, run, steps, wall_seconds, summary):
    spans, markers = frame_spans(args.memframe, args.output)
    starts = [s[0] for s in spans]
    marks = {name: frame for name, frame in markers}
    out = []
    for number, step in enumerate(steps, 1):
        entry = {"name": step["name"], "action": step["action"], "screen": step["screen"], "loads": step["loads"],
                 "short": step["short"], "at_s": round((step["begin_ns"] - run.started_ns) / 1e9, 2),
                 "frame": frame_at(spans, starts, step["begin_ns"]),
                 "end_frame": frame_at(spans, starts, step["end_ns"])}
        if args.mark:
            entry["mark_frame"] = marks.get("step %d: %s" % (number, step["name"]))
        out.append(entry)
    return {"game": game.name, "command": game.command, "capture": os.path.abspath(args.output),
            "mode": "attach" if args.attach else "run", "frame_source": summary.get("frame_source"),
            "frames": summary.get("frames"), "wall_seconds": round(wall_seconds, 1), "steps": out}


def steps_path(capture):
    return (capture[:-4] if capture.endswith(".mfc") else capture) + ".steps.json"


def drive(args, game):
    """One run of `game`; returns the script log (also written beside the
    capture) and the capture's summary (`report summary --json`)."""
    if not os.access(game.command[0], os.X_OK):
        raise DriveError("%s is not installed (scripts/setup.sh installs it)" % game.command[0])
    if args.shots:
        os.makedirs(args.shots, exist_ok=True)
    deadline = time.monotonic() + args.timeout
    with tempfile.TemporaryDirectory(prefix="memframe-drive-home-") as home, Display(game.screen) as display:
        write_home(home, game.home_files)
        with open(args.log or os.devnull, "w") as log:
            run = Run(args, game, display.name, home, log)
            watchdog = threading.Timer(args.timeout + 60, run.kill)
            watchdog.start()
            try:
                run.start()
                window = find_window(display.name, game.window_class, min(deadline, time.monotonic() + 120),
                                     run.alive)
                if args.attach:
                    run.attach(deadline)
                ui = Ui(display.name, window, game.pointer_rest)
                ui.rest_pointer()
                steps = run.play(ui, deadline)
            finally:
                if run.live_frames:
                    run.live_frames.close()
                run.finish()
                watchdog.cancel()
    wall = (time.monotonic_ns() - run.started_ns) / 1e9
    summary = json.loads(subprocess.run([args.memframe, "report", args.output, "summary", "--json"],
                                        capture_output=True, text=True, timeout=600).stdout)
    result = script_log(args, game, run, steps, wall, summary)
    with open(steps_path(args.output), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    return result, summary


def print_phases(phases, steps):
    """The detector's phases in frame order, with the steps that began in
    each: what the phases should have cut, beside what they cut."""
    for phase in phases:
        first, last = phase["frames"]["from"], phase["frames"]["to"]
        print("%-9s %5d..%-5d %s" % (phase["phase"], first, last, "; ".join(
            "%s @%d" % (s["name"], s["frame"]) for s in steps if s["frame"] is not None and first <= s["frame"] <= last)))


def phases_beside_steps(memframe, capture):
    """print_phases of a driven capture (`report phases`, CAPTURE.steps.json)."""
    with open(steps_path(capture)) as f:
        steps = json.load(f)["steps"]
    result = subprocess.run([memframe, "report", capture, "phases", "--json"], capture_output=True, text=True,
                            timeout=600)
    print_phases(json.loads(result.stdout)["phases"], steps)


def print_table(result):
    print("%s (%s): %s frames from %s, %.0f s" % (result["game"], result["mode"], result["frames"],
                                                   result["frame_source"], result["wall_seconds"]))
    for step in result["steps"]:
        extra = "" if "mark_frame" not in step else "  mark %s" % step["mark_frame"]
        truth = "/".join(t for t in (step.get("screen"), step.get("loads")) if t)
        short = " (fewer frames than wanted)" if step.get("short") else ""
        print("  %6.1f s  frame %5s..%-5s %-40s %-10s [%s]%s%s" % (step["at_s"], step["frame"], step["end_frame"],
                                                                 step["name"], truth, step["action"], extra, short))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memframe", help="the memframe binary (build/bin/memframe)")
    parser.add_argument("-o", "--output", help="the capture to write (its .steps.json goes beside it)")
    parser.add_argument("--attach", action="store_true", help="start the game alone and attach to it")
    parser.add_argument("--settle", type=float, default=4.0, help="--attach: seconds from its GL driver to the attach")
    parser.add_argument("--mark", action="store_true", help="also `memframe mark` each step (a check of the frames)")
    parser.add_argument("--shots", help="a folder for a screenshot before each step")
    parser.add_argument("--log", help="the game's and memframe's output (default: dropped)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds before the run is killed")
    parser.add_argument("--patience", type=float, default=30,
                        help="seconds a step waits for its frames beyond its wait")
    parser.add_argument("--list", action="store_true", help="the games and their steps")
    parser.add_argument("--phases", metavar="CAPTURE", help="the phases of a driven capture beside its steps")
    parser.add_argument("game", nargs="?")
    args = parser.parse_args()
    if args.list:
        for game in game_scripts.GAMES.values():
            print("%s: %s" % (game.name, " ".join(game.command)))
            for step in game.steps:
                truth = "/".join(t for t in (step.screen, step.loads) if t)
                print("  %-40s %-28s then %g s, %3d frames  %s" % (step.name, step.action, step.wait, step.frames,
                                                                   truth))
        return 0
    if args.phases and args.memframe:
        phases_beside_steps(args.memframe, args.phases)
        return 0
    if not (args.memframe and args.output and args.game):
        parser.error("--memframe, -o and GAME are needed")
    if args.game not in game_scripts.GAMES:
        parser.error("unknown game %r (--list)" % args.game)
    try:
        print_table(drive(args, game_scripts.GAMES[args.game])[0])
    except DriveError as e:
        print("game_drive: " + str(e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
