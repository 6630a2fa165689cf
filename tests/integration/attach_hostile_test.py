#!/usr/bin/env python3
"""`memframe attach` against what could harm the game it attaches to.

    attach_hostile_test.py --memframe PATH --agent PATH --victim PATH --waits PATH
                           --workers PATH --present-pointer PATH [--only NAME]

killed at every instant: memframe attach is SIGKILLed at 30 instants
spread evenly over its injection (measured first: from memframe's start,
its "attached" line comes when the injection ends, and says how long the
threads were stopped and the agent loaded); target_attach_victim must
then end with its native output and status, every time.

waits not cut short: target_interrupted_waits loops on sigtimedwait,
epoll_wait and nanosleep with timeouts while memframe attaches and
detaches three times: no wait may return EINTR or before its timeout (the
kernel returns EINTR from these after a stop; memframe re-enters them).

killed while patching entries: the same, 30 instants spread from
memframe's start to its "recording" line, on target_present_pointer whose
3 threads call a present fetched before the attach in a tight loop, so
that memframe patches its entry with threads inside it; the program must
answer, count every call once and exit 0.

nothing left after a detach: target_attach_workers attached, recorded and
detached twice: its fds are exactly those it had before, its resident
memory grew by at most 16 MiB, and memframe says what stays ("no fd").
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ARGS = None
TMP = None


def fail(message):
    print("attach_hostile_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def start_victim():
    victim = subprocess.Popen([ARGS.victim], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if victim.stdout.readline() != "ready\n":
        fail("target_attach_victim did not start")
    return victim


def finish_victim(victim):
    out = victim.stdout.read()
    return victim.wait(timeout=60), out


def start_attach(pid, capture):
    return subprocess.Popen([ARGS.memframe, "attach", "--agent", ARGS.agent, "--no-live", "--no-summary", "--force",
                             "-o", capture, str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def injection_window():
    """(start, end) of the injection in seconds after memframe attach's
    start (the median of 3 attaches, each then ended by Ctrl+C): it ends at
    the "attached" line, which says how long it took."""
    windows = []
    for _ in range(3):
        victim = start_victim()
        start = time.monotonic()
        attach = start_attach(victim.pid, os.path.join(TMP, "measure.mfc"))
        for line in attach.stderr:
            found = re.search(r"attached to process .* stopped ([0-9.]+) ms .* for ([0-9.]+) ms", line)
            if found:
                end = time.monotonic() - start
                took = (float(found.group(1)) + float(found.group(2))) / 1000
                windows.append((max(0.0, end - 1.5 * took), end))
                break
        else:
            fail("memframe attach never said it attached")
        attach.send_signal(signal.SIGINT)
        attach.communicate(timeout=60)
        finish_victim(victim)
    return sorted(windows)[1]


def test_killed_at_every_instant(tries=30):
    native = subprocess.run([ARGS.victim], capture_output=True, text=True, timeout=60)
    native = (native.returncode, native.stdout.replace("ready\n", "", 1))
    first, last = injection_window()
    print("attach_hostile_test: the injection: %.1f to %.1f ms after memframe's start" % (first * 1000, last * 1000))
    for i in range(tries):
        delay = first + (last - first) * (i + 0.5) / tries
        victim = start_victim()
        attach = start_attach(victim.pid, os.path.join(TMP, "killed.mfc"))
        time.sleep(delay)
        attach.kill()
        attach.communicate(timeout=60)
        got = finish_victim(victim)
        if got != native:
            fail("memframe attach killed %.1f ms after its start: the victim ended with %r, natively %r"
                 % (delay * 1000, got, native))


def test_waits_not_cut_short(attaches=3):
    native = subprocess.run([ARGS.waits], capture_output=True, text=True, timeout=60)
    expected = (0, "ready\n12 waits of each kind, 0 early or in error\n")
    if (native.returncode, native.stdout) != expected:
        fail("target_interrupted_waits natively: %r %s" % ((native.returncode, native.stdout), native.stderr))
    target = subprocess.Popen([ARGS.waits], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = target.stdout.readline()
    for i in range(attaches):
        attach = subprocess.run([ARGS.memframe, "attach", "--agent", ARGS.agent, "--no-live", "--no-summary", "--force",
                                 "--duration", "0.2", "-o", os.path.join(TMP, "waits.mfc"), str(target.pid)],
                                capture_output=True, text=True, timeout=60)
        if attach.returncode != 0:
            fail("memframe attach %d failed: %s" % (i, attach.stderr))
    out, err = target.communicate(timeout=60)
    if (target.returncode, said + out) != expected:
        fail("target_interrupted_waits under attaches: %r\n%s" % ((target.returncode, said + out), err))


def test_killed_while_patching_entries(tries=30):
    def start():
        target = subprocess.Popen([ARGS.present_pointer], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        if target.stdout.readline().strip() != "ready":
            fail("target_present_pointer did not start")
        command(target, "spin-on 3", "spinning")
        return target

    def command(target, line, answer):
        target.stdin.write(line + "\n")
        target.stdin.flush()
        got = target.stdout.readline().strip()
        if got != answer:
            fail("target_present_pointer said %r, not %r (status %s)" % (got, answer, target.poll()))

    target = start()
    begin = time.monotonic()
    attach = start_attach(target.pid, os.path.join(TMP, "patching.mfc"))
    for line in attach.stderr:
        if line.startswith("memframe: recording"):
            break
    span = time.monotonic() - begin
    attach.send_signal(signal.SIGINT)
    attach.communicate(timeout=60)
    for i in range(tries):
        delay = span * (i + 0.5) / tries
        attach = start_attach(target.pid, os.path.join(TMP, "patching.mfc"))
        time.sleep(delay)
        attach.kill()
        attach.communicate(timeout=60)
        if target.poll() is not None:
            fail("memframe attach killed %.1f ms after its start: target_present_pointer died (status %d)"
                 % (delay * 1000, target.returncode))
        if i % 10 == 9:  # a fresh process: an agent left recording nothing slows the next attaches
            command(target, "spin-off 0", "calls-match")
            command(target, "exit 0", "bye")
            if target.wait(timeout=30) != 0:
                fail("target_present_pointer exited with %d" % target.returncode)
            target = start()
    command(target, "spin-off 0", "calls-match")
    command(target, "exit 0", "bye")
    target.wait(timeout=30)


def footprint(pid):
    """(the fds, the resident KiB) of process `pid`."""
    with open("/proc/%d/status" % pid) as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return sorted(int(fd) for fd in os.listdir("/proc/%d/fd" % pid)), rss


def test_nothing_left_after_detach(cycles=2):
    workers = subprocess.Popen([ARGS.workers, "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def command(line, answer):
        workers.stdin.write(line + "\n")
        workers.stdin.flush()
        got = workers.stdout.readline().strip()
        if got != answer:
            fail("target_attach_workers said %r, not %r" % (got, answer))

    if workers.stdout.readline().strip() != "ready":
        fail("target_attach_workers did not start")
    fds, rss = footprint(workers.pid)
    for cycle in range(cycles):
        attach = subprocess.Popen([ARGS.memframe, "attach", "--agent", ARGS.agent, "--no-live", "--no-summary",
                                   "--force", "--duration", "0.5", "-o", os.path.join(TMP, "left.mfc"),
                                   str(workers.pid)], stderr=subprocess.PIPE, text=True)
        said = ""
        while "memframe: recording" not in said:
            line = attach.stderr.readline()
            if not line:
                fail("memframe attach stopped before recording: " + said)
            said += line
        command("round 100", "done")
        said += attach.communicate(timeout=60)[1]
        if attach.returncode != 0:
            fail("memframe attach %d: %s" % (cycle, said))
        left = [line for line in said.splitlines() if line.startswith("memframe: left in process")]
        if len(left) != 1 or not left[0].endswith("; no fd"):
            fail("memframe did not say it left no fd (cycle %d):\n%s" % (cycle, said))
        after_fds, after_rss = footprint(workers.pid)
        if after_fds != fds:
            fail("after detach %d the fds are %s, before the attach %s" % (cycle, after_fds, fds))
        if after_rss - rss > 16 * 1024:
            fail("after detach %d the process holds %d KiB more resident memory" % (cycle, after_rss - rss))
    command("exit 0", "bye")
    workers.wait(timeout=30)


def main():
    global ARGS, TMP
    parser = argparse.ArgumentParser()
    parser.add_argument("--memframe", required=True)
    parser.add_argument("--agent", required=True)
    parser.add_argument("--victim", required=True)
    parser.add_argument("--waits", required=True)
    parser.add_argument("--workers", required=True)
    parser.add_argument("--present-pointer", required=True)
    parser.add_argument("--only")
    ARGS = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memframe-attach-hostile-") as tmp:
        TMP = tmp
        tests = [("killed at every instant", test_killed_at_every_instant),
                 ("waits not cut short", test_waits_not_cut_short),
                 ("killed while patching entries", test_killed_while_patching_entries),
                 ("nothing left after a detach", test_nothing_left_after_detach)]
        for name, test in tests:
            if ARGS.only and ARGS.only not in name:
                continue
            start = time.monotonic()
            test()
            print("attach_hostile_test: ok: %s (%.1f s)" % (name, time.monotonic() - start))


if __name__ == "__main__":
    main()
