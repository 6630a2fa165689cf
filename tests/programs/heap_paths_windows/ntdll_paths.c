// memframe_heap_paths.exe's calls of ntdll by name, as some Windows code
// makes them (no kernel32 between): its heap functions on the process heap
// and on a heap of its own destroyed whole, and virtual memory reserved and
// released with Nt*VirtualMemory. heap_paths_truth.h says how much.
#include <windows.h>

#include "heap_paths_truth.h"

#define NOINLINE __attribute__((noinline))

// Declared here: MinGW's winternl.h has only some of them.
__declspec(dllimport) PVOID NTAPI RtlAllocateHeap(PVOID heap, ULONG flags, SIZE_T size);
__declspec(dllimport) PVOID NTAPI RtlReAllocateHeap(PVOID heap, ULONG flags, PVOID block, SIZE_T size);
__declspec(dllimport) BOOLEAN NTAPI RtlFreeHeap(PVOID heap, ULONG flags, PVOID block);
__declspec(dllimport) PVOID NTAPI RtlCreateHeap(ULONG flags, PVOID base, SIZE_T reserve, SIZE_T commit, PVOID lock,
                                                PVOID parameters);
__declspec(dllimport) PVOID NTAPI RtlDestroyHeap(PVOID heap);
__declspec(dllimport) LONG NTAPI NtAllocateVirtualMemory(HANDLE process, PVOID* base, ULONG_PTR zero_bits,
                                                         SIZE_T* size, ULONG type, ULONG protect);
__declspec(dllimport) LONG NTAPI NtFreeVirtualMemory(HANDLE process, PVOID* base, SIZE_T* size, ULONG type);

NOINLINE void NtdllHeapBlocks(void) {
  void* blocks[kNtdllHeapBlocks];
  for (int i = 0; i < kNtdllHeapBlocks; ++i) blocks[i] = RtlAllocateHeap(GetProcessHeap(), 0, kNtdllHeapBytes);
  blocks[0] = RtlReAllocateHeap(GetProcessHeap(), 0, blocks[0], 2 * kNtdllHeapBytes);
  for (int i = 0; i < kNtdllHeapBlocks; ++i) RtlFreeHeap(GetProcessHeap(), 0, blocks[i]);
}

NOINLINE void NtdllPrivateHeap(void) {
  PVOID heap = RtlCreateHeap(HEAP_GROWABLE, NULL, 0, 0, NULL, NULL);
  for (int i = 0; i < kNtdllPrivateBlocks; ++i) RtlAllocateHeap(heap, 0, kNtdllPrivateBytes);
  RtlDestroyHeap(heap);
}

NOINLINE void NtdllRegions(void) {
  PVOID regions[kNtdllRegions];
  for (int i = 0; i < kNtdllRegions; ++i) {
    SIZE_T size = kNtdllRegionBytes;
    regions[i] = NULL;
    NtAllocateVirtualMemory(GetCurrentProcess(), &regions[i], 0, &size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  }
  for (int i = 0; i + 1 < kNtdllRegions; ++i) {
    SIZE_T size = 0;
    NtFreeVirtualMemory(GetCurrentProcess(), &regions[i], &size, MEM_RELEASE);
  }
}
