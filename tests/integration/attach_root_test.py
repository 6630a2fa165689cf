#!/usr/bin/env python3
"""root attaching to another user's process, with that user hostile.

    attach_root_test.py --memframe PATH --agent PATH --workers PATH

Runs as root only (exit 77, skipped, otherwise; CI runs as root).
target_attach_workers runs as `nobody`, and so does a hostile helper (this
script again, with --hostile) that, in every directory under memframe's
TMPDIR it can write to:
  - the moment one appears: symlinks named like memframe's files
    (hooks.ready, attach.conf, entries.part, live.sock, ...) to a
    root-only file;
  - once memframe records: a FIFO named entries (opening it for reading
    would hang memframe, and with it the detach of the game), and its own
    socket in place of live.sock;
  - before the attach: its process runs with its own copy of libc, which
    it replaces with a FIFO (memframe reads the process's libc);
  - before the detach: renames memframe's directory away and puts a
    symlink to a directory of root's in its place (where memframe's
    clean-up would unlink six files with memframe's names).
Asserted: root reads no line of the root-only file, root's six files are
all there afterwards, nothing connects to the helper's socket (a `memframe
mark` of the live socket memframe printed reaches memframe), memframe
neither hangs nor fails, and the capture holds every allocation the
workers made (known exactly).
"""
import argparse
import glob
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
NAMES = ("attach.conf", "hooks.ready", "entries", "entries.part", "agent.sock", "live.sock")
SECRET = "root-only: memframe must never show this line"


