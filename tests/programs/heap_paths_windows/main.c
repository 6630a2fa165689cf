// memframe_heap_paths.exe: reaches the Win32 heap and virtual memory the
// ways Windows' own programs do, through the API sets (it is linked against
// libwindowsapp, whose imports name api-ms-win-core-* DLLs), by pointers
// fetched from kernelbase, through a DLL loaded with kernelbase's
// LoadLibraryW, and with a private heap destroyed whole; the engine DLL it
// imports allocates before main; its window procedure allocates when the
// system calls it back; it calls ntdll's heap and virtual memory functions
// by name (ntdll_paths.c). heap_paths_truth.h says how much.
#include <windows.h>

#include <stdio.h>

#include "heap_paths_truth.h"

#define NOINLINE __attribute__((noinline))

__declspec(dllimport) int EngineBlocksLive(void);

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

NOINLINE void PrivateHeapBlocks(void) {
  HANDLE heap = HeapCreate(0, 0, 0);
  for (int i = 0; i < kPrivateBlocks; ++i) HeapAlloc(heap, 0, kPrivateBytes);
  HeapAlloc(heap, 0, kPrivateLargeBytes);
  HeapDestroy(heap);
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

int main(void) {
  ApiSetHeapBlocks();
  ApiSetRealloc();
  ApiSetRegions();
  int fetched = FetchedHeapCalls();
  int plugin = LoadPlugin();
  PrivateHeapBlocks();
  NtdllHeapBlocks();
  NtdllPrivateHeap();
  NtdllRegions();
  int callback = CallbackBlocks();
  int engine = EngineBlocksLive();
  printf("memframe_heap_paths: fetched %d, plugin %d, window %d, engine blocks %d\n", fetched, plugin, callback,
         engine);
  return fetched && plugin && callback && engine == kEngineCtorBlocks + kEngineDllMainBlocks ? 0 : 1;
}
