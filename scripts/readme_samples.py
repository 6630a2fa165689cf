#!/usr/bin/env python3
"""Regenerates the sample output of README.md and docs/*.md from the current build.

    python3 scripts/readme_samples.py [--build DIR] --write   # rewrite the samples in the docs
    python3 scripts/readme_samples.py [--build DIR] --check   # exit 1 when a sample has drifted

Each sample sits in a fenced block right after a line `<!-- sample: NAME -->`,
in README.md or a file of docs/; each sample this script makes must appear
in one of them. It records the demo game once, exactly as docs/CI.md's
commands do (`--frames 120 --quiet`, the budget file written there), and
prints each sample from that capture:

    run       what `memframe run` printed
    check     what `memframe check` printed for docs/CI.md's budget file
    compare   `memframe compare` of that capture and one of the demo with
              --particle-trail: the game's changed sites and the regressions
    perfetto  the start of the Perfetto export as protoc decodes it: the
              process, the first phase and frame slices, the first heap
              profile, each packet on a line or two (ABRIDGED below)

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
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
DEMO_ARGS = ["--frames", "120", "--quiet"]
SAMPLE_MARK = re.compile(r"^<!-- sample: ([a-z-]+) -->$")


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)


def budget_from_readme(text):
    """The budget file that docs/CI.md writes (its heredoc)."""
    m = re.search(r"cat > budget.json <<'JSON'\n(.*?)\nJSON\n", text, re.S)
    if not m:
        sys.exit("readme_samples: no doc writes budget.json with a heredoc any more")
    return m.group(1) + "\n"


def record_demo(build, capture, extra_args):
    """`memframe run` of the demo game into `capture`; returns what it printed on stderr."""
    memframe = os.path.join(build, "bin", "memframe")
    game = os.path.join(build, "bin", "memframe_demo_game")
    cmd = [memframe, "run", "-o", capture, "--", game] + DEMO_ARGS + extra_args
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1")
    if not env.get("DISPLAY"):
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24"] + cmd
    result = run(cmd, env)
    if result.returncode != 0:
        sys.exit("readme_samples: memframe run failed (%d):\n%s" % (result.returncode, result.stderr))
    return result.stderr


def section(text, title):
    """The lines of `text` from the one starting with `title` to the next blank line."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(title):
            end = lines.index("", i) if "" in lines[i:] else len(lines)
            return lines[i:end]
    sys.exit("readme_samples: no '%s' in:\n%s" % (title, text))


def compare_sample(memframe, base, trail):
    """The game's changed sites and the regressions: what a driver's own
    allocations cannot change from one machine to the next."""
    result = run([memframe, "compare", base, trail, "--fail-on-regression", "10"])
    if result.returncode != 1:
        sys.exit("readme_samples: memframe compare should find the trail (exit 1), got %d:\n%s%s"
                 % (result.returncode, result.stdout, result.stderr))
    sites = section(result.stdout, "Sites that changed")
    kept = sites[:2] + [line for line in sites[2:] if line.split()[1:2] == ["game"]]
    return "\n".join(kept + ["..."] + section(result.stdout, "Regressions past")) + "\n"


def parse_text_format(lines):
    """protoc's text format as nested [key, value-or-children] lists."""
    root, stack = [], []
    node = root
    for line in lines:
        line = line.strip()
        if line.endswith("{"):
            child = [line[:-1].strip(), []]
            node.append(child)
            stack.append(node)
            node = child[1]
        elif line == "}":
            node = stack.pop()
        elif line:
            key, _, value = line.partition(": ")
            node.append([key, value])
    return root


# The interning tables of a heap profile: names and addresses that differ
# from one machine to the next.
COLLAPSED = {"strings", "mappings", "frames", "callstacks", "function_names", "build_ids", "mapping_paths"}


def compact(fields, top=False):
    """One line for a message: each field once, a repeated field's first value
    then "...", a table's contents as "...". The top level's own scalars are
    "..." (the first packet shows them in full)."""
    out, seen = [], set()
    for key, value in fields:
        if key in seen:
            if out[-1] != "...":
                out.append("...")
            continue
        seen.add(key)
        if isinstance(value, list):
            out.append(key + " { " + ("..." if key in COLLAPSED else compact(value)) + " }")
        elif top:
            if not out or out[-1] != "...":
                out.append("...")
        else:
            out.append(key + ": " + value)
    return " ".join(out)


def wrapped(text, width=110):
    """`text` in lines of about `width`, broken where the words alone decide
    (a number counts as one character), so that --check, which masks the
    numbers, sees the same lines whatever the numbers are."""
    lines, line, length = [], "", 0
    for word in text.split(" "):
        size = len(re.sub(r"\d[\d,.]*", "#", word))
        if line and length + 1 + size > width:
            lines.append(line)
            line, length = "  " + word, 2 + size
        else:
            line, length = (line + " " + word, length + 1 + size) if line else (word, size)
    return lines + [line]


