#!/usr/bin/env bash
# The main job: install, build, profile the demo game with `memframe run`
# (under Xvfb when there is no display), print the report, keep the capture.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MEMFRAME_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh" --demo
bash "$root/scripts/build.sh" --demo
capture="${1:-$PWD/demo.mfc}"
# --force: the demo's own capture of an earlier run is replaced.
run=("$build/bin/memframe" run --force -o "$capture" -- "$build/bin/memframe_demo_game")
export LIBGL_ALWAYS_SOFTWARE=1
if [ -z "${DISPLAY:-}" ]; then
  xvfb-run -a -s "-screen 0 1024x768x24" "${run[@]}"
else
  "${run[@]}"
fi
"$build/bin/memframe" report "$capture" hidden
echo "capture: $capture"
echo "  look at it:  $build/bin/memframe-viewer $capture"
echo "  other reports: $build/bin/memframe report $capture [frames|phases|diff|leaks|sites|...]"
