// heap_paths_plugin.dll: loaded by memframe_heap_paths.exe through
// kernelbase's LoadLibraryW; its blocks are recorded only if the agent
// patched its imports when it was loaded. Its DllMain is as slow as the
// engine's: a DLL loaded late holds the loader lock as long.
#include <windows.h>

#include "heap_paths_truth.h"

__declspec(dllimport) int EngineWatchesThread(DWORD thread_id);

void* g_plugin_blocks[kPluginBlocks];  // live to the end
void* g_plugin_dllmain_blocks[kPluginDllMainBlocks];

__attribute__((noinline)) void PluginDllMainBlocks(void) {
  for (int i = 0; i < kPluginDllMainBlocks; ++i)
    g_plugin_dllmain_blocks[i] = HeapAlloc(GetProcessHeap(), 0, kPluginDllMainBytes);
}

// A watched thread's blocks, made and freed in the DllMain.
__attribute__((noinline)) void PluginThreadAttachBlocks(void) {
  void* blocks[kPluginThreadBlocks];
  for (int i = 0; i < kPluginThreadBlocks; ++i) blocks[i] = HeapAlloc(GetProcessHeap(), 0, kPluginThreadBytes);
  for (int i = 0; i < kPluginThreadBlocks; ++i) HeapFree(GetProcessHeap(), 0, blocks[i]);
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved) {
  (void)instance;
  (void)reserved;
  if (reason == DLL_PROCESS_ATTACH) {
    PluginDllMainBlocks();
    Sleep(kSlowDllMainMs);
  } else if (reason == DLL_THREAD_ATTACH && EngineWatchesThread(GetCurrentThreadId())) {
    PluginThreadAttachBlocks();
    Sleep(kSlowDllMainMs);
  }
  return TRUE;
}

__declspec(dllexport) __attribute__((noinline)) int PluginWork(void) {
  for (int i = 0; i < kPluginBlocks; ++i) g_plugin_blocks[i] = HeapAlloc(GetProcessHeap(), 0, kPluginBytes);
  return kPluginBlocks;
}