def fail(message):
    print("attach_root_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


# ---- the hostile user (runs as nobody) ---------------------------------------

def writable_dirs(tmpdir):
    found = []
    for d in glob.glob(os.path.join(tmpdir, "memframe-*")):
        for candidate in (d, os.path.join(d, "agent")):
            if not os.path.islink(candidate) and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
                found.append(candidate)
    return found


def plant(path, what):
    try:
        if what == "fifo":
            os.mkfifo(path, 0o666)
        else:
            os.symlink(what, path)
    except OSError:
        pass


def hostile(args):
    """Loops until killed; prints what it did and any connection it got."""
    planted_early, planted_late, swapped = set(), set(), set()
    accepted = []

    def serve(server):
        while True:
            conn, _ = server.accept()
            print("connected to the hostile live.sock", flush=True)
            accepted.append(conn)

    while True:
        recording = os.path.exists(args.recording_flag)
        for d in writable_dirs(args.tmpdir):
            if d not in planted_early:
                planted_early.add(d)
                for name in ("hooks.ready", "attach.conf", "live.sock", "agent.sock", "entries.part"):
                    plant(os.path.join(d, name), args.secret)
                print("planted early in " + d, flush=True)
            if recording and d not in planted_late:
                planted_late.add(d)
                plant(os.path.join(d, "entries"), "fifo")
                live = os.path.join(d, "live.sock")
                try:
                    os.unlink(live)
                except OSError:
                    pass
                try:
                    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    server.bind(live)
                    server.listen(8)
                    threading.Thread(target=serve, args=(server,), daemon=True).start()
                    print("own live.sock in " + d, flush=True)
                except OSError:
                    pass
                print("planted late in " + d, flush=True)
        if os.path.exists(args.swap_flag):
            for d in glob.glob(os.path.join(args.tmpdir, "memframe-*")):
                if d in swapped or d.endswith(".moved") or os.path.islink(d):
                    continue
                swapped.add(d)
                try:
                    os.rename(d, d + ".moved")
                    os.symlink(args.root_dir, d)
                    print("swapped " + d, flush=True)
                except OSError as e:
                    print("could not swap %s: %s" % (d, e), flush=True)
        time.sleep(0.0005)


# ---- the test (runs as root) --------------------------------------------------

def start_workers(path, user, env):
    """target_attach_workers as `user`, once it says it is ready."""
    proc = subprocess.Popen([path, "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, user=user.pw_uid, group=user.pw_gid, extra_groups=[], cwd="/", env=env)
    ask(proc, None, "ready")
    return proc


def ask(proc, line, answer):
    """Sends `line` (if any) to the workers; their next line must be `answer`."""
    if line:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
    got = proc.stdout.readline().strip()
    if got != answer:
        fail("target said %r, not %r" % (got, answer))


def read_until(stream, prefix, seen, seconds=60):
    """Reads lines into `seen` until one starts with `prefix` (a thread, so
    that a memframe that hangs fails the test rather than stalls it)."""
    done = threading.Event()

    def reader():
        for line in stream:
            seen.append(line)
            if line.startswith(prefix):
                done.set()
                return
        done.set()

    threading.Thread(target=reader, daemon=True).start()
    if not done.wait(seconds):
        fail("memframe said no %r within %d s: %s" % (prefix, seconds, "".join(seen)))
    if not seen or not seen[-1].startswith(prefix):
        fail("memframe ended before %r: %s" % (prefix, "".join(seen)))


def system_libc():
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith("/libc.so.6"):
                return line.split()[-1]
    fail("no libc.so.6 in this process's maps")


def run(args):
    if os.geteuid() != 0:
        print("attach_root_test: skipped: needs root (it attaches to a process of `nobody`)")
        return SKIP
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        print("attach_root_test: skipped: no user `nobody`")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="memframe-root-test-") as tmp:
        os.chmod(tmp, 0o755)
        shared = os.path.join(tmp, "tmp")  # memframe's TMPDIR: as /tmp, sticky and open to all
        os.mkdir(shared)
        os.chmod(shared, 0o1777)
        root_dir = os.path.join(tmp, "root-only")
        os.mkdir(root_dir, 0o700)
        secret = os.path.join(root_dir, "secret")
        with open(secret, "w") as f:
            f.write(SECRET + "\n")
        for name in NAMES:
            with open(os.path.join(root_dir, name), "w") as f:
                f.write("root's own " + name + "\n")
        flags = os.path.join(tmp, "flags")
        os.mkdir(flags)
        os.chmod(flags, 0o755)
        recording_flag, swap_flag = os.path.join(flags, "recording"), os.path.join(flags, "swap")

        # The helper runs from a copy that `nobody` can read, with a python it
        # can run (the build's may sit under root's home).
        script = os.path.join(tmp, "hostile_user.py")
        shutil.copyfile(os.path.abspath(__file__), script)
        os.chmod(script, 0o644)
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        helper = subprocess.Popen([python, script, "--hostile", "--tmpdir", shared,
                                   "--secret", secret, "--root-dir", root_dir, "--recording-flag", recording_flag,
                                   "--swap-flag", swap_flag],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], cwd="/")
        # The workers run with a copy of libc in a directory of nobody's,
        # which nobody then replaces with a FIFO: memframe reads the libc of
        # the process to find dlopen, and must not open what nobody put at
        # that path (opening a FIFO waits for a writer: memframe would hang).
        own_lib = os.path.join(tmp, "nobody-lib")
        os.mkdir(own_lib)
        libc = os.path.join(own_lib, "libc.so.6")
        shutil.copyfile(system_libc(), libc)
        for path in (own_lib, libc):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        workers = start_workers(args.workers, nobody, dict(os.environ, LD_LIBRARY_PATH=own_lib))
        with open("/proc/%d/maps" % workers.pid) as f:
            if libc not in f.read():
                fail("the workers did not load their own copy of libc: the test tests nothing")
        os.unlink(libc)
        os.mkfifo(libc, 0o666)
        os.chown(libc, nobody.pw_uid, nobody.pw_gid)
        capture = os.path.join(tmp, "root.mfc")
        env = dict(os.environ, TMPDIR=shared)
        attach = subprocess.Popen([args.memframe, "attach", "--agent", args.agent, "--no-summary", "-o", capture,
                                   str(workers.pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env)
        said = []
        try:
            read_until(attach.stderr, "memframe: recording", said)
            open(recording_flag, "w").close()
            time.sleep(1.0)  # the helper's late plants; memframe takes entries every 50 ms meanwhile
            ask(workers, "round 1000", "done")
            live = [line.split()[-1] for line in said if line.startswith("memframe: live view:")]
            if not live:
                fail("memframe attach offered no live socket: " + "".join(said))
            try:
                mark = subprocess.run([args.memframe, "mark", live[0], "root-mark"], capture_output=True, text=True,
                                      timeout=30)
            except subprocess.TimeoutExpired:
                fail("memframe mark of the live socket memframe printed hung")
            if mark.returncode != 0:
                fail("memframe mark of the live socket memframe printed failed: " + mark.stderr)
            open(swap_flag, "w").close()
            time.sleep(1.0)
            attach.send_signal(2)  # Ctrl+C: detach
            try:
                attach.wait(timeout=60)
            except subprocess.TimeoutExpired:
                fail("memframe attach hung (a FIFO of the target's user?)")
            said.extend(attach.stderr.readlines())
            ask(workers, "round 10", "done")
            ask(workers, "exit 0", "bye")
            workers.wait(timeout=30)
        finally:
            for proc in (attach, workers):
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            helper.kill()
            helper_said = helper.communicate()[0]
        text = "".join(said)
        print(helper_said, end="")
        if attach.returncode != 0:
            fail("memframe attach exited with %d: %s" % (attach.returncode, text))
        if SECRET in text:
            fail("memframe printed a line of a root-only file the target's user linked to: " + text)
        missing = [name for name in NAMES if not os.path.isfile(os.path.join(root_dir, name))]
        if missing:
            fail("root's files %s were removed through a path the target's user controls" % ", ".join(missing))
        if "connected to the hostile live.sock" in helper_said:
            fail("something of memframe's connected to the target's user's own live.sock")
        if "entries in " not in text or "is not a file memframe reads" not in text:
            fail("memframe did not say it ignored the FIFO named entries: " + text)
        if "planted early" not in helper_said:
            fail("the hostile user found no directory to plant in: the test tests nothing")
        result = subprocess.run([args.memframe, "report", capture, "--json"], capture_output=True, text=True,
                                timeout=120)
        if result.returncode != 0:
            fail("report failed: " + result.stderr)
        summary = json.loads(result.stdout)
        # 4 workers x 1000 x (malloc + new[]): every one, nothing dropped.
        for key, want in (("allocations", 8000), ("frees", 8000), ("dropped_events", 0)):
            if summary[key] != want:
                fail("%s: %r, want %r" % (key, summary[key], want))
        print("attach_root_test: ok")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--memframe")
    parser.add_argument("--agent")
    parser.add_argument("--workers")
    parser.add_argument("--hostile", action="store_true")
    parser.add_argument("--tmpdir")
    parser.add_argument("--secret")
    parser.add_argument("--root-dir")
    parser.add_argument("--recording-flag")
    parser.add_argument("--swap-flag")
    args = parser.parse_args()
    if args.hostile:
        hostile(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