def perfetto_sample(memframe, capture, tmp):
    trace = os.path.join(tmp, "demo.pftrace")
    result = run([memframe, "export", capture, "--format", "perfetto", "-o", trace])
    if result.returncode != 0:
        sys.exit("readme_samples: memframe export failed (%d):\n%s" % (result.returncode, result.stderr))
    with open(trace, "rb") as f:
        decoded = subprocess.run(["protoc", "-I", "proto/perfetto", "--decode", "perfetto.protos.Trace",
                                  "protos/perfetto/trace/trace.proto"], stdin=f, capture_output=True, cwd=ROOT)
    if decoded.returncode != 0:
        sys.exit("readme_samples: protoc --decode failed:\n" + decoded.stderr.decode())
    # The packets one at a time (each "packet {" ... "}" at the left margin),
    # up to the first heap profile: the trace holds hundreds of thousands of lines.
    wanted = {
        "process": lambda t: "process {" in t,
        "phase": lambda t: 'categories: "phase"' in t and "TYPE_SLICE_BEGIN" in t,
        "frame": lambda t: 'categories: "frame"' in t and "TYPE_SLICE_BEGIN" in t,
        "profile": lambda t: "profile_packet {" in t,
    }
    found, packet = {}, []
    for line in decoded.stdout.decode().split("\n"):
        packet.append(line)
        if line != "}":
            continue
        body = "\n".join(packet)
        for name, matches in wanted.items():
            if name not in found and matches(body):
                found[name] = parse_text_format(packet)[0][1]
        packet = []
        if len(found) == len(wanted):
            break
    missing = [name for name in wanted if name not in found]
    if missing:
        sys.exit("readme_samples: the Perfetto export has no packet for: " + ", ".join(missing))
    process, phase, frame, profile = (found[name] for name in wanted)
    # The program's path as a reader would type it, before the lines are cut.
    as_typed = lambda line: line.replace(os.path.dirname(memframe) + "/", "build/bin/")
    lines = wrapped(as_typed("packet { " + compact(process) + " }"))
    for packet in (phase, frame, profile):
        lines += wrapped(as_typed("packet { " + compact(packet, top=True) + " }"))
    return "\n".join(lines) + "\n"


def record(build, tmp, text):
    """Records the demo game; returns {sample name: its text}."""
    memframe = os.path.join(build, "bin", "memframe")
    capture = os.path.join(tmp, "demo.mfc")
    samples = {"run": record_demo(build, capture, [])}
    trail = os.path.join(tmp, "trail.mfc")
    record_demo(build, trail, ["--particle-trail"])
    samples["compare"] = compare_sample(memframe, capture, trail)
    samples["perfetto"] = perfetto_sample(memframe, capture, tmp)
    budget = os.path.join(tmp, "budget.json")
    with open(budget, "w") as f:
        f.write(budget_from_readme(text))
    result = run([memframe, "check", capture, "--budget", budget])
    if result.returncode not in (0, 1):
        sys.exit("readme_samples: memframe check failed (%d):\n%s" % (result.returncode, result.stderr))
    samples["check"] = result.stdout
    # As a reader would type them: the build's binaries under build/, the capture in the current folder.
    for name, sample in samples.items():
        sample = sample.replace(capture, "demo.mfc").replace(trail, "trail.mfc")
        sample = sample.replace(os.path.join(build, "bin") + "/", "build/bin/")
        samples[name] = sample.replace(os.path.join(os.path.relpath(build, ROOT), "bin") + "/", "build/bin/")
    return samples


def blocks(text, doc):
    """(name, start, end) of each sample: the lines between its fences."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        m = SAMPLE_MARK.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            sys.exit("readme_samples: %s: a fenced block must follow %s" % (doc, line))
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
    texts = {}
    for doc in DOCS:
        with open(doc) as f:
            texts[os.path.relpath(doc, ROOT)] = f.read()
    found = {doc: blocks(text, doc) for doc, text in texts.items()}
    with tempfile.TemporaryDirectory(prefix="memframe-readme-") as tmp:
        samples = record(build, tmp, "\n".join(texts.values()))
    shown = [name for lines, blks in found.values() for name, _, _ in blks]
    for name in samples:
        if name not in shown:
            sys.exit("readme_samples: no doc shows the sample '%s' (README.md or docs/*.md)" % name)
    drift = False
    for doc, (lines, blks) in found.items():
        for name, start, end in reversed(blks):
            if name not in samples:
                sys.exit("readme_samples: %s has a sample '%s' that this script does not make" % (doc, name))
            new = samples[name].strip("\n").split("\n")
            if args.write:
                lines[start:end] = new
                continue
            old, fresh = masked("\n".join(lines[start:end])), masked(samples[name])
            if old != fresh:
                drift = True
                sys.stderr.write("%s sample '%s' has drifted from what the build prints:\n" % (doc, name))
                sys.stderr.writelines(d + "\n" for d in difflib.unified_diff(old, fresh, doc, "build", lineterm=""))
        if args.write and blks:
            with open(os.path.join(ROOT, doc), "w") as f:
                f.write("\n".join(lines))
    if args.write:
        print("readme_samples: rewrote %d samples" % len(shown))
        return 0
    if drift:
        sys.stderr.write("(python3 scripts/readme_samples.py --write updates them)\n")
        return 1
    print("readme_samples: %d samples match" % len(shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
