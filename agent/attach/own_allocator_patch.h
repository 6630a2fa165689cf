// A program whose executable defines malloc (a statically linked jemalloc,
// tcmalloc or mimalloc, or a heap of its own) binds it before the preloaded
// agent: the program's calls and every library's go there and never reach
// the agent's hooks. So the agent patches the entry of each allocator
// function the executable defines (entry_trampolines.h) with a jump to a
// hook whose real function is the moved original.
//
// At launch this runs in the agent's constructor, before main and before
// the agent starts its writer: the only thread is the one patching, so no
// thread can be inside the bytes being rewritten, and the jumps are written
// at once. At an attach the program's threads may be anywhere in malloc:
// the agent only prepares the entries and publishes them, and memframe
// writes each jump (and the original bytes back before the detach) with
// every thread stopped and none inside the bytes rewritten, as for the
// presents (injector/attach/code_patcher.h).
#pragma once

#include <atomic>
#include <cstddef>

namespace memframe::agent {

struct OwnAllocatorHook {
  const char* symbol;        // "malloc", "_Znwm", "mallocx", ...
  void* hook;
  std::atomic<void*>* real;  // the moved original, set before the entry changes
};

// The malloc family and operator new (17), then an allocator's own API.
constexpr size_t kMaxOwnAllocatorHooks = 64;

// What the executable brings and what became of it, for Hello.
struct OwnAllocatorReport {
  bool defines_allocator = false;  // it defines at least one of the hooked functions
  const char* name = "";           // "jemalloc", "tcmalloc", "mimalloc", or "" (a heap of its own)
  const char* hooked[kMaxOwnAllocatorHooks] = {};
  size_t hooked_count = 0;
  char refused[kMaxOwnAllocatorHooks][160] = {};  // "SYMBOL: why"
  size_t refused_count = 0;
};

enum class OwnAllocatorPatching {
  kAtLaunch,  // written at once; each refusal is warned about on stderr
  kAtAttach,  // prepared and published for memframe; refusals go to memframe (EntryTrampolineRefusals)
};

// Patches the entry of each of `hooks` that the executable defines.
// Allocation-free; call it with the recursion guard held.
void HookOwnAllocator(const OwnAllocatorHook* hooks, size_t count, OwnAllocatorPatching when);

// The last HookOwnAllocator's findings.
const OwnAllocatorReport& OwnAllocator();

}  // namespace memframe::agent
