// An allocator's own API, which a game may call past malloc: mimalloc's
// mi_* (mi_malloc, mi_free, mi_new, ...) and jemalloc's *allocx (mallocx,
// rallocx, xallocx, sdallocx, dallocx). The agent defines none of these
// names: a program that checks for the allocator (a weak reference,
// dlsym(RTLD_DEFAULT, "mallocx")) must find it exactly as without memframe.
// Hooked two ways instead:
// - a shared library defines them (libmimalloc.so, libjemalloc.so): the
//   import slots (import_slots.h) of the other modules loaded at the
//   agent's start, the executable's and libraries', are pointed at the
//   hooks (memframe attach patches them with the rest, got_patcher.h, also
//   in the libraries loaded while attached); the allocator library's own
//   slots are left, so it calls its own functions;
// - the executable defines them (a static link): their entries are patched
//   at launch like its own malloc (own_allocator_patch.h).
// Not recorded: the calls of a library loaded later by dlopen (the agent's
// dlopen must tail-call glibc's, which takes the caller's search path and
// namespace from its return address, so nothing runs after it), and calls
// through a pointer from dlsym(handle, name) or dlsym(RTLD_DEFAULT, name).
// Nor the calls of a library unloaded and loaded again: a known real
// function is never changed while hooks may run, and the new copy's
// slots, bound elsewhere, stay.
// Not hooked: mimalloc's heaps (mi_heap_*, whose mi_heap_destroy frees every
// block at once), mi_reallocf / mi_rezalloc / mi_recalloc / mi_expand /
// mi_strdup and the like (at attach, the ones that call mi_malloc or
// mi_realloc through the library's imports are recorded there), tcmalloc's
// tc_*.
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

// Learns the definition of each API function whose real function is not
// known yet: the first in load order in the relocated modules, the agent's
// own hooks excepted. Never changes one already known (hooks may be
// running). Allocation-free; on an agent thread (the constructor, the
// attach thread), one at a time, outside any loader callback.
// Returns how many it learnt.
size_t ResolveAllocatorApis();
// The libraries found by ResolveAllocatorApis (not the executable, whose
// definitions are its own allocator's: Hello.own_allocator).
const AllocatorApiReport* AllocatorApis(size_t* count);

// Writes the entry-patch hooks of the API functions into `out` (at most
// `room`), for the executable's own definitions; returns how many.
size_t AllocatorApiEntryHooks(OwnAllocatorHook* out, size_t room);

// The i-th API name hooked through import slots, or null past the last.
const char* AllocatorApiImportName(size_t i);
// Its hook (internal to the agent), for an import slot.
void* AllocatorApiImportHook(size_t i);
// Its definition in a shared library, whose hook calls it (null: none
// known, or the executable's own). A slot bound to anything else stays.
void* AllocatorApiDefinition(size_t i);

// Points the import slots of the API names in every relocated module but
// the agent, the loader and the module that defines the name at the hooks,
// where the slot is bound to the known definition (or not bound yet). At
// the agent's start, after ResolveAllocatorApis, on one thread;
// allocation-free. Returns the slots patched.
size_t PatchAllocatorApiImports();

}  // namespace memframe::agent
