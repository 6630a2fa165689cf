// The functions the hooks stand in front of, found with dlsym(RTLD_NEXT) so
// that a game that links jemalloc or its own allocator keeps it.
#pragma once

#include <atomic>
#include <cstddef>
#include <new>

#include <sys/types.h>

namespace memframe::agent {

struct RealFunctions {
  void* (*malloc)(size_t);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*reallocarray)(void*, size_t, size_t);
  void (*free)(void*);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*memalign)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);

  // operator new / delete, by mangled name, so that the real ones keep the
  // standard's behaviour (new_handler loop, bad_alloc, nothrow null).
  void* (*op_new)(size_t);
  void* (*op_new_array)(size_t);
  void* (*op_new_nothrow)(size_t, const std::nothrow_t&);
  void* (*op_new_array_nothrow)(size_t, const std::nothrow_t&);
  void* (*op_new_aligned)(size_t, std::align_val_t);
  void* (*op_new_array_aligned)(size_t, std::align_val_t);
  void* (*op_new_aligned_nothrow)(size_t, std::align_val_t, const std::nothrow_t&);
  void* (*op_new_array_aligned_nothrow)(size_t, std::align_val_t, const std::nothrow_t&);
  void (*op_delete)(void*);
  void (*op_delete_array)(void*);
  void (*op_delete_sized)(void*, size_t);
  void (*op_delete_array_sized)(void*, size_t);
  void (*op_delete_aligned)(void*, std::align_val_t);
  void (*op_delete_array_aligned)(void*, std::align_val_t);
  void (*op_delete_sized_aligned)(void*, size_t, std::align_val_t);
  void (*op_delete_array_sized_aligned)(void*, size_t, std::align_val_t);

  // Resolved here with the rest, never from inside a hook: dlsym takes the
  // loader's lock and may allocate, and the mmap hook runs inside other
  // allocators' locks (mmap_hooks.cc).
  void* (*mmap)(void*, size_t, int, int, int, off_t);
  int (*munmap)(void*, size_t);
  void* (*mremap)(void*, size_t, size_t, int, ...);
};

extern RealFunctions g_real;
// 0 = not started, 1 = in progress, 2 = done. Read by every hook: inline.
extern std::atomic<int> g_real_functions_state;

// Resolves every entry of g_real once; safe to call from any hook. While it
// runs, dlsym's own allocations are served by the bootstrap pool.
void ResolveRealFunctions();
// The same for an agent loaded into a running process by dlopen, where
// RTLD_NEXT sees only the agent's own dependencies: each function is looked
// up in the program's global scope first (a jemalloc the game linked), then
// after the agent.
void ResolveRealFunctionsGlobalFirst();
inline bool RealFunctionsResolved() { return g_real_functions_state.load(std::memory_order_acquire) == 2; }
// True on the thread that is inside ResolveRealFunctions().
bool ResolvingRealFunctions();

// Resolves a symbol of the next object after the agent, or null. Uses the
// real dlsym: the agent's own lookups must not be intercepted.
void* NextSymbol(const char* name);

// libc's own dlsym / dlvsym (the agent interposes both).
using DlsymFn = void* (*)(void*, const char*) noexcept;
using DlvsymFn = void* (*)(void*, const char*, const char*) noexcept;
DlsymFn RealDlsym() noexcept;
DlvsymFn RealDlvsym() noexcept;

}  // namespace memframe::agent
