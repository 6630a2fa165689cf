#!/usr/bin/env bash
# Configures (once) and builds memframe's Windows build (windows/: the agent
# DLL, memframe.exe and the Windows demo game) with mingw-w64, and creates
# (once) the Wine prefix BUILD_DIR/wineprefix the Windows tests share:
# creating one takes longer than most of their runs.
# tests/windows/CMakeLists.txt runs this from ctest.
#
#   windows_build.sh SOURCE_DIR BUILD_DIR [CMAKE_ARGUMENTS...]
#
# Exits 77 (skipped) with a message when the cross compiler is missing.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
source_dir="$1" build_dir="$2"
shift 2
if ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  echo "skipped: x86_64-w64-mingw32-g++-posix not found (scripts/setup.sh installs g++-mingw-w64-x86-64)"
  exit 77
fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$source_dir/windows" -B "$build_dir" \
    -DCMAKE_TOOLCHAIN_FILE="$source_dir/cmake/mingw-w64-x86_64.cmake" "$@" >/dev/null
fi
cmake --build "$build_dir" -j"$(nproc)"
prefix="$build_dir/wineprefix"
if command -v wine >/dev/null && [ ! -f "$prefix/system.reg" ]; then
  WINEPREFIX="$prefix" WINEDEBUG=-all wineboot -i >/dev/null 2>&1 || true
  WINEPREFIX="$prefix" wineserver -w
fi
