#!/usr/bin/env python3
"""`memframe attach` / `memframe detach` on running processes.

    attach_test.py --memframe PATH --workers PATH --static PATH --agent PATH --present-pointer PATH --seccomp PATH

target_attach_workers is driven line by line on its stdin, so the test
knows exactly what it did between the attach and the detach: the capture
must hold those allocations and nothing else, the 7 blocks it made before
the attach are freed as "allocated before attach", and after the detach
the program goes on and exits with its own status. Then: attach again into
a new capture, --duration, Ctrl+C, a process that exits while recorded, a
present fetched before the attach (target_present_pointer), a library
whose initialiser holds the loader's lock loaded while recorded, a
plugin that links libmimalloc loaded while recorded (also one whose
relocation takes 300 ms, and one loaded between two attaches),
100 attach/detach cycles on threads allocating in a tight loop, and every
refusal this machine can show.
"""
import argparse
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

ARGS = None
TMP = None


def fail(message):
    print("attach_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


class Workers:
    """target_attach_workers, with its stdin and stdout as pipes."""

    def __init__(self, threads=4):
        self.proc = subprocess.Popen([ARGS.workers, str(threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.expect("ready")

    def command(self, line, answer):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        self.expect(answer)

    def expect(self, answer):
        got = self.proc.stdout.readline().strip()
        if got != answer:
            fail("target said %r, not %r (stderr: %s)" % (got, answer, self.proc.stderr.read() if got == "" else ""))

    def finish(self, status):
        self.command("exit %d" % status, "bye")
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        if code != status:
            fail("target exited with %d, not its own %d" % (code, status))
        return self.proc.stderr.read()


def start_attach(pid, capture, *options):
    return subprocess.Popen([ARGS.memframe, "attach", "--no-live", "-o", capture] + list(options) + [str(pid)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_recording(attach):
    """Reads memframe's stderr up to "recording"; returns the lines."""
    lines = []
    while True:
        line = attach.stderr.readline()
        if not line:
            fail("memframe attach stopped before recording: " + "".join(lines))
        lines.append(line)
        if line.startswith("memframe: recording"):
            return lines


def detach(pid, attach):
    result = subprocess.run([ARGS.memframe, "detach", str(pid)], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        fail("memframe detach failed: " + result.stderr)
    out, err = attach.communicate(timeout=60)
    if attach.returncode != 0:
        fail("memframe attach exited with %d: %s" % (attach.returncode, err))
    return err


def summary(capture):
    result = subprocess.run([ARGS.memframe, "report", capture, "--json"], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        fail("report failed: " + result.stderr)
    return json.loads(result.stdout)


def expect_equal(what, got, want):
    if got != want:
        fail("%s: %r, want %r" % (what, got, want))


def test_attach_round_detach():
    w = Workers(4)
    capture = os.path.join(TMP, "round.mfc")
    attach = start_attach(w.proc.pid, capture, "--no-summary")
    lines = wait_recording(attach)
    if not any("threads stopped" in line and " ms" in line for line in lines):
        fail("memframe attach did not say how long the process was stopped: " + "".join(lines))
    w.command("round 1000", "done")
    w.command("free-old", "freed")
    err = detach(w.proc.pid, attach)
    if "runs on" not in err:
        fail("memframe attach did not say the process runs on: " + err)
    # The program goes on without the agent's hooks, and ends as it would.
    w.command("round 10", "done")
    w.finish(3)
    s = summary(capture)
    # 4 workers x 1000 x (malloc(1000 + w) + new char[2000 + w]).
    expect_equal("allocations", s["allocations"], 8000)
    expect_equal("frees", s["frees"], 8000)
    expect_equal("bytes allocated", s["bytes_allocated"], 1000 * sum(1000 + w + 2000 + w for w in range(4)))
    expect_equal("leaks", s["leaks"]["blocks"] if isinstance(s["leaks"], dict) else s["leaks"], 0)
    expect_equal("frees of blocks from before the attach", freed_before_attach(s), 7)
    expect_equal("dropped", s["dropped_events"], 0)
    expect_equal("attached", s["capture"]["attached"], True)
    expect_equal("detached", s["capture"]["detached"], True)
    # The frees of blocks from before the attach are no mismatch; the
    # summary and every report say where the capture starts.
    mismatches = json.loads(report(capture, "mismatches", "--json").stdout)
    expect_equal("mismatches", mismatches["total"], 0)
    expect_equal("mismatches' frees from before the attach", mismatches["freed_before_attach"], 7)
    text = report(capture)
    for line in ("Attached    recording starts at an attach", "ran on after memframe detached",
                 "when memframe detached; the process ran on (not leaks)",
                 "note: 7 frees of blocks allocated before the attach"):
        if line not in text.stdout:
            fail("the summary lacks %r:\n%s" % (line, text.stdout))
    for name in ("frames", "leaks", "hidden"):
        said = report(capture, name).stderr
        if "starts at an attach" not in said or "their frees (7)" not in said:
            fail("the %s report does not say the capture starts at an attach, with the 7 frees set apart" % name)
    return capture


def freed_before_attach(s):
    expect_equal("unknown frees (an attached capture has none)", s["unknown_frees"], 0)
    return s["freed_before_attach"]


def report(capture, *words):
    result = subprocess.run([ARGS.memframe, "report", capture] + list(words), capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        fail("report %s failed: %s" % (" ".join(words), result.stderr))
    return result


def test_attach_again():
    w = Workers(2)
    for attempt in range(2):
        capture = os.path.join(TMP, "again%d.mfc" % attempt)
        attach = start_attach(w.proc.pid, capture, "--no-summary")
        wait_recording(attach)
        w.command("round %d" % (100 * (attempt + 1)), "done")
        detach(w.proc.pid, attach)
        s = summary(capture)
        expect_equal("allocations of attach %d" % attempt, s["allocations"], 2 * 2 * 100 * (attempt + 1))
    w.finish(0)


def test_duration_and_ctrl_c():
    w = Workers(1)
    capture = os.path.join(TMP, "duration.mfc")
    attach = start_attach(w.proc.pid, capture, "--no-summary", "--duration", "1")
    wait_recording(attach)
    w.command("round 5", "done")
    attach.communicate(timeout=30)
    expect_equal("memframe attach --duration status", attach.returncode, 0)
    expect_equal("allocations in --duration", summary(capture)["allocations"], 10)
    capture = os.path.join(TMP, "ctrl_c.mfc")
    attach = start_attach(w.proc.pid, capture, "--no-summary")
    wait_recording(attach)
    w.command("round 7", "done")
    attach.send_signal(signal.SIGINT)
    attach.communicate(timeout=30)
    expect_equal("memframe attach after Ctrl+C", attach.returncode, 0)
    expect_equal("allocations before Ctrl+C", summary(capture)["allocations"], 14)
    w.finish(0)


def test_process_exits_while_recorded():
    w = Workers(2)
    capture = os.path.join(TMP, "exits.mfc")
    attach = start_attach(w.proc.pid, capture, "--no-summary")
    wait_recording(attach)
    w.command("round 3", "done")
    w.finish(5)
    out, err = attach.communicate(timeout=60)
    if "ended" not in err:
        fail("memframe attach did not say the process ended: " + err)
    expect_equal("allocations before the exit", summary(capture)["allocations"], 12)


def test_many_attaches_to_busy_threads(cycles):
    w = Workers(3)
    w.command("spin-on", "spinning")
    for i in range(cycles):
        capture = os.path.join(TMP, "busy.mfc")
        if i % 10 != 9:
            # Most cycles end by --duration: memframe detach costs a process.
            attach = start_attach(w.proc.pid, capture, "--no-summary", "--force", "--duration", "0.02")
            wait_recording(attach)
            attach.communicate(timeout=60)
            expect_equal("cycle %d's memframe attach" % i, attach.returncode, 0)
        else:
            attach = start_attach(w.proc.pid, capture, "--no-summary", "--force")
            wait_recording(attach)
            time.sleep(0.02)
            detach(w.proc.pid, attach)
        if i % 10 != 9:
            continue  # reading every capture would take most of the test's time
        s = summary(capture)
        # Every allocation is freed right away by its own thread: whatever the
        # window caught, it balances but for the blocks cut by its edges.
        if s["allocations"] == 0:
            fail("cycle %d recorded nothing from threads allocating in a loop" % i)
        if abs(s["allocations"] - s["frees"]) > 3 * 2:
            fail("cycle %d: %d allocations against %d frees" % (i, s["allocations"], s["frees"]))
    w.command("spin-off", "still")
    w.command("round 10", "done")
    w.finish(0)


class DrivenTarget:
    """A target driven on its stdin; every answer awaited with a deadline,
    so that a target stuck in the loader fails the test. `said` keeps its
    stdout, to compare with a native run."""

    def __init__(self, argv, name):
        self.name = name
        self.said = ""
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.expect("ready")

    def expect(self, answer, seconds=60):
        if not select.select([self.proc.stdout], [], [], seconds)[0]:
            self.proc.kill()
            fail("%s gave no %r within %d s" % (self.name, answer, seconds))
        got = self.proc.stdout.readline()
        self.said += got
        if got.strip() != answer:
            fail("%s said %r, not %r" % (self.name, got.strip(), answer))

    def command(self, line, answer, seconds=60):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        self.expect(answer, seconds)


class PresentPointer(DrivenTarget):
    """target_present_pointer, driven on its stdin."""

    def __init__(self):
        super().__init__([ARGS.present_pointer], "target_present_pointer")


def test_present_fetched_before_attach():
    """A present the program fetched through glXGetProcAddressARB before the
    attach, from a library loaded with RTLD_LOCAL: no import slot leads to it,
    so only the patch of its entry finds the frames. Twice, to see that a
    detach restores the entry and a new attach patches it again."""
    target = PresentPointer()
    for attempt, frames in enumerate((40, 7)):
        capture = os.path.join(TMP, "present%d.mfc" % attempt)
        attach = start_attach(target.proc.pid, capture, "--no-summary")
        said = "".join(wait_recording(attach))
        # The library's eglSwapBuffers is too short for an entry patch: said so.
        if "warning: eglSwapBuffers: not patched at its entry: the function ends" not in said:
            fail("memframe attach did not say which present it left unpatched:\n" + said)
        target.command("frames %d" % frames, "done")
        detach(target.proc.pid, attach)
        target.command("frames 3", "done")  # after the detach: the original entry again
        expect_equal("frames of attach %d" % attempt, summary(capture)["frames"], frames)
        per_frame = json.loads(report(capture, "frames", "--json").stdout)["frames"]
        # Frame i made one malloc(1000 + i); the frame after the last present
        # (until the detach) made nothing.
        got = [(f["allocations"], f["bytes_allocated"], f["frees"]) for f in per_frame[:frames]]
        expect_equal("per-frame figures of attach %d" % attempt, got, [(1, 1000 + i, 1) for i in range(frames)])
    target.command("exit 6", "bye")
    expect_equal("target_present_pointer's status", target.proc.wait(timeout=30), 6)


def test_entry_patch_under_spinning_threads(cycles):
    """Threads call a present fetched before the attach in a tight loop (its
    prologue is three short instructions) while memframe attaches and
    detaches: the entry jump is written, and written back, with every
    thread stopped and none inside the bytes rewritten, so no call crashes,
    none is lost or run twice, and the hooks see them."""
    target = PresentPointer()
    target.command("spin-on 3", "spinning")
    for i in range(cycles):
        capture = os.path.join(TMP, "spin.mfc")
        attach = start_attach(target.proc.pid, capture, "--no-summary", "--force", "--drop", "--duration", "0.02")
        said = "".join(wait_recording(attach))
        if "glfwSwapBuffers: not patched" in said:
            fail("cycle %d: the spinning present was not patched:\n%s" % (i, said))
        out, err = attach.communicate(timeout=60)
        expect_equal("cycle %d's memframe attach" % i, attach.returncode, 0)
        if target.proc.poll() is not None:
            fail("cycle %d: the target died (status %d):\n%s" % (i, target.proc.returncode, said + err))
        if i % 10 == 9 and summary(capture)["frame_source"] != "glfwSwapBuffers":
            fail("cycle %d: the frames are not the spinning threads' presents" % i)
    target.command("spin-off 0", "calls-match")
    target.command("frames 2", "done")
    target.command("exit 0", "bye")
    expect_equal("target_present_pointer's status", target.proc.wait(timeout=30), 0)


# static_jemalloc --wait-for-attach (host_truth.h, own_allocator_workload.h):
# each run of its workload makes 16 blocks (4 threads x malloc(100 + i) for
# i below 4) at MapAndAllocate; 7 blocks of 777 bytes come before any attach.
JEMALLOC_SITE = "MapAndAllocate"
JEMALLOC_BLOCKS = 16
JEMALLOC_BYTES = 4 * sum(100 + i for i in range(4))
JEMALLOC_OLD_BLOCKS = 7  # kOwnOldBlocks, for every --wait-for-attach target
# Debian's libjemalloc.a defines the C family less pvalloc, no operator new
# (and its own API, which the agent may hook too: listed after these).
JEMALLOC_HOOKED = ["malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign", "valloc"]


JEMALLOC_SYMBOLS = {}


def code_at(pid, symbols):
    """The first 8 bytes of each of target_static_jemalloc's `symbols` in process `pid`."""
    values = JEMALLOC_SYMBOLS
    if not values:
        for line in subprocess.run(["nm", "--defined-only", ARGS.jemalloc], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            words = line.split()
            if len(words) == 3 and words[1] in "Tt":
                values[words[2]] = int(words[0], 16)
    with open(ARGS.jemalloc, "rb") as f:
        f.seek(16)
        pie = int.from_bytes(f.read(2), "little") == 3  # ET_DYN
    base = 0
    if pie:
        with open("/proc/%d/maps" % pid) as maps:
            for line in maps:
                words = line.split()
                if len(words) >= 6 and words[2] == "00000000" and os.path.realpath(words[5]) == \
                        os.path.realpath(ARGS.jemalloc):
                    base = int(words[0].split("-")[0], 16)
                    break
    code = {}
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for symbol in symbols:
            if symbol not in values:
                fail("no %s in %s" % (symbol, ARGS.jemalloc))
            mem.seek(base + values[symbol])
            code[symbol] = mem.read(8)
    return code


def test_own_allocator_at_attach():
    """An executable that links jemalloc statically: its malloc family is
    patched at its entries with every thread stopped, so the workload run
    while attached is recorded exactly at its site; the blocks made before
    the attach and freed while recorded count as from before the attach;
    the detach writes the original entries back (read from the process's
    memory) and the program answers and ends as a native run does. Twice,
    to see that a second attach patches the same entries again."""
    script = ["work", "free-old", "work", "work", "end"]
    native = subprocess.run([ARGS.jemalloc, "--wait-for-attach"], input="".join(c + "\n" for c in script),
                            capture_output=True, text=True, timeout=60)
    target = DrivenTarget([ARGS.jemalloc, "--wait-for-attach"], "target_static_jemalloc")
    original = code_at(target.proc.pid, ("malloc", "free"))
    for attempt, commands in enumerate((script[:2], script[2:3])):
        capture = os.path.join(TMP, "jemalloc%d.mfc" % attempt)
        attach = start_attach(target.proc.pid, capture, "--no-summary")
        said = "".join(wait_recording(attach))
        if "memframe: patched " not in said or "not patched" in said:
            fail("attach %d: memframe did not patch the executable's malloc family:\n%s" % (attempt, said))
        patched = int(said.split("memframe: patched ")[1].split()[0])
        for name, code in code_at(target.proc.pid, original).items():
            if code[:1] != b"\xe9" or code == original[name]:
                fail("attach %d: the entry of %s is not patched while recorded" % (attempt, name))
        for command in commands:
            target.command(command, "freed" if command == "free-old" else "done")
        detach(target.proc.pid, attach)
        expect_equal("the entries after detach %d" % attempt, code_at(target.proc.pid, original), original)
        expect_equal("attach %d: blocks and bytes at %s" % (attempt, JEMALLOC_SITE),
                     blocks_at(capture, JEMALLOC_SITE), (JEMALLOC_BLOCKS, JEMALLOC_BYTES))
        # The mismatches report reads no symbols: the cheap one to read twice.
        mismatches = json.loads(report(capture, "mismatches", "--json").stdout)
        expect_equal("attach %d: (mismatches, frees of blocks from before the attach)" % attempt,
                     (mismatches["total"], mismatches["freed_before_attach"]),
                     (0, JEMALLOC_OLD_BLOCKS if attempt == 0 else 0))
        if attempt > 0:
            continue  # the summary reads the same for both
        s = summary(capture)
        expect_equal("frees of blocks from before the attach", freed_before_attach(s), JEMALLOC_OLD_BLOCKS)
        own = s["capture"]["own_allocator"]
        expect_equal("the executable's own allocator",
                     (own["name"], own["hooked"][:len(JEMALLOC_HOOKED)], own["refused"]),
                     ("jemalloc", JEMALLOC_HOOKED, []))
        expect_equal("entries memframe patched", patched, len(own["hooked"]))
    # After the detach: the original entries run, and the program ends as natively.
    for command in script[3:-1]:
        target.command(command, "done")
    target.command("end", "static jemalloc done")
    expect_equal("target_static_jemalloc's native run", native.returncode, 0)
    expect_equal("target_static_jemalloc (status, output) attached and native",
                 (target.proc.wait(timeout=30), target.said), (native.returncode, native.stdout))


def test_own_allocator_under_spinning_threads(cycles):
    """Threads call the executable's jemalloc malloc and free in a tight loop
    while memframe attaches and detaches: its entries are written, and
    written back, with every thread stopped and none inside the bytes
    rewritten, so no call crashes and each window balances but for the
    blocks cut by its edges."""
    target = DrivenTarget([ARGS.jemalloc, "--wait-for-attach"], "target_static_jemalloc")
    target.command("spin-on", "spinning")
    capture = os.path.join(TMP, "jemalloc_spin.mfc")
    for i in range(cycles):
        attach = start_attach(target.proc.pid, capture, "--no-summary", "--force", "--drop", "--duration", "0.02")
        said = "".join(wait_recording(attach))
        if "not patched" in said:
            fail("cycle %d: an entry of the spinning allocator was not patched:\n%s" % (i, said))
        attach.communicate(timeout=60)
        expect_equal("cycle %d's memframe attach" % i, attach.returncode, 0)
        if target.proc.poll() is not None:
            fail("cycle %d: the target died (status %d)" % (i, target.proc.returncode))
    s = summary(capture)
    if s["allocations"] == 0 or abs(s["allocations"] - s["frees"]) > 3:
        fail("the last cycle: %d allocations against %d frees" % (s["allocations"], s["frees"]))
    target.command("spin-off", "still")
    target.command("work", "done")
    target.command("end", "static jemalloc done")
    expect_equal("target_static_jemalloc's status", target.proc.wait(timeout=30), 0)


DRIVEN_SCRIPT = ["work", "free-old", "end"]


def start_driven(argv, name, capture):
    """Runs a --wait-for-attach target natively on DRIVEN_SCRIPT, then starts
    it again and attaches; returns the native run, the target, memframe
    attach and what it said up to "recording"."""
    native = subprocess.run(argv, input="".join(c + "\n" for c in DRIVEN_SCRIPT), capture_output=True, text=True,
                            timeout=60)
    expect_equal("%s's native run" % name, native.returncode, 0)
    target = DrivenTarget(argv, name)
    attach = start_attach(target.proc.pid, capture, "--no-summary")
    return native, target, attach, "".join(wait_recording(attach))


def finish_driven(native, target, attach, last_answer):
    """The workload and the old blocks' frees while recorded, the detach, and
    the end: output and status must be the native run's."""
    target.command("work", "done")
    target.command("free-old", "freed")
    detach(target.proc.pid, attach)
    target.command("end", last_answer)
    expect_equal("%s (status, output) attached and native" % target.name,
                 (target.proc.wait(timeout=30), target.said), (native.returncode, native.stdout))


def blocks_at(capture, function):
    """(allocations, bytes) of the sites whose stack holds `function`."""
    report_json = json.loads(report(capture, "sites", "--all-frames", "--json").stdout)
    # Each stack is written once: "stacks" maps its id to indices into "stack_frames".
    frames = report_json["stack_frames"]
    stack = lambda x: [frames[i] for i in report_json["stacks"].get(str(x["stack_id"]), [])]
    at = [x for x in report_json["phases"][0]["sites"] if any(function in f.get("function", "") for f in stack(x))]
    return sum(x["allocations"] for x in at), sum(x["bytes"] for x in at)


def test_own_operator_new_at_attach():
    """An executable that defines the global operator new and delete over
    glibc's malloc (target_own_new): its entries are patched at the attach,
    its arrays are recorded once each as new[] (the malloc inside is not
    recorded again), and the blocks it made before the attach and deletes
    while recorded count as from before the attach."""
    capture = os.path.join(TMP, "own_new.mfc")
    native, target, attach, said = start_driven([ARGS.own_new, "--wait-for-attach"], "target_own_new", capture)
    if "memframe: patched 6 function entries" not in said or "not patched" in said:
        fail("memframe attach did not patch the executable's operator new and delete:\n" + said)
    finish_driven(native, target, attach, "own new done")
    # own_new.cc: new char[100 + i] for i below 16, each deleted at once.
    expect_equal("blocks and bytes at NewAndDelete", blocks_at(capture, "NewAndDelete"), (16, 1600 + 120))
    mismatches = json.loads(report(capture, "mismatches", "--json").stdout)
    expect_equal("(mismatches, frees of blocks from before the attach)",
                 (mismatches["total"], mismatches["freed_before_attach"]), (0, JEMALLOC_OLD_BLOCKS))
    own = summary(capture)["capture"]["own_allocator"]
    expect_equal("the executable's own operator new", (own["name"], own["hooked"], own["refused"]),
                 ("", ["_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"], []))


def test_own_allocator_refused_at_attach():
    """A heap of the program's own whose malloc and free start with a call
    (target_refused_entries): the relocator refuses them at the attach as it
    does at launch. memframe says so, the capture's note names them, and the
    program answers and ends as a native run does."""
    capture = os.path.join(TMP, "refused_entries.mfc")
    native, target, attach, said = start_driven([ARGS.refused_entries, "--wait-for-attach"],
                                                "target_refused_entries", capture)
    why = "a call (a thread inside the callee would return into the patch)"
    for name in ("malloc", "free"):
        if "memframe: warning: %s: not patched at its entry: %s\n" % (name, why) not in said:
            fail("memframe attach did not say it left %s alone:\n%s" % (name, said))
    finish_driven(native, target, attach, "reentry allocator done, 1 heap chunks")
    own = summary(capture)["capture"]["own_allocator"]
    refused = dict(line.split(": ", 1) for line in own["refused"])
    expect_equal("malloc and free refused", (refused.get("malloc"), refused.get("free")), (why, why))
    # Its other entries, built at -O1, are patched unless their jump would
    # straddle two aligned words (an attach writes one).
    for name, reason in refused.items():
        if name not in ("malloc", "free") and reason != "the jump would not fit in one aligned 8-byte store":
            fail("%s refused at the attach: %s" % (name, reason))
    expect_equal("the family, hooked or refused", sorted(own["hooked"] + list(refused)),
                 sorted(["malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign",
                         "valloc", "pvalloc"]))
    text = report(capture).stdout
    if "note: the executable's own malloc (a heap of its own) was not hooked: malloc: " + why not in text:
        fail("the summary does not say malloc was left alone:\n" + text)


def test_library_loaded_while_attached():
    """A library loaded while recorded whose initialiser holds the loader's
    lock and then walks the modules: the agent's pass over the new module
    must not wait for the loader inside its own walk (both would wait for
    each other forever)."""
    target = PresentPointer()
    capture = os.path.join(TMP, "slow_init.mfc")
    attach = start_attach(target.proc.pid, capture, "--no-summary")
    wait_recording(attach)
    target.command("load-slow 0", "loaded", seconds=30)
    target.command("frames 2", "done")
    detach(target.proc.pid, attach)
    target.command("exit 0", "bye")
    expect_equal("frames after the slow library", summary(capture)["frames"], 2)


# host_truth.h: kApiRounds rounds of the plugin's UsePluginApi, 5 blocks and
# 600 bytes each.
PLUGIN_BLOCKS, PLUGIN_BYTES = 5 * 5, 5 * 600


def plugin_calls_recorded(target, capture, attach):
    """The plugin's imports are hooked (the target waits for it), its calls
    recorded while attached; after the detach they lead to libmimalloc
    again. Then the capture holds exactly those calls, each free matched."""
    target.command("hooked?", "hooked", seconds=30)
    target.command("work", "done")
    detach(target.proc.pid, attach)
    target.command("unhooked?", "unhooked", seconds=30)
    expect_equal("blocks and bytes at UsePluginApi", blocks_at(capture, "UsePluginApi"), (PLUGIN_BLOCKS, PLUGIN_BYTES))
    s = summary(capture)
    expect_equal("(unknown frees, allocations over live blocks)", (s["unknown_frees"], s["allocs_over_live"]), (0, 0))


def test_allocator_api_loaded_while_attached():
    """mimalloc's API in a plugin (target_mimalloc_plugin, which links
    libmimalloc) that target_late_mimalloc dlopens while attached: the
    attach thread learns the definitions and then hooks the plugin's
    imports. The same with the plugin whose relocation takes 300 ms
    (target_slow_mimalloc_plugin): the attach thread sees it listed
    meanwhile and must leave it alone until the loader is done (the loader
    faults on a slot page made read-only under it). Then attach, detach,
    load, attach again: the second attach learns what the first could not.
    All exact, and the program ends as it would."""
    def load_while_attached(plugin, capture):
        target = DrivenTarget([ARGS.late_mimalloc, "--wait-for-attach", plugin], "target_late_mimalloc")
        attach = start_attach(target.proc.pid, capture, "--no-summary")
        wait_recording(attach)
        target.command("load", "loaded")
        plugin_calls_recorded(target, capture, attach)
        target.command("end", "late mimalloc done")
        expect_equal("target_late_mimalloc's status", target.proc.wait(timeout=30), 0)

    load_while_attached(ARGS.mimalloc_plugin, os.path.join(TMP, "late_mimalloc.mfc"))
    load_while_attached(ARGS.slow_mimalloc_plugin, os.path.join(TMP, "slow_plugin.mfc"))

    argv = [ARGS.late_mimalloc, "--wait-for-attach", ARGS.mimalloc_plugin]
    target = DrivenTarget(argv, "target_late_mimalloc")
    attach = start_attach(target.proc.pid, os.path.join(TMP, "before_load.mfc"), "--no-summary")
    wait_recording(attach)
    detach(target.proc.pid, attach)
    target.command("load", "loaded")
    capture = os.path.join(TMP, "late_mimalloc_again.mfc")
    attach = start_attach(target.proc.pid, capture, "--no-summary")
    wait_recording(attach)
    plugin_calls_recorded(target, capture, attach)
    target.command("end", "late mimalloc done")
    expect_equal("target_late_mimalloc's status", target.proc.wait(timeout=30), 0)


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return 0
    return int(stat[stat.rfind(")") + 2:].split()[1])


def refusal(pid, expected, *extra):
    result = subprocess.run([ARGS.memframe, "attach", "--no-live", "-o", os.path.join(TMP, "refused.mfc")] +
                            list(extra) + [str(pid)], capture_output=True, text=True, timeout=60)
    if result.returncode != 2 or expected not in result.stderr:
        fail("attach to %s: want exit 2 and %r, got %d: %s" % (pid, expected, result.returncode, result.stderr))
    if os.path.exists(os.path.join(TMP, "refused.mfc")):
        fail("a refused attach left a capture behind")


def test_refusals():
    refusal(4194303, "no process 4194303")
    # Already recorded by another attach.
    w = Workers(1)
    capture = os.path.join(TMP, "first.mfc")
    attach = start_attach(w.proc.pid, capture, "--no-summary")
    wait_recording(attach)
    refusal(w.proc.pid, "already being recorded by memframe attach")
    detach(w.proc.pid, attach)
    # Already recorded by `memframe run`: the agent itself says so.
    run = subprocess.Popen([ARGS.memframe, "run", "--no-live", "--no-summary", "-o", os.path.join(TMP, "run.mfc"),
                            "--", ARGS.workers, "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if run.stdout.readline().strip() != "ready":
        fail("the target did not start under memframe run")
    child = [int(p) for p in os.listdir("/proc") if p.isdigit() and parent_of(int(p)) == run.pid]
    if len(child) != 1:
        fail("cannot find the target under memframe run")
    refusal(child[0], "already being recorded by memframe (memframe run")
    run.stdin.write("round 1\nexit 4\n")
    run.stdin.close()
    expect_equal("memframe run's status after the refused attach", run.wait(timeout=60), 4)
    # Already traced (a debugger): this test seizes it itself.
    libc = ctypes.CDLL(None, use_errno=True)
    PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17
    if libc.ptrace(PTRACE_SEIZE, w.proc.pid, None, None) != 0:
        fail("the test cannot seize its own child: errno %d" % ctypes.get_errno())
    refusal(w.proc.pid, "is already traced by process %d" % os.getpid())
    # Detach needs a stopped tracee; this seize never stopped it, so end the
    # trace by interrupting first.
    PTRACE_INTERRUPT = 0x4207
    libc.ptrace(PTRACE_INTERRUPT, w.proc.pid, None, None)
    os.waitpid(w.proc.pid, 0x40000000)  # __WALL
    libc.ptrace(PTRACE_DETACH, w.proc.pid, None, None)
    w.command("round 1", "done")
    w.finish(0)
    # A seccomp filter that kills the process at its first openat (dlopen of
    # the agent would make one): refused before the process is touched, which
    # then answers and ends exactly as a native run does.
    script = "sum 10\nsum 1000\nexit 3\n"
    native = subprocess.run([ARGS.seccomp], input=script, capture_output=True, text=True, timeout=30)
    expect_equal("target_seccomp_filtered's native run", (native.returncode, native.stdout),
                 (3, "ready\n55\n500500\nbye\n"))
    filtered = subprocess.Popen([ARGS.seccomp], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    got = filtered.stdout.readline()
    refusal(filtered.pid, "runs under a seccomp filter: loading the agent makes system calls")
    refusal(filtered.pid, "Record the program from its start instead (`memframe run`")
    out, _ = filtered.communicate(script, timeout=30)
    expect_equal("target_seccomp_filtered after the refused attach", (filtered.returncode, got + out),
                 (native.returncode, native.stdout))
    # A static program: no dynamic loader to load the agent with.
    static = subprocess.Popen([ARGS.static], stdout=subprocess.PIPE, text=True)
    static.stdout.readline()
    refusal(static.pid, "statically linked")
    static.kill()
    static.wait()
    # A zombie.
    zombie = subprocess.Popen(["true"])
    time.sleep(0.3)
    refusal(zombie.pid, "has exited")
    zombie.wait()
    # Another user's process, from an unprivileged memframe.
    if os.geteuid() == 0 and os.path.exists("/usr/bin/setpriv"):
        sleeper = subprocess.Popen(["sleep", "30"])
        result = subprocess.run(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 ARGS.memframe, "attach", "--no-live", "--agent", ARGS.agent, "-o", "/tmp/never.mfc",
                                 str(sleeper.pid)], capture_output=True, text=True, timeout=60)
        sleeper.kill()
        sleeper.wait()
        if result.returncode != 2 or "belongs to another user" not in result.stderr:
            fail("attach to another user's process: %d %s" % (result.returncode, result.stderr))
    # Usage errors.
    for words, expected in ((["attach"], "no process id"), (["attach", "abc"], "want one process id"),
                            (["attach", "--follow-fork", "1"], "applies to `memframe run` only"),
                            (["attach", "--duration", "0", "1"], "--duration wants seconds"),
                            (["detach", "4194303"], "no `memframe attach 4194303`")):
        result = subprocess.run([ARGS.memframe] + words, capture_output=True, text=True, timeout=30)
        if result.returncode != 2 or expected not in result.stderr:
            fail("memframe %s: want %r, got %d %s" % (" ".join(words), expected, result.returncode, result.stderr))


def test_refusals_name_the_cause():
    # A stopped process (SIGSTOP, Ctrl+Z) runs no thread to load the agent:
    # said at once, not after a wait for a connection that cannot come.
    w = Workers(1)
    os.kill(w.proc.pid, signal.SIGSTOP)
    started = time.monotonic()
    refusal(w.proc.pid, "is stopped (SIGSTOP or job control): continue it first (kill -CONT %d)" % w.proc.pid)
    if time.monotonic() - started > 5:
        fail("the refusal of a stopped process took %.1f s" % (time.monotonic() - started))
    os.kill(w.proc.pid, signal.SIGCONT)
    w.command("round 1", "done")
    # Traced by a memframe (another one's injection, or another user's
    # memframe): not "detach the debugger". This test seizes it under that
    # name.
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_NAME, PR_GET_NAME = 15, 16
    own_name = ctypes.create_string_buffer(16)
    libc.prctl(PR_GET_NAME, own_name, 0, 0, 0)
    libc.prctl(PR_SET_NAME, b"memframe", 0, 0, 0)
    PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
    if libc.ptrace(PTRACE_SEIZE, w.proc.pid, None, None) != 0:
        fail("the test cannot seize its own child: errno %d" % ctypes.get_errno())
    try:
        refusal(w.proc.pid, "is being attached to by another memframe (process %d) right now; one memframe records "
                "a process at a time (`memframe detach %d` ends that recording)" % (os.getpid(), w.proc.pid))
    finally:
        libc.prctl(PR_SET_NAME, own_name, 0, 0, 0)
        libc.ptrace(PTRACE_INTERRUPT, w.proc.pid, None, None)
        os.waitpid(w.proc.pid, 0x40000000)  # __WALL
        libc.ptrace(PTRACE_DETACH, w.proc.pid, None, None)
    w.command("round 1", "done")
    w.finish(0)


def main():
    global ARGS, TMP
    parser = argparse.ArgumentParser()
    parser.add_argument("--memframe", required=True)
    parser.add_argument("--workers", required=True)
    parser.add_argument("--static", required=True)
    parser.add_argument("--agent", required=True)
    parser.add_argument("--present-pointer", required=True)
    parser.add_argument("--seccomp", required=True)
    parser.add_argument("--jemalloc", help="target_static_jemalloc (the own-allocator test runs with it only)")
    parser.add_argument("--refused-entries", help="target_refused_entries (the own-allocator refusal test)")
    parser.add_argument("--own-new", help="target_own_new (the executable's own operator new at attach)")
    parser.add_argument("--late-mimalloc", help="target_late_mimalloc (an allocator API loaded while attached)")
    parser.add_argument("--mimalloc-plugin", help="target_mimalloc_plugin, which target_late_mimalloc loads")
    parser.add_argument("--slow-mimalloc-plugin", help="target_slow_mimalloc_plugin, the same relocated in 300 ms")
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--entry-cycles", type=int, default=20)
    parser.add_argument("--only")
    ARGS = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memframe-attach-test-") as tmp:
        TMP = tmp
        os.chmod(tmp, 0o755)
        tests = [("attach, round, detach", test_attach_round_detach), ("attach again", test_attach_again),
                 ("duration and Ctrl+C", test_duration_and_ctrl_c),
                 ("process exits while recorded", test_process_exits_while_recorded),
                 ("present fetched before the attach", test_present_fetched_before_attach),
                 ("library loaded while attached", test_library_loaded_while_attached),
                 ("entry patch under spinning threads",
                  lambda: test_entry_patch_under_spinning_threads(ARGS.entry_cycles)),
                 ("refusals", test_refusals), ("refusals name the cause", test_refusals_name_the_cause),
                 ("own allocator at attach", test_own_allocator_at_attach),
                 ("own allocator refused at attach", test_own_allocator_refused_at_attach),
                 ("own allocator: operator new at attach", test_own_operator_new_at_attach),
                 ("own allocator: mimalloc's API loaded while attached", test_allocator_api_loaded_while_attached),
                 ("own allocator under spinning threads", lambda: test_own_allocator_under_spinning_threads(5)),
                 ("attach/detach cycles on busy threads", lambda: test_many_attaches_to_busy_threads(ARGS.cycles))]
        for name, test in tests:
            if ARGS.only and ARGS.only not in name:
                continue
            needs = {test_own_allocator_refused_at_attach: ARGS.refused_entries,
                     test_own_operator_new_at_attach: ARGS.own_new,
                     test_allocator_api_loaded_while_attached: ARGS.late_mimalloc}
            if test in needs:
                if not needs[test]:
                    continue
            elif "own allocator" in name and not ARGS.jemalloc:
                continue
            start = time.monotonic()
            test()
            print("attach_test: ok: %s (%.1f s)" % (name, time.monotonic() - start))


if __name__ == "__main__":
    main()
