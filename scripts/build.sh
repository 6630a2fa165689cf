#!/usr/bin/env bash
# Configures and builds into ./build (or $MEMFRAME_BUILD_DIR).
#   build.sh          everything, tests and benchmarks included (scripts/test.sh)
#   build.sh --demo   only memframe, its agent, the viewer and the demo game
#                     (scripts/demo.sh); the test build later reuses its objects
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MEMFRAME_BUILD_DIR:-$root/build}"
case "${1:-}" in
  --demo) with_tests=OFF ;;
  "") with_tests=ON ;;
  *) echo "usage: build.sh [--demo]" >&2; exit 2 ;;
esac
# The options are given every time: the build directory may be shared by
# both scripts, and CMake would otherwise keep the last one's.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMEMFRAME_BUILD_TESTS=$with_tests -DMEMFRAME_BUILD_BENCH=$with_tests >/dev/null
cmake --build "$build" -j"$(nproc)"
