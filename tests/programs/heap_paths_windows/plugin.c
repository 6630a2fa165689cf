// heap_paths_plugin.dll: loaded by memframe_heap_paths.exe through
// kernelbase's LoadLibraryW; its blocks are recorded only if the agent
// patched its imports when it was loaded.
#include <windows.h>

#include "heap_paths_truth.h"

void* g_plugin_blocks[kPluginBlocks];  // live to the end

__declspec(dllexport) __attribute__((noinline)) int PluginWork(void) {
  for (int i = 0; i < kPluginBlocks; ++i) g_plugin_blocks[i] = HeapAlloc(GetProcessHeap(), 0, kPluginBytes);
  return kPluginBlocks;
}
