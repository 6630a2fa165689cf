#!/usr/bin/env bash
# memframe.exe refuses what its agent cannot profile, each with a clear
# message and exit status 125, under Wine:
#   a 32-bit game (a copy of the demo game with its PE Machine field set to
#   i386: the check reads the header, as it would of a real 32-bit game),
#   a missing agent DLL, a missing game, attach to a process that is not
#   running, no recorder to stream to, and a Linux present as the frame
#   source.
#
# A game is found as CreateProcess finds it (a name without a folder in the
# system folders and PATH, ".exe" added), and named in messages as given;
# the Linux recorder leaves no capture behind a refused run.
#
#   refusals_test.sh WINDOWS_BIN_DIR MEMFRAME_CLI
set -uo pipefail
bin="$1" cli="$2"
command -v wine >/dev/null || { echo "skipped: wine not found (scripts/setup.sh installs wine64)"; exit 77; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/memframe-win-refusals.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
# The prefix ctest names (windows.build made it), else one of our own.
export WINEPREFIX="${WINEPREFIX:-$scratch/wine}" WINEDEBUG=-all
failures=0

# expect NAME STATUS PATTERN COMMAND...: the command's status and stderr.
expect() {
  local name="$1" status="$2" pattern="$3"
  shift 3
  local err="$scratch/$name.err"
  "$@" >"$scratch/$name.out" 2>"$err"
  local got=$?
  if [ "$got" -ne "$status" ] || ! grep -q -- "$pattern" "$err"; then
    echo "FAIL $name: status $got (want $status), stderr:"; cat "$err"
    echo "  (wanted a line matching: $pattern)"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(grep -m1 -- "$pattern" "$err")"
  fi
}

cp "$bin/memframe_demo_game.exe" "$scratch/game32.exe"
python3 - "$scratch/game32.exe" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
pe = struct.unpack_from('<I', data, 0x3c)[0]
struct.pack_into('<H', data, pe + 4, 0x14c)  # IMAGE_FILE_MACHINE_I386
open(path, 'wb').write(data)
PY

export MEMFRAME_TCP=127.0.0.1:9  # never reached: each case is refused before
expect 32bit 125 "is a 32-bit program; memframe_agent.dll is for 64-bit" \
  wine "$bin/memframe.exe" run -- "$scratch/game32.exe"
expect missing_agent 125 "missing.dll: not found" \
  wine "$bin/memframe.exe" run --agent "$scratch/missing.dll" -- "$bin/memframe_demo_game.exe"
expect missing_game 125 "nosuchgame.exe: not found" \
  wine "$bin/memframe.exe" run -- "$scratch/nosuchgame.exe"
expect attach_no_process 125 "no running process is named nosuchgame.exe" \
  wine "$bin/memframe.exe" attach nosuchgame.exe
expect no_such_name 125 "memframe: nosuchgame: not found (in memframe.exe's folder" \
  wine "$bin/memframe.exe" run -- nosuchgame
if grep -q "nosuchgame.exe" "$scratch/no_such_name.err"; then
  echo "FAIL no_such_name: the message names nosuchgame.exe, not the name given"; failures=$((failures + 1))
fi
# Found in the system folder, ".exe" added; the recorder is not there, so it
# runs unprofiled and its status passes through.
expect system_folder 7 "the agent is not recording" wine "$bin/memframe.exe" run -- cmd /c exit 7
# Found on PATH (Wine appends WINEPATH): a copy of memframe.exe, asked for help.
mkdir -p "$scratch/path"
cp "$bin/memframe.exe" "$scratch/path/mfpathprog.exe"
WINEPATH="$(winepath -w "$scratch/path" 2>/dev/null)" \
  expect on_path 0 "usage: memframe.exe run" wine "$bin/memframe.exe" run -- mfpathprog --help
# A Linux present never ends a Windows game's frames.
MEMFRAME_FRAME_SOURCE=glXSwapBuffers expect linux_present 125 \
  "frame-source glXSwapBuffers is no Windows present: a Windows game takes auto, slices, SwapBuffers" \
  wine "$bin/memframe.exe" run -- "$bin/memframe_demo_game.exe"
unset MEMFRAME_TCP
expect no_recorder 125 "no recorder: pass --connect" \
  wine "$bin/memframe.exe" run -- "$bin/memframe_demo_game.exe"
# Through the Linux recorder: the refusal is said, and no empty capture stays.
expect no_capture_left 125 "exited with status 125 (a refusal of memframe's, said above) before any process connected; no capture written" \
  "$cli" run --tcp -o "$scratch/refused.mfc" -- wine "$bin/memframe.exe" run -- nosuchgame
if [ -e "$scratch/refused.mfc" ]; then
  echo "FAIL no_capture_left: $scratch/refused.mfc was left behind"; failures=$((failures + 1))
fi
exit $((failures > 0))
