"""What must hold for any capture of a game nobody here wrote, whatever it
did: we do not know such a game's allocations, so these checks would fail
only if the agent missed calls or frames, or a report or the viewer could
not read what it wrote. real_game_test.py (a game idling in its menu, run
or attached) and game_phases_test.py (a game driven through menus, loads
and play) both run them.

- frames were found through the game's own present, and enough of them;
- every free matches an allocation memframe saw (no unknown frees) and no
  allocation lands on a block still live (no missed frees), nothing dropped;
- the reports name the sites (every hidden site has a stack), and the viewer
  opens the capture and draws it;
- who allocated: the game's own allocations and the graphics driver's are
  told apart (both classes have allocations, the summary gives the driver's
  share, driver sites are named after the game frame that led there, and
  `--hide driver` leaves none of them).
"""
import json
import os
import subprocess
import sys


class CheckFailed(Exception):
    pass


def fail(message):
    raise CheckFailed(message)


def report(memframe, capture, name, *options):
    result = subprocess.run([memframe, "report", capture, name, "--json"] + list(options), capture_output=True,
                            text=True, timeout=300)
    # 1: the capture is incomplete (the game was killed), which a game that
    # dies of SIGTERM leaves; the report still covers everything recorded.
    if result.returncode not in (0, 1):
        fail("memframe report %s exited %d: %s" % (name, result.returncode, result.stderr))
    return json.loads(result.stdout)


def stack_of(report, site):
    """The frames of a row's stack, innermost first: a report writes each
    stack once, in "stacks" (id -> frame indices) over "stack_frames"."""
    return [report["stack_frames"][i] for i in report["stacks"].get(str(site["stack_id"]), [])]


def every_phase(report_json, key="sites"):
    """The rows of every phase of a per-phase report (a site in two phases is two rows)."""
    return [row for phase in report_json["phases"] for row in phase[key]]


def check_summary(summary, frame_source, min_frames, attached):
    print(json.dumps({k: v for k, v in summary.items() if not isinstance(v, (dict, list))}))
    if attached and not summary["capture"]["attached"]:
        fail("the capture does not say it starts at an attach")
    if summary["frame_source"] != frame_source:
        fail("frames came from %r, not the game's %r" % (summary["frame_source"], frame_source))
    if summary["frames"] < min_frames:
        fail("%d frames, fewer than %d" % (summary["frames"], min_frames))
    if summary["allocations"] < 1000:
        fail("only %d allocations" % summary["allocations"])
    for key in ("unknown_frees", "allocs_over_live", "dropped_events"):
        if summary[key] != 0:
            fail("%s = %d: the agent missed calls" % (key, summary[key]))
    if summary["threads"] < 1:
        fail("no threads")


def check_hidden_sites(hidden):
    hidden_sites = every_phase(hidden)
    if not hidden_sites:
        fail("no call site allocates in most frames")
    for site in hidden_sites:
        if not stack_of(hidden, site):
            fail("hidden site %s has no stack" % site["stack_id"])
    print("hidden sites: %d in %d steady phases, first: %s" % (len(hidden_sites), len(hidden["phases"]),
                                                               hidden_sites[0]["name"]))


def check_module_classes(memframe, capture, summary, hidden, attached, gl=True):
    """gl: the game draws through OpenGL (Mesa's llvmpipe here), whose
    driver allocates in every frame; a game drawn in software (SDL 1.2's
    surfaces: Enigma) has no driver site among the hidden ones."""
    classes = {c["module_class"]: c for c in summary["module_classes"]}
    total = sum(c["allocations"] for c in classes.values())
    if total != summary["allocations"]:
        fail("the classes' allocations add up to %d, not %d" % (total, summary["allocations"]))
    # A game idling in its menu may allocate nothing itself: an attach then
    # sees only its driver's allocations (a run also sees its start-up).
    for name in ("driver",) if attached else ("game", "driver") if gl else ("game",):
        if classes[name]["allocations"] == 0:
            fail("no allocation is classed %s: %s" % (name, classes))
    print("module classes: " + ", ".join("%s %d allocations (%.1f%%), %d bytes" % (
        name, c["allocations"], 100.0 * c["allocations"] / total, c["bytes"]) for name, c in classes.items()))
    hidden_sites = every_phase(hidden)
    for site in hidden_sites:
        for frame in stack_of(hidden, site):
            if "libmemframe_agent" in frame["module"]:
                fail("memframe's own frame in the stack of %s" % site["name"])
    driver_sites = [s for s in hidden_sites if s["module_class"] == "driver"]
    if not gl:
        if driver_sites:
            fail("a game drawn in software has hidden driver sites: %s" % [s["name"] for s in driver_sites])
        print("driver sites: none among the hidden ones (drawn in software)")
        return
    if not driver_sites:
        fail("no hidden site is the driver's: %s" % [s["name"] for s in hidden_sites])
    named = [s for s in driver_sites if s["name"].endswith(")") and " (via " in s["name"]]
    if not named:
        fail("no driver site names the game frame that led there: %s" % [s["name"] for s in driver_sites])
    kept = every_phase(report(memframe, capture, "hidden", "--hide", "driver"))
    if any(s["module_class"] == "driver" for s in kept):
        fail("--hide driver kept a driver site")
    print("driver sites: %d (e.g. %s); with --hide driver: %d sites" % (len(driver_sites), named[0]["name"],
                                                                        len(kept)))


def check_viewer(viewer, capture, folder):
    png = os.path.join(folder, "timeline.png")
    shot = subprocess.run([viewer, capture, "--screenshot", png, "--view", "timeline"], capture_output=True,
                          text=True, timeout=300)
    if shot.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) < 1000:
        fail("the viewer could not draw the capture (exit %d): %s" % (shot.returncode, shot.stderr))


def check_capture(memframe, viewer, capture, folder, frame_source, min_frames, attached=False, gl=True,
                  summary=None):
    """Every check above (`summary`: the capture's, if read already).
    Raises CheckFailed."""
    summary = summary or report(memframe, capture, "summary")
    check_summary(summary, frame_source, min_frames, attached)
    hidden = report(memframe, capture, "hidden")
    check_hidden_sites(hidden)
    check_module_classes(memframe, capture, summary, hidden, attached, gl)
    check_viewer(viewer, capture, folder)
    return summary


def main_guard(main):
    """Runs `main`; a failed check is exit status 1 with its message."""
    try:
        return main()
    except CheckFailed as e:
        print("FAIL: %s" % e, file=sys.stderr)
        return 1
