#!/usr/bin/env python3
"""Regenerates the README's sample output from the current build.

    python3 scripts/readme_samples.py [--build DIR] --write   # rewrite the samples in README.md
    python3 scripts/readme_samples.py [--build DIR] --check   # exit 1 when README.md has drifted

Each sample in README.md sits in a fenced block right after a line
`<!-- sample: NAME -->`. This script records the demo game once, exactly as
the README's "In CI" commands do (`--frames 120 --quiet`, the budget file
written there), and prints each sample from that capture:

    run     what `memframe run` printed
    check   what `memframe check` printed for the README's budget file

--check compares what only the code decides: every word, function name,
file:line and column, with the other numbers (counts, sizes, pids, which
vary with the machine's driver and timing) masked. So a moved call site
(`main.cpp:73` where the code now says 102), a renamed function or a
changed layout fails it; a driver that allocates 3 more blocks does not.
Needs a display: under ctest it runs inside tests/integration/with_xvfb.sh;
by hand it uses xvfb-run when DISPLAY is unset.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DEMO_ARGS = ["--frames", "120", "--quiet"]
SAMPLE_MARK = re.compile(r"^<!-- sample: ([a-z-]+) -->$")


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)


def budget_from_readme(text):
    """The budget file the README's "In CI" section writes (its heredoc)."""
    m = re.search(r"cat > budget.json <<'JSON'\n(.*?)\nJSON\n", text, re.S)
    if not m:
        sys.exit("readme_samples: README.md no longer writes budget.json with a heredoc")
    return m.group(1) + "\n"


def record(build, tmp, text):
    """Records the demo game; returns {sample name: its text}."""
    memframe = os.path.join(build, "bin", "memframe")
    game = os.path.join(build, "bin", "memframe_demo_game")
    capture = os.path.join(tmp, "demo.mfc")
    cmd = [memframe, "run", "-o", capture, "--", game] + DEMO_ARGS
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1")
    if not env.get("DISPLAY"):
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24"] + cmd
    result = run(cmd, env)
    if result.returncode != 0:
        sys.exit("readme_samples: memframe run failed (%d):\n%s" % (result.returncode, result.stderr))
    samples = {"run": result.stderr}
    budget = os.path.join(tmp, "budget.json")
    with open(budget, "w") as f:
        f.write(budget_from_readme(text))
    result = run([memframe, "check", capture, "--budget", budget])
    if result.returncode not in (0, 1):
        sys.exit("readme_samples: memframe check failed (%d):\n%s" % (result.returncode, result.stderr))
    samples["check"] = result.stdout
    # As a reader would type them: the build's binaries under build/, the capture in the current folder.
    for name, sample in samples.items():
        sample = sample.replace(capture, "demo.mfc").replace(os.path.join(build, "bin") + "/", "build/bin/")
        samples[name] = sample.replace(os.path.join(os.path.relpath(build, ROOT), "bin") + "/", "build/bin/")
    return samples


def blocks(text):
    """(name, start, end) of each sample: the lines between its fences."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        m = SAMPLE_MARK.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            sys.exit("readme_samples: README.md: a fenced block must follow " + line)
        end = i + 2
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        found.append((m.group(1), i + 2, end))
    return lines, found


LOCATION = re.compile(r"[\w.+-]+\.(?:cpp|cc|c|h|hpp):\d+")


TEMP_DIR = re.compile(r"/tmp/memframe-\w+/")


def masked(sample):
    """The sample as --check compares it: numbers masked but in file:line, spaces collapsed."""
    out = []
    for line in TEMP_DIR.sub("/tmp/memframe-XXXXXX/", sample).strip("\n").split("\n"):
        parts = LOCATION.split(line)
        locations = LOCATION.findall(line)
        line = "".join(re.sub(r"\d[\d,.]*", "#", p) + (locations[i] if i < len(locations) else "")
                       for i, p in enumerate(parts))
        out.append(" ".join(line.split()))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    with open(README) as f:
        text = f.read()
    lines, found = blocks(text)
    if not found:
        sys.exit("readme_samples: README.md has no <!-- sample: NAME --> blocks")
    with tempfile.TemporaryDirectory(prefix="memframe-readme-") as tmp:
        samples = record(build, tmp, text)
    drift = False
    for name, start, end in reversed(found):
        if name not in samples:
            sys.exit("readme_samples: README.md has a sample '%s' that this script does not make" % name)
        new = samples[name].strip("\n").split("\n")
        if args.write:
            lines[start:end] = new
            continue
        old, fresh = masked("\n".join(lines[start:end])), masked(samples[name])
        if old != fresh:
            drift = True
            sys.stderr.write("README.md sample '%s' has drifted from what the build prints:\n" % name)
            sys.stderr.writelines(d + "\n" for d in difflib.unified_diff(old, fresh, "README.md", "build", lineterm=""))
    if args.write:
        with open(README, "w") as f:
            f.write("\n".join(lines))
        print("readme_samples: rewrote %d samples in README.md" % len(found))
        return 0
    if drift:
        sys.stderr.write("(python3 scripts/readme_samples.py --write updates them)\n")
        return 1
    print("readme_samples: %d samples match" % len(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
