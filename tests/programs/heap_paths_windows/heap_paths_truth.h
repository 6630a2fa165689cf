/* What memframe_heap_paths.exe, its engine DLL and its plugin allocate:
 * shared by the programs and by tests/windows/heap_paths_test.cpp, which
 * checks that a capture shows exactly this. Each function named here is a
 * frame of its blocks' stacks; each makes blocks of a size of its own. */
#pragma once

/* main.c, linked against the API-set import libraries (libwindowsapp), so
 * every import names an api-ms-win-core-* DLL and resolves to kernelbase or
 * ntdll, never to kernel32. */
enum {
  kApiSetHeapBlocks = 23, kApiSetHeapBytes = 1111,  /* ApiSetHeapBlocks: HeapAlloc, all freed */
  kApiSetReallocBytes = 2222,                        /* ApiSetRealloc: HeapAlloc, HeapReAlloc, HeapFree */
  kApiSetRegions = 5, kApiSetRegionBytes = 3 << 16,  /* ApiSetRegions: VirtualAlloc, VirtualFree but the last */
  kFetchedBlocks = 9, kFetchedBytes = 3333,          /* FetchedHeapCalls: kernelbase's, by GetProcAddress */
  kPluginBlocks = 6, kPluginBytes = 4444,            /* PluginWork (plugin.c, LoadLibraryW): kept live */
  /* PrivateHeapBlocks: a HeapCreate heap destroyed whole; none leaks. */
  kPrivateBlocks = 40, kPrivateBytes = 555, kPrivateLargeBytes = 1 << 20,
  /* LeakedHeapBlocks: a HeapCreate heap never destroyed: the first
   * kLeakedHeapFreed blocks are freed with HeapFree, the rest leak. */
  kLeakedHeapBlocks = 17, kLeakedHeapBytes = 777, kLeakedHeapFreed = 2,
  kCallbackBlocks = 3, kCallbackBytes = 8888,       /* CallbackWindowProc: WM_CREATE, freed at WM_DESTROY */
  /* ntdll_paths.c, ntdll's functions called by name: */
  kNtdllHeapBlocks = 11, kNtdllHeapBytes = 1212,    /* NtdllHeapBlocks: RtlAllocateHeap, one RtlReAllocateHeap, all freed */
  kNtdllPrivateBlocks = 13, kNtdllPrivateBytes = 1313, /* NtdllPrivateHeap: RtlCreateHeap's, RtlDestroyHeap: none leaks */
  kNtdllRegions = 3, kNtdllRegionBytes = 5 << 16,   /* NtdllRegions: NtAllocateVirtualMemory, NtFreeVirtualMemory but the last */
  /* engine.cpp, imported by the program: before main. */
  kEngineCtorBlocks = 7, kEngineCtorBytes = 6666,    /* EngineConstructorBlocks: malloc, kept live */
  kEngineDllMainBlocks = 4, kEngineDllMainBytes = 7777, /* EngineDllMainBlocks: HeapAlloc, kept live */
  /* Slow DllMains: engine.cpp's and plugin.c's sleep kSlowDllMainMs (the
   * loader lock held) after their allocations, at DLL_PROCESS_ATTACH and at
   * the DLL_THREAD_ATTACH of each thread the program starts and watches
   * (EngineWatchThread); no other thread's. */
  kSlowDllMainMs = 200,
  kEngineThreadBlocks = 3, kEngineThreadBytes = 5151, /* EngineThreadAttachBlocks: each watched thread's, freed */
  kPluginDllMainBlocks = 2, kPluginDllMainBytes = 6161, /* PluginDllMainBlocks: at LoadLibraryW, kept live */
  kPluginThreadBlocks = 5, kPluginThreadBytes = 7171, /* PluginThreadAttachBlocks: each watched thread's, freed */
  /* main.c: watched threads started before the plugin is loaded (only the
   * engine's DllMain sees them) and after (both DllMains do). */
  kThreadsBeforePlugin = 2, kThreadsAfterPlugin = 2,
  /* --linger STOPFILE: after the rest, one watched thread after another
   * (each sitting kSlowDllMainMs in the DllMains) until STOPFILE exists,
   * at most kLingerMaxThreads; then exits with kLingerExitStatus. */
  kLingerMaxThreads = 600, kLingerExitStatus = 23,
};
