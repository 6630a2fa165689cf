// A plugin that links Debian's libmimalloc and calls its API, for a
// program to dlopen (late_mimalloc.cc): libmimalloc is loaded with it, after
// the agent's start. Per round (host_truth.h): mi_malloc 100, mi_calloc
// 4 x 25, mi_zalloc 40, mi_realloc to 300, mi_new 60, every block freed.
//
// Built with MEMFRAME_SLOW_RELOCATION (and -z now), dlopen takes 300 ms to
// relocate it: the loader calls an IFUNC resolver here after filling the
// other slots and before it makes them read-only. The agent sees the
// module listed meanwhile, and must leave it alone until it is relocated
// (a slot page it made read-only would fault the loader's next write).
#include <dlfcn.h>
#include <mimalloc.h>

#include <cstring>

#include "allocator_api_rounds.h"

using namespace memframe::targets;

#ifdef MEMFRAME_SLOW_RELOCATION
extern "C" {
static int SevenNow() { return 7; }
// Sleeps 300 ms by a system call of its own: while the loader runs this,
// the library's imports of libc are not all bound yet.
static int (*ResolveSeven())() {
  struct {
    long seconds, nanoseconds;
  } pause{0, 300'000'000};
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(35L /* nanosleep */), "D"(&pause), "S"(0L) : "rcx", "r11", "memory");
  return SevenNow;
}
}
__attribute__((ifunc("ResolveSeven"), visibility("hidden"))) int Seven();
#endif

extern "C" {

// Whether this module's import of mi_malloc leads somewhere other than
// libmimalloc (the agent's hook): its slot as the loader or the agent left
// it. The agent patches the call slots before this one (the GLOB_DAT slots
// come last in a module), so true means every import here is hooked.
__attribute__((visibility("default"))) bool PluginApiHooked() {
  void* (*volatile slot)(size_t) = &mi_malloc;
  Dl_info where{};
  return dladdr(reinterpret_cast<void*>(slot), &where) && where.dli_fname &&
         std::strstr(where.dli_fname, "libmimalloc") == nullptr;
}

__attribute__((visibility("default"), noinline)) void UsePluginApi() {
#ifdef MEMFRAME_SLOW_RELOCATION
  if (Seven() != 7) abort();
#endif
  void* a = mi_malloc(100);
  Touch(a, 100);
  void* b = mi_calloc(4, 25);
  Touch(b, 100);
  void* c = mi_zalloc(40);
  Touch(c, 40);
  a = mi_realloc(a, 300);
  Touch(a, 300);
  void* e = mi_new(60);
  Touch(e, 60);
  mi_free(a);
  mi_free(b);
  mi_free_size(c, 40);
  mi_free(e);
}

}  // extern "C"
