#!/usr/bin/env bash
# Builds the capture fuzzer in a clang ASan+UBSan build (MEMFRAME_SANITIZE,
# the one tests/sanitize/ makes) and runs it over the checked-in corpus for
# a while.
#
#   tests/fuzz/run_fuzz.sh [--build-dir DIR] [--seconds N] [--build-only | --no-build] [-- LIBFUZZER_ARGS...]
#   tests/fuzz/run_fuzz.sh --help
#
# Built at -O1 -g1, as sanitizer builds usually are (and quicker to build in
# CI). Defaults: DIR = build-fuzz beside the source tree, N = 60. New inputs the
# fuzzer finds go to DIR/corpus-new (the repository's corpus/ is only read);
# a crash leaves its input in DIR/crashes/ and this script exits 1. Replay
# one with: DIR/bin/capture_fuzzer DIR/crashes/crash-...
# With --no-build, DIR is an existing such build (ctest's fuzz.capture_short
# uses the main build's sanitize-asan).
# Exit status: 0 no crash, 1 crash, 2 bad usage or build failure, 77 clang or
# libFuzzer is not installed (ctest counts that as skipped).
set -euo pipefail

usage() {
  # The comment block above, without its leading '# '.
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="$source_dir/build-fuzz"
seconds=60
build=1
run=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --build-only) run=0; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run_fuzz.sh: unknown argument $1 (--help lists them)" >&2; usage >&2; exit 2 ;;
  esac
done

cxx="${FUZZ_CXX:-clang++}"
cc="${FUZZ_CC:-clang}"
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "run_fuzz.sh: skipped: $cxx not found (install clang; scripts/setup.sh does)" >&2
  exit 77
fi
probe_dir="$(mktemp -d)"
trap 'rm -rf "$probe_dir"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe_dir/p.cc"
if ! "$cxx" -fsanitize=fuzzer,address "$probe_dir/p.cc" -o "$probe_dir/p" >/dev/null 2>&1; then
  echo "run_fuzz.sh: skipped: $cxx cannot link -fsanitize=fuzzer (libclang-rt-dev missing?)" >&2
  exit 77
fi

if [ "$build" = 1 ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    CC="$cc" CXX="$cxx" cmake -S "$source_dir" -B "$build_dir" -DMEMFRAME_SANITIZE=ON \
      -DMEMFRAME_BUILD_VIEWER=OFF -DMEMFRAME_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" >/dev/null ||
      { echo "run_fuzz.sh: configuring $build_dir failed" >&2; exit 2; }
  fi
  cmake --build "$build_dir" -j2 --target capture_fuzzer >/dev/null ||
    { echo "run_fuzz.sh: building capture_fuzzer failed (rerun: cmake --build $build_dir --target capture_fuzzer)" >&2; exit 2; }
fi
[ "$run" = 1 ] || exit 0

fuzzer="$build_dir/bin/capture_fuzzer"
if [ ! -x "$fuzzer" ]; then
  if [ "$build" = 0 ] && grep -q '^MEMFRAME_HAS_LIBFUZZER:INTERNAL=$' "$build_dir/CMakeCache.txt" 2>/dev/null; then
    echo "run_fuzz.sh: skipped: $build_dir was built without libFuzzer (not with clang)" >&2
    exit 77
  fi
  echo "run_fuzz.sh: $fuzzer is not built" >&2
  exit 2
fi
mkdir -p "$build_dir/corpus-new" "$build_dir/crashes"
# -rss_limit_mb: tables follow the events and frames present (no frame
# number sizes anything) and a reader decompresses at most 256 times the
# input plus 1 MiB (FORMAT.md, "Checks"), so an input of 64 KiB never needs
# 1 GB, even under AddressSanitizer; -malloc_limit_mb: no single allocation
# of a quarter of that. -timeout: one input must never take seconds.
set +e
"$fuzzer" "$build_dir/corpus-new" "$source_dir/tests/fuzz/corpus" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len=65536 \
  -artifact_prefix="$build_dir/crashes/" -print_final_stats=1 "${extra[@]}" 2>"$build_dir/fuzz.log"
status=$?
set -e
tail -n 15 "$build_dir/fuzz.log" >&2
if [ $status -ne 0 ]; then
  echo "run_fuzz.sh: the fuzzer found a crash (status $status); input in $build_dir/crashes/, log in $build_dir/fuzz.log" >&2
  exit 1
fi
echo "run_fuzz.sh: no crash in $seconds s" >&2
