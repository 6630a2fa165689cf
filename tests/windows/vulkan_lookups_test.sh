#!/usr/bin/env bash
# Every vkQueuePresentKHR a Windows game fetches by name is a frame: one
# from the imported vkGetDeviceProcAddr (a device's own present, which no
# import slot holds) and one fetched as volk does, through GetProcAddress
# and vkGetInstanceProcAddr. memframe_vulkan_lookups.exe presents 10 + 7
# frames through a stand-in vulkan-1.dll, so no Vulkan runtime is needed.
#
#   vulkan_lookups_test.sh MEMFRAME_CLI WINDOWS_BIN_DIR
set -euo pipefail
cli="$1" bin="$2"
command -v wine >/dev/null || { echo "skipped: wine not found (scripts/setup.sh installs wine64)"; exit 77; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/memframe-win-vulkan.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export WINEPREFIX="${WINEPREFIX:-$scratch/wine}" WINEDEBUG=-all

"$cli" run --tcp -o "$scratch/vk.mfc" -- wine "$bin/memframe.exe" run -- \
  "$bin/vulkan_lookups/memframe_vulkan_lookups.exe" >"$scratch/run.out" 2>&1 ||
  { cat "$scratch/run.out"; exit 1; }
"$cli" report "$scratch/vk.mfc" --json >"$scratch/summary.json"
python3 - "$scratch/summary.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
got = (summary["frames"], summary["frame_source"])
want = (17, "vkQueuePresentKHR")
print("frames %d from %s (want %d from %s)" % (got + want))
sys.exit(0 if got == want else 1)
PY
