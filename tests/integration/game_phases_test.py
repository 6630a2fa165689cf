#!/usr/bin/env python3
"""A game nobody here wrote, played through its menus, a load and play
(game_drive.py, the steps in game_scripts.py), judged against what each
step did: the truth a phase judgement must meet on any game.

    game_phases_test.py --memframe PATH --viewer PATH GAME

Each step says what it leads to (`screen`: menu, map or play) and whether
it loads (`loads`: load, may). game_drive waits until each screen has
lasted its frames, so the checks hold at any frame rate; they never name a
frame of the game:

- a step that loads has a load phase (or an unload: a level reloaded in
  the memory of the one it replaces can leave the heap smaller) from 2
  frames before it to 5 frames after its key is released. The games here load in the frame that reads
  the key, within 2 frames of the press, at 8 to 60 frames a second; the
  detector may take in the frame before (above its baseline), and the
  step's frame comes from the capture's clock, a frame off at worst. Five
  frames leave room for a game that fades out first.
- screens of different kinds (menu, world map, play) fall in different
  steady phases: each screen's frames (from 3 frames after its step, the
  game's reaction, to the next step) lie mostly in one steady phase, and no
  steady phase is that of two kinds. Screens the scripts leave unjudged
  (an intro, a pause of a moment, a race's opening flight) are those whose
  rate matches what is beside them with nothing loaded between.
- no steady stretch is cut into loads: at most as many load and unload
  phases as steps that may load, plus 2 (a game's own loads in play), and
  never more than 2 of them in a row with fewer than 8 steady frames (the
  least a judged steady phase has) between.
- spikes are rare and stand alone: a steady phase's spikes are at most 8 %
  of its frames (3 in a short one: Neverball's level intro shows "Ready"
  and "Go", a burst of 500 allocations each, over 29 frames), and never
  more than 3 frames in a row (issue 29's symptom was 215 of 716 frames,
  whole plateaus marked), in menus (the phases of menu and map screens
  alone) and outside them.
- what holds for any capture (capture_checks.py): frames through the
  game's present, no missed call, who allocated, reports and viewer.

A check the detector fails for a reason that is known and reported is
listed in KNOWN_WRONG below with that reason: it is printed, not failed,
and printed again once it holds. Exit status 77 (ctest SKIP_RETURN_CODE)
when the game is not installed.
"""
import argparse
import json
import os
import sys
import tempfile
from collections import Counter, namedtuple

import capture_checks
import game_drive
import game_gpu_truth
import game_scripts
from game_scripts import LOAD, MAP, MAY, MENU, PLAY

BEFORE, AFTER = 2, 5  # frames around a loading step (above)
REACTION = 3  # frames a screen takes to show after its step
SLACK = 2  # loads beyond the steps that may load
RUN_GAP, RUN_MAX = 8, 2  # at most RUN_MAX loads in a row with fewer than RUN_GAP frames between
SPIKE_SHARE, SPIKE_FLOOR, SPIKE_RUN = 0.08, 3, 3
LOAD_KINDS = ("load", "unload")

# Checks the phase detector (phases.cc) fails on a game, by the name its
# failure prints, with what it got wrong (reported on issue 29): printed,
# not failed, until the rule is fixed; "known wrong now holds" says when to
# remove one. Measured on this machine's runs of each game. None now.
KNOWN_WRONG = {}

Screen = namedtuple("Screen", "step kind first last phase share")


def phase_of(phases, frame):
    for phase in phases:
        if phase["frames"]["from"] <= frame <= phase["frames"]["to"]:
            return phase
    return None


def describe(phase):
    return "%s (frames %d..%d)" % (phase["name"], phase["frames"]["from"], phase["frames"]["to"])


