#!/usr/bin/env bash
# The docs' command that configures the Windows build works as written:
# the first `cmake -S windows ...` line of docs/WINDOWS.md, run
# verbatim from the top of a tree (a scratch folder of links to this one's
# entries, so that its build-windows/ lands there), configures with
# mingw-w64. Building is what windows.build does.
#
#   readme_build_test.sh SOURCE_DIR
set -euo pipefail
source_dir="$1"
command -v x86_64-w64-mingw32-g++-posix >/dev/null ||
  { echo "skipped: x86_64-w64-mingw32-g++-posix not found (scripts/setup.sh installs g++-mingw-w64-x86-64)"; exit 77; }
line="$(awk '/^cmake -S windows / { print; exit }' "$source_dir/docs/WINDOWS.md")"
[ -n "$line" ] || { echo "FAIL: no 'cmake -S windows' line in docs/WINDOWS.md"; exit 1; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/memframe-readme-build.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
for entry in "$source_dir"/*; do ln -s "$entry" "$scratch/"; done
echo "running, in a copy of the tree: $line"
if ! (cd "$scratch" && bash -c "$line") >"$scratch/configure.log" 2>&1; then
  echo "FAIL: docs/WINDOWS.md's command did not configure:"; cat "$scratch/configure.log"; exit 1
fi
# windows/CMakeLists.txt stops unless the target is Windows; the compiler is mingw-w64's.
grep -q 'x86_64-w64-mingw32' "$scratch/build-windows/CMakeCache.txt" ||
  { echo "FAIL: configured without mingw-w64"; exit 1; }
echo "ok: configured for Windows with $(grep -m1 -o '/[^ ]*x86_64-w64-mingw32-[a-z0-9+-]*' "$scratch/build-windows/CMakeCache.txt")"
