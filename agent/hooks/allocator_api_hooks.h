// An allocator's own API, which a game may call past malloc: mimalloc's
// mi_* (mi_malloc, mi_free, mi_new, ...) and jemalloc's *allocx (mallocx,
// rallocx, xallocx, sdallocx, dallocx). The agent defines none of these
// names: a program that checks for the allocator (a weak reference,
// dlsym(RTLD_DEFAULT, "mallocx")) must find it exactly as without memframe.
// Hooked two ways instead:
// - a shared library defines them (libmimalloc.so, libjemalloc.so): the
//   import slots (import_slots.h) of the other modules are pointed at the
//   hooks: those loaded at the agent's start in its constructor, those
//   loaded later by the writer thread when it sees the loader's count of
//   loaded objects change; the allocator library's own slots are left, so
//   it calls its own functions (memframe attach patches them with the rest,
//   got_patcher.h, the library's own included). A dlsym of a hooked name on
//   a library's handle returns the hook too (dlsym_hooks.cc);
// - the executable defines them (a static link): their entries are patched
//   at launch like its own malloc (own_allocator_patch.h).
// Not recorded: the calls of a library loaded by dlopen made before the
// writer thread's next look at the loader (within 100 ms; the agent's
// dlopen must tail-call glibc's, which takes the caller's search path and
// namespace from its return address, so nothing runs after it): a block
// allocated then and freed later is an unknown free. Calls through a
// pointer from dlsym(RTLD_DEFAULT, name) or dlsym(RTLD_NEXT, name) (glibc
// resolves both from the caller's scope, so the agent cannot ask in its
// place), or through one that a second copy of the library handed out.
// Nor the calls of a library unloaded and loaded again: a known real
// function is never changed while hooks may run, and the new copy's
// slots, bound elsewhere, stay. The capture's note names the libraries
// found when the recording started (the Hello was sent then).
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
// attach thread, the writer), one at a time, outside any loader callback.
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

// dlsym's answer for `name` on a library's handle: the hook if `found` is
// the definition its hook calls (learnt now if the name's is not known
// yet), else `found`. Lock-free and allocation-free: runs in the game's
// dlsym.
void* InterceptAllocatorApi(const char* name, void* found);

// Points the import slots of the API names in every relocated module but
// the agent, the loader and the module that defines the name at the hooks,
// where the slot is bound to the known definition (or not bound yet). At
// the agent's start, after ResolveAllocatorApis, on one thread, and on the
// writer thread when modules were loaded; allocation-free. Returns the
// slots patched. A module still being loaded waits for a later call.
size_t PatchAllocatorApiImports();

// The writer's pass after the loader's count of objects changed, at launch:
// ResolveAllocatorApis, then PatchAllocatorApiImports. Returns true if a
// module was still being loaded (call again later).
bool HookAllocatorApisOfNewModules();

}  // namespace memframe::agent