class Judge:
    def __init__(self, steps, phases):
        self.steps, self.phases = steps, phases
        self.failures = []  # (name, message)

    def fail(self, name, message):
        self.failures.append((name, message))

    # A load where a step loads ---------------------------------------------
    def check_loads_after_steps(self):
        for step in self.steps:
            if step["loads"] != LOAD:
                continue
            low, high = step["frame"] - BEFORE, step["end_frame"] + AFTER
            found = [p for p in self.phases if p["phase"] in LOAD_KINDS and p["frames"]["from"] <= high and
                     p["frames"]["to"] >= low]
            if not found:
                near = [describe(p) for p in self.phases if p["frames"]["from"] <= high and p["frames"]["to"] >= low]
                self.fail("load after '%s'" % step["name"],
                          "step '%s' (frames %d..%d) loads, but no load or unload meets frames %d..%d: %s" % (
                              step["name"], step["frame"], step["end_frame"], low, high, ", ".join(near)))
            else:
                print("load: '%s' (frames %d..%d) -> %s" % (step["name"], step["frame"], step["end_frame"],
                                                            describe(found[0])))

    # Screens of different kinds in different steady phases ---------------
    def screens(self, last_frame):
        """Each judged step's screen: its frames and the steady phase most of them lie in."""
        out = []
        for i, step in enumerate(self.steps):
            if not step["screen"]:
                continue
            start = step["frame"] if step["screen"] == PLAY else step["end_frame"]
            first = start + REACTION
            last = self.steps[i + 1]["frame"] - 1 if i + 1 < len(self.steps) else last_frame
            held = Counter()
            for frame in range(first, last + 1):
                phase = phase_of(self.phases, frame)
                if phase and phase["phase"] == "steady":
                    held[phase["name"]] += 1
            if not held:
                self.fail("frames of '%s'" % step["name"], "step '%s' shows no steady frame in %d..%d%s" % (
                    step["name"], first, last, " (the game drew fewer frames than wanted)" if step["short"] else ""))
                continue
            name, count = held.most_common(1)[0]
            out.append(Screen(step["name"], step["screen"], first, last, name, count / sum(held.values())))
        return out

    def check_screens_apart(self, screens):
        kinds = {}
        for screen in screens:
            print("screen: %-5s '%s' frames %d..%d: %s (%.0f%% of them)" % (
                screen.kind, screen.step, screen.first, screen.last, screen.phase, 100 * screen.share))
            kinds.setdefault(screen.phase, {}).setdefault(screen.kind, []).append(screen)
        for phase, by_kind in kinds.items():
            if len(by_kind) > 1:
                names = sorted(by_kind)
                self.fail("one phase for %s" % " and ".join(names), "%s holds %s" % (phase, "; ".join(
                    "%s '%s' (frames %d..%d)" % (kind, s.step, s.first, s.last) for kind in names
                    for s in by_kind[kind])))

    # No steady stretch cut into loads -----------------------------------
    def check_no_cut_into_loads(self):
        loads = [p for p in self.phases if p["phase"] in LOAD_KINDS]
        may = sum(1 for s in self.steps if s["loads"] in (LOAD, MAY))
        print("loads and unloads: %d, steps that may load: %d" % (len(loads), may))
        if len(loads) > may + SLACK:
            self.fail("load count", "%d load and unload phases, more than the %d steps that may load + %d: %s" % (
                len(loads), may, SLACK, ", ".join(describe(p) for p in loads)))
        run = loads[:1]
        for previous, load in zip(loads, loads[1:]):
            gap = load["frames"]["from"] - previous["frames"]["to"] - 1
            run = run + [load] if gap < RUN_GAP else [load]
            if len(run) == RUN_MAX + 1:
                self.fail("loads in a row", "%d loads with fewer than %d frames between: %s" % (
                    len(run), RUN_GAP, ", ".join(describe(p) for p in run)))

    # Few spikes, alone -----------------------------------------------------
    def check_spike_runs(self, frames):
        run, longest = [], []
        for row in frames:
            run = run + [row["frame"]] if row["spike"] and run and run[-1] == row["frame"] - 1 else \
                [row["frame"]] if row["spike"] else []
            longest = max(longest, run, key=len)
        if len(longest) > SPIKE_RUN:
            self.fail("spikes in a row", "frames %d..%d are all spikes: a plateau marked, not a frame" % (
                longest[0], longest[-1]))

    def check_spikes(self, screens):
        kind_of = {}
        for screen in screens:
            kind_of.setdefault(screen.phase, set()).add(screen.kind)
        for phase in self.phases:
            if phase["phase"] != "steady" or phase["frame_count"] < 8:
                continue
            allowed = max(SPIKE_FLOOR, int(SPIKE_SHARE * phase["frame_count"]))
            if phase["spikes"] > allowed:
                menus = kind_of.get(phase["name"], {PLAY}) <= {MENU, MAP}
                self.fail("spikes in menus" if menus else "spikes outside menus", "%s: %d spikes in %d frames (at most %d), threshold %d allocations"
                          " over a median of %d" % (describe(phase), phase["spikes"], phase["frame_count"], allowed,
                                                    phase["spike_threshold"]["allocations"],
                                                    phase["allocations_per_frame_median"]))


