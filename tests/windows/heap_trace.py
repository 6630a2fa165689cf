#!/usr/bin/env python3
"""Counts a program's heap calls in a Wine relay trace: the independent
truth wine_programs_test.sh checks memframe's captures against.

    heap_trace.py RELAY_LOG EXE_NAME
      prints {"allocations": A, "frees": F, "unknown_frees": U} as JSON

The log is Wine's WINEDEBUG=+pid,+relay,+loaddll output with relay limited
(registry, wine_programs_test.sh) to the heap functions the agent hooks and
to calls from every module but those whose imports the agent leaves alone
(agent/platform/windows/iat_patch.cc, Skipped). Only the process whose main
module is EXE_NAME counts, up to its exit (exit or ExitProcess, which the
agent hooks to finish the capture: what atexit handlers and DllMains free
after it is not recorded). Counted as memframe counts them: an allocation
that returned a block; a free of a non-null block, which is unknown when no
counted call allocated it (a block the C runtime allocated inside itself,
as _wcsdup's, and the program frees); a realloc frees its old block when it
returns a new one or its size is 0, and allocates when it returns one.
"""
import json
import re
import sys

ALLOC = {"malloc", "calloc", "_aligned_malloc", "HeapAlloc", "RtlAllocateHeap"}
FREE = {"free": 0, "_aligned_free": 0, "HeapFree": 2, "RtlFreeHeap": 2}  # which argument is the block
REALLOC = {"realloc": (0, 1), "HeapReAlloc": (2, 3), "RtlReAllocateHeap": (2, 3)}  # block, size
EXIT = {"exit", "ExitProcess"}
CALL = re.compile(r"^([0-9a-f]{4}):([0-9a-f]{4}):Call (\w+)\.(\w+)\(([^)]*)\)")
RET = re.compile(r"^([0-9a-f]{4}):([0-9a-f]{4}):Ret  (\w+)\.(\w+)\(\) retval=([0-9a-fA-F]+)")
LOADED = re.compile(r'^([0-9a-f]{4}):[0-9a-f]{4}:trace:loaddll:\S+ Loaded L"([^"]*)"')


class Counts:
    def __init__(self):
        self.allocations = self.frees = self.unknown_frees = 0
        self.live = set()

    def free(self, block):
        if block in self.live:
            self.live.discard(block)
            self.frees += 1
        else:
            self.unknown_frees += 1

    def allocate(self, block):
        self.allocations += 1
        self.live.add(block)


def count(lines, exe):
    pid = None
    counts = Counts()
    pending = {}  # thread -> (function, arguments) of its call not yet returned
    for line in lines:
        loaded = LOADED.match(line)
        if loaded and pid is None and loaded.group(2).replace("\\\\", "\\").lower().endswith("\\" + exe.lower()):
            pid = loaded.group(1)
            continue
        call = CALL.match(line)
        if call and call.group(1) == pid:
            thread, function = call.group(2), call.group(4)
            args = [int(a, 16) for a in call.group(5).split(",") if a]
            if function in EXIT:
                break
            if function in FREE:
                if args[FREE[function]]:
                    counts.free(args[FREE[function]])
            elif function in ALLOC or function in REALLOC:
                pending[thread] = (function, args)
            continue
        ret = RET.match(line)
        if ret and ret.group(1) == pid and ret.group(2) in pending:
            function, args = pending.pop(ret.group(2))
            result = int(ret.group(5), 16)
            if function in REALLOC:
                block, size = (args[i] for i in REALLOC[function])
                if block and (result or size == 0):
                    counts.free(block)
            if result:
                counts.allocate(result)
    if pid is None:
        sys.exit("heap_trace.py: no process loaded %s in the trace" % exe)
    return {"allocations": counts.allocations, "frees": counts.frees, "unknown_frees": counts.unknown_frees}


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], errors="replace") as log:
        print(json.dumps(count(log, sys.argv[2])))
