// memframe_heap_paths.exe: reaches the Win32 heap and virtual memory the
// ways Windows' own programs do, through the API sets (it is linked against
// libwindowsapp, whose imports name api-ms-win-core-* DLLs), by pointers
// fetched from kernelbase, through a DLL loaded with kernelbase's
// LoadLibraryW, with a private heap destroyed whole and one never destroyed
// (both named in the capture); the engine DLL it
// imports allocates before main; its window procedure allocates when the
// system calls it back; it calls ntdll's heap and virtual memory functions
// by name (ntdll_paths.c); the engine's and the plugin's DllMains are slow
// (they sleep holding the loader lock) and allocate when the threads it
// watches start; with --linger it keeps such threads coming for an attach
// and a detach. heap_paths_truth.h says how much.
#include <windows.h>

#include <stdio.h>
#include <string.h>

#include "heap_paths_truth.h"

#define NOINLINE __attribute__((noinline))

__declspec(dllimport) int EngineBlocksLive(void);
__declspec(dllimport) void EngineWatchThread(DWORD thread_id);

void NtdllHeapBlocks(void);
void NtdllPrivateHeap(void);
void NtdllRegions(void);

typedef LPVOID(WINAPI* HeapAllocFn)(HANDLE, DWORD, SIZE_T);
typedef BOOL(WINAPI* HeapFreeFn)(HANDLE, DWORD, LPVOID);
typedef int (*PluginWorkFn)(void);

NOINLINE void ApiSetHeapBlocks(void) {
  void* blocks[kApiSetHeapBlocks];
  for (int i = 0; i < kApiSetHeapBlocks; ++i) blocks[i] = HeapAlloc(GetProcessHeap(), 0, kApiSetHeapBytes);
  for (int i = 0; i < kApiSetHeapBlocks; ++i) HeapFree(GetProcessHeap(), 0, blocks[i]);
}

NOINLINE void ApiSetRealloc(void) {
  void* block = HeapAlloc(GetProcessHeap(), 0, kApiSetReallocBytes);
  block = HeapReAlloc(GetProcessHeap(), 0, block, 2 * kApiSetReallocBytes);
  HeapFree(GetProcessHeap(), 0, block);
}