def judge_phases(steps, phases, frames=()):
    """Every phase check (`frames`: the rows of `report frames`, for the
    runs of spikes); returns the failures, (name, message)."""
    judge = Judge(steps, phases)
    judge.check_spike_runs(frames)
    judge.check_loads_after_steps()
    ended = [p for p in phases if p["phase"] != "teardown"]
    screens = judge.screens(ended[-1]["frames"]["to"])
    judge.check_screens_apart(screens)
    judge.check_no_cut_into_loads()
    judge.check_spikes(screens)
    return judge.failures


def unexcused(game, failures, known_wrong=None):
    """The failures not in KNOWN_WRONG[game], as messages; prints the others."""
    known = (KNOWN_WRONG if known_wrong is None else known_wrong).get(game, {})
    failed = []
    for name, message in failures:
        if name in known:
            print("known wrong, %s: %s (%s)" % (name, message, known[name]))
        else:
            failed.append("%s: %s" % (name, message))
    for name in sorted(set(known) - {name for name, _ in failures}):
        print("known wrong now holds: %s" % name)
    return failed


def judge_capture(memframe, game, capture, steps):
    """The phase checks of a driven capture and its GPU truth
    (game_gpu_truth.py); returns the unexcused failures."""
    phases = capture_checks.report(memframe, capture, "phases")["phases"]
    frames = capture_checks.report(memframe, capture, "frames")["frames"]
    game_drive.print_phases(phases, steps)
    failures = judge_phases(steps, phases, frames) + game_gpu_truth.check(memframe, game.name, capture, steps)
    return unexcused(game.name, failures)


def report_failures(failed):
    for message in failed:
        print("FAIL: " + message, file=sys.stderr)
    if failed:
        return 1
    print("game_phases_test: ok")
    return 0


def rejudge(args, game):
    """A detector's change tried on kept captures in seconds, not minutes."""
    if not args.keep:
        capture_checks.fail("--rejudge needs --keep FOLDER, where a run kept its capture")
    capture = os.path.join(args.keep, game.name + ".mfc")
    with open(game_drive.steps_path(capture)) as f:
        steps = json.load(f)["steps"]
    return report_failures(judge_capture(args.memframe, game, capture, steps))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memframe", required=True)
    parser.add_argument("--viewer", required=True)
    parser.add_argument("--keep", help="a folder to keep the capture, its steps and the game's output in")
    parser.add_argument("--rejudge", action="store_true",
                        help="judge the capture kept in --keep again (with this memframe), without playing")
    parser.add_argument("game", choices=sorted(game_scripts.GAMES))
    args = parser.parse_args()
    game = game_scripts.GAMES[args.game]
    if args.rejudge:
        return rejudge(args, game)
    if not os.access(game.command[0], os.X_OK):
        print("game_phases_test: %s is not installed (scripts/setup.sh installs it): skipped" % game.command[0])
        return 77

    with tempfile.TemporaryDirectory(prefix="memframe-game-phases-") as tmp:
        folder = args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        drive_args = argparse.Namespace(memframe=args.memframe, output=os.path.join(folder, game.name + ".mfc"),
                                        attach=False, mark=False, shots=None, timeout=200, patience=30,
                                        log=os.path.join(folder, game.name + ".log"))
        try:
            result, summary = game_drive.drive(drive_args, game)
        except game_drive.DriveError as e:
            capture_checks.fail("the game could not be played: %s (its output: %s)" % (e, drive_args.log))
        game_drive.print_table(result)
        capture = drive_args.output
        capture_checks.check_capture(args.memframe, args.viewer, capture, tmp, game.present, result["wall_seconds"],
                                     gl=game.gl, summary=summary)
        failed = judge_capture(args.memframe, game, capture, result["steps"])
    return report_failures(failed)


if __name__ == "__main__":
    sys.exit(capture_checks.main_guard(main))
