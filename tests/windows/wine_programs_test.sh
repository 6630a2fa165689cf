#!/usr/bin/env bash
# Wine's own programs under memframe, each run twice: once under a Wine
# relay trace of the heap calls (heap_trace.py counts them), once recorded
# by `memframe.exe run`. Both runs must exit with the program's status, and
# the capture must hold exactly the trace's allocations, frees and frees of
# blocks never seen allocated (a block the C runtime allocated inside itself
# and the program frees): nothing the program's modules allocate or free
# through an import is missed, from the first DllMain to the exit.
#
# The trace is limited, as the agent is, to the functions it hooks
# (windows_hooks.cc) called from every module but those whose imports it
# leaves alone (iat_patch.cc, Skipped): Wine's RelayInclude and
# RelayFromExclude, set in the prefix's registry (read only when +relay is
# on, so the other tests sharing the prefix are not affected).
#
#   wine_programs_test.sh MEMFRAME_CLI WINDOWS_BIN_DIR
set -uo pipefail
cli="$1" bin="$2"
here="$(cd "$(dirname "$0")" && pwd)"
command -v wine >/dev/null || { echo "skipped: wine not found (scripts/setup.sh installs wine64)"; exit 77; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/memframe-win-programs.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export WINEPREFIX="${WINEPREFIX:-$scratch/wine}" WINEDEBUG=-all

relay_functions='HeapAlloc;HeapReAlloc;HeapFree;RtlAllocateHeap;RtlReAllocateHeap;RtlFreeHeap'
relay_functions+=';malloc;calloc;realloc;free;_aligned_malloc;_aligned_free;exit;ExitProcess'
wine reg add 'HKCU\Software\Wine\Debug' /v RelayInclude /t REG_SZ /d "$relay_functions" /f >/dev/null &&
  wine reg add 'HKCU\Software\Wine\Debug' /v RelayFromExclude /t REG_SZ \
    /d 'ntdll;kernel32;kernelbase;msvcrt;ucrtbase' /f >/dev/null || { echo "FAIL: reg add"; exit 1; }

# The programs' files, in a folder they see as Z:.
data="$scratch/data"
mkdir -p "$data/copies"
printf 'alpha\nneedle here\nomega\n' >"$data/words.txt"
printf 'one\n' >"$data/one.txt"
win_data="Z:${data//\//\\}"
failures=0

# check NAME STATUS EXE ARGS...: EXE (a name as CreateProcess finds it)
# exits with STATUS traced and recorded, and the counts agree.
check() {
  local name="$1" status="$2" exe="$3"
  shift 3
  local got_trace got_run
  rm -rf "$data/copies" && mkdir -p "$data/copies"
  WINEDEBUG=+pid,+relay,+loaddll wine "$exe" "$@" >"$scratch/$name.trace.out" 2>"$scratch/$name.trace"
  got_trace=$?
  rm -rf "$data/copies" && mkdir -p "$data/copies"
  "$cli" run --tcp -o "$scratch/$name.mfc" -- wine "$bin/memframe.exe" run -- "$exe" "$@" \
    >"$scratch/$name.run.out" 2>"$scratch/$name.run.err"
  got_run=$?
  local traced recorded
  traced="$(python3 "$here/heap_trace.py" "$scratch/$name.trace" "$exe.exe")" || traced='{}'
  recorded="$("$cli" report "$scratch/$name.mfc" --json 2>/dev/null)" || recorded='{}'
  if python3 - "$name" "$status" "$got_trace" "$got_run" "$traced" "$recorded" <<'PY'; then
import json, sys
name, want, got_trace, got_run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
traced, recorded = json.loads(sys.argv[5]), json.loads(sys.argv[6])
keys = ("allocations", "frees", "unknown_frees")
got = {key: recorded.get(key) for key in keys}
expected = {key: traced.get(key) for key in keys}
ok = got == expected and got_trace == want and got_run == want
print("%s %-8s status %d traced, %d recorded (want %d); traced %s, recorded %s"
      % ("ok  " if ok else "FAIL", name, got_trace, got_run, want,
         json.dumps(expected), json.dumps(got)))
sys.exit(0 if ok else 1)
PY
    :
  else
    failures=$((failures + 1))
    grep '^memframe' "$scratch/$name.run.err" | head -5
  fi
}

check dir 0 cmd /c dir "$win_data"
check reg 0 reg query 'HKCU\Software\Wine\Debug'
check reg_missing 1 reg query 'HKCU\Software\memframe\none'
check find 0 find needle "$win_data\\words.txt"
check find_none 1 find haystack "$win_data\\words.txt"
check xcopy 0 xcopy /Y "$win_data\\one.txt" "$win_data\\copies\\"
check regedit 0 regedit /e "$win_data\\copies\\debug.reg" 'HKEY_CURRENT_USER\Software\Wine\Debug'

# Child processes are not followed, and memframe.exe run says so once when
# the program starts one (cmd starting cmd), not when it starts none (dir).
"$cli" run --tcp -o "$scratch/child.mfc" -- wine "$bin/memframe.exe" run -- cmd /c "cmd /c exit 3" \
  >"$scratch/child.run.out" 2>"$scratch/child.run.err"
got_child=$?
notes="$(grep -c 'started process .*cmd.exe.*, which is not recorded' "$scratch/child.run.err")"
none="$(grep -c 'started process' "$scratch/dir.run.err")"
if [ "$got_child" -eq 3 ] && [ "$notes" -eq 1 ] && [ "$none" -eq 0 ]; then
  echo "ok   child    status 3, one note of the child process, none for dir"
else
  echo "FAIL child    status $got_child (want 3), $notes notes of a child (want 1), $none for dir (want 0)"
  grep '^memframe' "$scratch/child.run.err" | head -5
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "$failures of the programs failed"; exit 1; }