NOINLINE void ApiSetRegions(void) {
  void* regions[kApiSetRegions];
  for (int i = 0; i < kApiSetRegions; ++i)
    regions[i] = VirtualAlloc(NULL, kApiSetRegionBytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  for (int i = 0; i + 1 < kApiSetRegions; ++i) VirtualFree(regions[i], 0, MEM_RELEASE);
}

NOINLINE int FetchedHeapCalls(void) {
  HMODULE kernelbase = GetModuleHandleW(L"kernelbase.dll");
  HeapAllocFn alloc = kernelbase ? (HeapAllocFn)(void*)GetProcAddress(kernelbase, "HeapAlloc") : NULL;
  HeapFreeFn release = kernelbase ? (HeapFreeFn)(void*)GetProcAddress(kernelbase, "HeapFree") : NULL;
  if (!alloc || !release) return 0;
  void* blocks[kFetchedBlocks];
  for (int i = 0; i < kFetchedBlocks; ++i) blocks[i] = alloc(GetProcessHeap(), 0, kFetchedBytes);
  for (int i = 0; i < kFetchedBlocks; ++i) release(GetProcessHeap(), 0, blocks[i]);
  return 1;
}

NOINLINE int LoadPlugin(void) {
  HMODULE plugin = LoadLibraryW(L"heap_paths_plugin.dll");
  PluginWorkFn work = plugin ? (PluginWorkFn)(void*)GetProcAddress(plugin, "PluginWork") : NULL;
  return work && work() == kPluginBlocks;
}

static DWORD WINAPI WatchedThread(LPVOID unused) {
  (void)unused;
  return 0;
}

// Starts `count` threads, one after another, each watched by the engine (so
// the DllMains allocate and sleep when it starts), and waits for each.
NOINLINE int RunWatchedThreads(int count) {
  for (int i = 0; i < count; ++i) {
    DWORD id = 0;
    HANDLE thread = CreateThread(NULL, 0, WatchedThread, NULL, CREATE_SUSPENDED, &id);
    if (!thread) return 0;
    EngineWatchThread(id);
    ResumeThread(thread);
    WaitForSingleObject(thread, INFINITE);
    CloseHandle(thread);
  }
  return 1;
}

// --linger STOPFILE: threads sitting in the slow DllMains, one after
// another, while memframe.exe attaches and detaches.
NOINLINE void Linger(const char* stop_file) {
  for (int i = 0; i < kLingerMaxThreads && GetFileAttributesA(stop_file) == INVALID_FILE_ATTRIBUTES; ++i)
    RunWatchedThreads(1);
}

NOINLINE void PrivateHeapBlocks(void) {
  HANDLE heap = HeapCreate(0, 0, 0);
  for (int i = 0; i < kPrivateBlocks; ++i) HeapAlloc(heap, 0, kPrivateBytes);
  HeapAlloc(heap, 0, kPrivateLargeBytes);
  HeapDestroy(heap);
}

NOINLINE void LeakedHeapBlocks(void) {
  HANDLE heap = HeapCreate(0, 0, 0);
  void* blocks[kLeakedHeapBlocks];
  for (int i = 0; i < kLeakedHeapBlocks; ++i) blocks[i] = HeapAlloc(heap, 0, kLeakedHeapBytes);
  for (int i = 0; i < kLeakedHeapFreed; ++i) HeapFree(heap, 0, blocks[i]);
}

// A window procedure called back by the system (WM_CREATE): its stack runs
// through Wine's KiUserCallbackDispatcher.
LRESULT CALLBACK CallbackWindowProc(HWND window, UINT message, WPARAM w, LPARAM l) {
  static void* kept[kCallbackBlocks];
  if (message == WM_CREATE)
    for (int i = 0; i < kCallbackBlocks; ++i) kept[i] = HeapAlloc(GetProcessHeap(), 0, kCallbackBytes);
  if (message == WM_DESTROY)
    for (int i = 0; i < kCallbackBlocks; ++i) HeapFree(GetProcessHeap(), 0, kept[i]);
  return DefWindowProcW(window, message, w, l);
}

NOINLINE int CallbackBlocks(void) {
  WNDCLASSW type = {0};
  type.lpfnWndProc = CallbackWindowProc;
  type.hInstance = GetModuleHandleW(NULL);
  type.lpszClassName = L"memframe_heap_paths";
  if (!RegisterClassW(&type)) return 0;
  HWND window = CreateWindowExW(0, type.lpszClassName, L"heap paths", WS_OVERLAPPEDWINDOW, 0, 0, 64, 64, NULL, NULL,
                                type.hInstance, NULL);
  return window && DestroyWindow(window);
}

int main(int argc, char** argv) {
  ApiSetHeapBlocks();
  ApiSetRealloc();
  ApiSetRegions();
  int fetched = FetchedHeapCalls();
  int threads = RunWatchedThreads(kThreadsBeforePlugin);
  int plugin = LoadPlugin();
  threads = threads && RunWatchedThreads(kThreadsAfterPlugin);
  PrivateHeapBlocks();
  LeakedHeapBlocks();
  NtdllHeapBlocks();
  NtdllPrivateHeap();
  NtdllRegions();
  int callback = CallbackBlocks();
  int engine = EngineBlocksLive();
  printf("memframe_heap_paths: fetched %d, plugin %d, threads %d, window %d, engine blocks %d\n", fetched, plugin,
         threads, callback, engine);
  fflush(stdout);
  const int ok = fetched && plugin && threads && callback && engine == kEngineCtorBlocks + kEngineDllMainBlocks;
  if (argc == 3 && strcmp(argv[1], "--linger") == 0) {
    Linger(argv[2]);
    return ok ? kLingerExitStatus : 1;
  }
  return ok ? 0 : 1;
}
