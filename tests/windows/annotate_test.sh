#!/usr/bin/env bash
# annotate.h on Windows: memframe_annotate.exe (built with MinGW) marks 12
# frames with memframe_frame_mark, places the marker level_loaded, and
# carves 3 custom blocks a frame from a declared frame arena it resets each
# frame. The capture has exactly those frames, the marker and the arena.
#
#   annotate_test.sh MEMFRAME_CLI WINDOWS_BIN_DIR
set -euo pipefail
cli="$1" bin="$2"
command -v wine >/dev/null || { echo "skipped: wine not found (scripts/setup.sh installs wine64)"; exit 77; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/memframe-win-annotate.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export WINEPREFIX="${WINEPREFIX:-$scratch/wine}" WINEDEBUG=-all

"$cli" run --tcp -o "$scratch/annotate.mfc" -- wine "$bin/memframe.exe" run -- "$bin/memframe_annotate.exe" \
  >"$scratch/run.out" 2>&1 || { cat "$scratch/run.out"; exit 1; }
"$cli" report "$scratch/annotate.mfc" --json >"$scratch/summary.json"
"$cli" report "$scratch/annotate.mfc" allocators --json >"$scratch/allocators.json"
# A cut at a marker name is refused unless the capture has that marker.
"$cli" report "$scratch/annotate.mfc" diff level_loaded end --json >"$scratch/diff.json" ||
  { echo "FAIL: no marker level_loaded in the capture"; exit 1; }
python3 - "$scratch" <<'PY'
import json, sys
d = sys.argv[1]
summary = json.load(open(d + "/summary.json"))
allocators = json.load(open(d + "/allocators.json"))["allocators"]
diff = json.load(open(d + "/diff.json"))
got = {
    "frames": (summary["frames"], summary["frame_source"]),
    "marker": diff["a"]["kind"],
    "allocators": [(a["name"], a["kind"], a["blocks"], a["bytes"], a["releases"], a["live_blocks_end"])
                   for a in allocators],
}
want = {
    "frames": (12, "memframe_frame_mark"),
    "marker": "marker",
    "allocators": [("frame arena", "frame arena", 36, 3600, 12, 0)],
}
for key in want:
    print("%-10s got %s, want %s" % (key, got[key], want[key]))
sys.exit(0 if got == want else 1)
PY
