#!/usr/bin/env bash
# Configures (once) and builds one of memframe's sanitizer builds, which hold
# only what their unit tests need (top-level CMakeLists.txt, "Sanitizer
# builds"); tests/sanitize/CMakeLists.txt runs this from ctest.
#
#   sanitized_build.sh SOURCE_DIR BUILD_DIR OPTION [CMAKE_ARGUMENTS...]
#
# OPTION is MEMFRAME_SANITIZE (ASan+UBSan) or MEMFRAME_TSAN (ThreadSanitizer).
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
source_dir="$1" build_dir="$2" option="$3"
shift 3
# Configured again from scratch when its arguments change (a compiler that
# changed, say, which CMake will not take in an existing cache).
arguments="-D$option=ON $*"
stamp="$build_dir/memframe-configured-with"
if [ ! -f "$build_dir/CMakeCache.txt" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$arguments" ]; then
  rm -rf "$build_dir"
  cmake -S "$source_dir" -B "$build_dir" -D"$option"=ON "$@" >/dev/null
  printf '%s' "$arguments" >"$stamp"
fi
cmake --build "$build_dir" -j"$(nproc)"
