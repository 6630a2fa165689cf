// heap_paths_engine.dll: an engine-like DLL that allocates while the loader
// initialises it, before the program's main: in a global constructor and in
// its DllMain. Its blocks stay live (the engine's start-up state).
#include <windows.h>

#include <cstdlib>

#include "heap_paths_truth.h"

namespace {
void* g_ctor_blocks[kEngineCtorBlocks];
void* g_dllmain_blocks[kEngineDllMainBlocks];
int g_live = 0;
}  // namespace

extern "C" __attribute__((noinline)) void EngineConstructorBlocks() {
  for (void*& block : g_ctor_blocks) g_live += (block = malloc(kEngineCtorBytes)) != nullptr;
}

extern "C" __attribute__((noinline)) void EngineDllMainBlocks() {
  for (void*& block : g_dllmain_blocks) g_live += (block = HeapAlloc(GetProcessHeap(), 0, kEngineDllMainBytes)) != nullptr;
}

namespace {
struct EngineGlobals {
  EngineGlobals() { EngineConstructorBlocks(); }
} g_globals;
}  // namespace

extern "C" __declspec(dllexport) int EngineBlocksLive() { return g_live; }

extern "C" BOOL WINAPI DllMain(HINSTANCE, DWORD reason, LPVOID) {
  if (reason == DLL_PROCESS_ATTACH) EngineDllMainBlocks();
  return TRUE;
}
