#!/usr/bin/env bash
# Installs the Debian packages memframe needs.
#   setup.sh          everything: build, every test, the benchmarks (scripts/test.sh)
#   setup.sh --demo   only what builds memframe, its agent, the viewer and the
#                     demo game, and runs the demo headless (scripts/demo.sh)
# Safe to run again: apt-get skips what is already installed.
set -euo pipefail
demo=(
  build-essential cmake pkg-config
  libunwind-dev            # agent: stack capture
  libzydis-dev             # agent: x86-64 decoder for the entry patches (allocation-free, lock-free)
  libimgui-dev libglfw3-dev libgl-dev   # viewer and demo game window
  libstb-dev               # viewer: stb_image_write for --screenshot PNGs (imgui.pc requires stb.pc too)
  fonts-dejavu-core        # viewer: a readable UI font (falls back to ImGui's built-in font without it)
  libprotobuf-dev protobuf-compiler     # wire and capture format
  libdw-dev libelf-dev     # analysis: DWARF symbols (libdw); the CLI's ELF reader (libelf)
  libzstd-dev              # capture compression
  zlib1g-dev               # analysis: `memframe export --format pprof` writes gzip, as pprof reads it
  nlohmann-json3-dev       # JSON output of reports, parsed by tests
  libcli11-dev             # the CLI's option parser (memframe run)
  xvfb xauth               # the demo runs under Xvfb when there is no display
  libgl1-mesa-dri libglx-mesa0          # software OpenGL for the demo game
)
tests=(
  python3 git              # tests: real programs under memframe run, tests/bench/compare.py
  libgtest-dev googletest libbenchmark-dev
  x11-utils imagemagick mesa-utils      # headless GUI runs and screenshots
  libsdl2-dev              # SDL2 target program (frames via dlsym'd swap)
  libsdl1.2-dev libegl-dev # SDL 1.2 (SDL_Flip) and EGL target programs
  libvulkan-dev mesa-vulkan-drivers libx11-dev   # Vulkan target program (lavapipe, software)
  vulkan-tools             # vkcube: a Vulkan program nobody here wrote, for the GPU report (lavapipe)
  heaptrack                # benchmark comparison
  gdb                      # benchmark only: heaptrack --pid injects through gdb (tests/bench/attach_pause.py); memframe needs no debugger
  libjemalloc-dev          # tests: host programs that link jemalloc statically (libjemalloc.a) or not, and call mallocx
  libmimalloc-dev          # tests: a host program that calls mimalloc's mi_* API (libmimalloc.so; Debian ships no .a)
  neverball chromium-bsu extremetuxracer   # tests: real games nobody here wrote (SDL2, SDL2, SFML/GLX)
  supertux enigma xdotool  # tests/integration/game_drive.py: games played through menus, loads and play, keyed by
                           # xdotool: a platformer with a world map (SDL2/GL) and a puzzle drawn in software (SDL 1.2)
  blobby                   # tests: a real game that presents through SDL2's renderer (SDL_RenderPresent)
  clang                    # libFuzzer target (tests/fuzz/run_fuzz.sh)
  libclang-rt-14-dev       # libFuzzer and ASan runtimes for clang 14 (-fsanitize=fuzzer links against them)
  g++-mingw-w64-x86-64 wine wine64   # Windows agent, injector and demo: cross-built, tested under Wine (tests/windows/)
)
packages=("${demo[@]}")
case "${1:-}" in
  --demo) ;;
  "") packages+=("${tests[@]}") ;;
  *) echo "usage: setup.sh [--demo]" >&2; exit 2 ;;
esac
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
