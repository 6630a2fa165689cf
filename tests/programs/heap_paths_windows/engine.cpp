// heap_paths_engine.dll: an engine-like DLL that allocates while the loader
// initialises it, before the program's main: in a global constructor and in
// its DllMain. Its blocks stay live (the engine's start-up state). Its
// DllMain is slow, as some engines' are: it sleeps with the loader lock
// held, at the start and when a thread the program watches starts.
#include <windows.h>

#include <atomic>
#include <cstdlib>

#include "heap_paths_truth.h"

namespace {
void* g_ctor_blocks[kEngineCtorBlocks];
void* g_dllmain_blocks[kEngineDllMainBlocks];
int g_live = 0;

// The threads the program watches: it adds each before the thread runs.
constexpr int kMaxWatched = kLingerMaxThreads + kThreadsBeforePlugin + kThreadsAfterPlugin;
std::atomic<DWORD> g_watched[kMaxWatched];
std::atomic<int> g_watched_count{0};
}  // namespace

extern "C" __declspec(dllexport) void EngineWatchThread(DWORD thread_id) {
  const int at = g_watched_count.load();
  if (at < kMaxWatched) {
    g_watched[at].store(thread_id);
    g_watched_count.store(at + 1);
  }
}

extern "C" __declspec(dllexport) int EngineWatchesThread(DWORD thread_id) {
  const int n = g_watched_count.load();
  for (int i = 0; i < n; ++i)
    if (g_watched[i].load() == thread_id) return 1;
  return 0;
}

// A watched thread's blocks, made and freed in the DllMain.
extern "C" __attribute__((noinline)) void EngineThreadAttachBlocks() {
  void* blocks[kEngineThreadBlocks];
  for (void*& block : blocks) block = HeapAlloc(GetProcessHeap(), 0, kEngineThreadBytes);
  for (void* block : blocks) HeapFree(GetProcessHeap(), 0, block);
}

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
  if (reason == DLL_PROCESS_ATTACH) {
    EngineDllMainBlocks();
    Sleep(kSlowDllMainMs);
  } else if (reason == DLL_THREAD_ATTACH && EngineWatchesThread(GetCurrentThreadId())) {
    EngineThreadAttachBlocks();
    Sleep(kSlowDllMainMs);
  }
  return TRUE;
}
