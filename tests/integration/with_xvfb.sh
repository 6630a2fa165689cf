#!/usr/bin/env bash
# Runs a command inside a virtual X server of its own:
#   with_xvfb.sh COMMAND [ARGS...]
#
# Why not `xvfb-run -a`: it picks the display number by looking for lock
# files, so two tests starting at once (ctest -j2) can pick the same number,
# and one of them loses its display in the middle of the run ("Couldn't
# open X11 display"). Xvfb's -displayfd makes the server choose a free
# display itself and tell us which, which cannot race.
set -u
command -v Xvfb >/dev/null || { echo "with_xvfb.sh: Xvfb is not installed" >&2; exit 2; }

dir="$(mktemp -d "${TMPDIR:-/tmp}/memframe-xvfb.XXXXXX")"
mkfifo "$dir/display"
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$dir/display" 2>"$dir/xvfb.log" &
xvfb=$!
cleanup() {
  kill "$xvfb" 2>/dev/null
  wait "$xvfb" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

display=""
read -r -t 30 display <"$dir/display"
if [[ ! "$display" =~ ^[0-9]+$ ]]; then
  echo "with_xvfb.sh: Xvfb did not start:" >&2
  cat "$dir/xvfb.log" >&2
  exit 2
fi
DISPLAY=":$display" "$@"
