// An allocator's own API, which a game may call past malloc: mimalloc's
// mi_* (mi_malloc, mi_free, mi_new, ...) and jemalloc's *allocx (mallocx,
// rallocx, xallocx, sdallocx, dallocx). Hooked two ways, as malloc is:
// - a shared library defines them (libmimalloc.so, libjemalloc.so): the
//   agent exports hooks of the same names, which the preload puts before
//   the library (memframe attach patches the imports to them instead,
//   got_patcher.h); each calls the next definition in load order;
// - the executable defines them (a static link): their entries are patched
//   at launch like its own malloc (own_allocator_patch.h).
// Not hooked: mimalloc's heaps (mi_heap_*, whose mi_heap_destroy frees every
// block at once), mi_reallocf / mi_rezalloc / mi_recalloc / mi_expand /
// mi_strdup and the like (the ones that call mi_malloc or mi_realloc through
// the library's imports are recorded there), tcmalloc's tc_*.
//
// A hook records only a call from the program: one reached inside a real
// allocator call (malloc of a mimalloc that forwards to mi_malloc, mi_new
// calling mi_malloc) passes through, so one call is never recorded twice.
#pragma once

#include <cstddef>

namespace memframe::agent {

struct OwnAllocatorHook;

constexpr size_t kMaxAllocatorApiFunctions = 48;
constexpr size_t kMaxAllocatorApis = 2;  // mimalloc, jemalloc

// An allocator library whose API the agent hooks, for Hello.
struct AllocatorApiReport {
  const char* name = "";  // "mimalloc", "jemalloc"
  char library[256] = {};  // the module that defines it, as the loader names it
  const char* hooked[kMaxAllocatorApiFunctions] = {};
  size_t hooked_count = 0;
};

// Finds each API function's definition in the loaded modules (the first in
// load order, the agent's own hooks excepted), at the agent's start: a
// library loaded later is found by its first call. Allocation-free; call it
// with the recursion guard held, outside any loader callback.
void ResolveAllocatorApis();

// The libraries found by ResolveAllocatorApis (not the executable, whose
// definitions are its own allocator's: Hello.own_allocator).
const AllocatorApiReport* AllocatorApis(size_t* count);

// Writes the entry-patch hooks of the API functions into `out` (at most
// `room`), for the executable's own definitions; returns how many.
size_t AllocatorApiEntryHooks(OwnAllocatorHook* out, size_t room);

// The i-th API name the agent exports a hook for (memframe attach patches
// the imports of these), or null past the last.
const char* AllocatorApiExportedName(size_t i);

}  // namespace memframe::agent
