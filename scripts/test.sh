#!/usr/bin/env bash
# Install, build, run every test through ctest. .ci/run runs exactly this.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MEMFRAME_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j2 --timeout 600
