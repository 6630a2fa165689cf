// dlsym and dlvsym, so that a present function fetched by name (SDL takes
// glXGetProcAddressARB, eglSwapBuffers, ... with dlsym) comes back as the
// agent's hook, and so does an allocator API function (mi_malloc, mallocx,
// ...) fetched from a library's handle, when it is the definition the
// hook calls (allocator_api_hooks.h).
//
// Every other lookup must behave exactly as before, including RTLD_NEXT
// and RTLD_DEFAULT, which glibc resolves relative to the *caller's* object
// (RTLD_DEFAULT searches the caller's scope and makes the library found a
// dependency of the caller): the common path is a plain tail call, so
// glibc sees the original return address. A lookup on a handle searches
// that handle's scope, whoever calls (only an LD_AUDIT library's
// la_symbind sees the caller), so the allocator APIs' lookups on a handle
// may be answered after the real one returns. (The agent_host tests check
// both.)
#include <dlfcn.h>

#include <cstring>

#include "hooks/allocator_api_hooks.h"
#include "hooks/present_hooks.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

namespace {

enum class Kind { kOther, kPresent, kAllocatorApi };

// Cheap pre-filter before the table walks: every intercepted name starts
// with one of these.
inline __attribute__((always_inline)) Kind MaybeIntercepted(void* handle, const char* name) {
  if (!name) return Kind::kOther;
  bool present = false, api = false;
  switch (name[0]) {
    case 'g': present = name[1] == 'l'; break;  // glfw*, glX*
    case 'e': present = strncmp(name, "egl", 3) == 0; break;
    case 'S': present = strncmp(name, "SDL_", 4) == 0; break;
    case 'v': present = strncmp(name, "vk", 2) == 0; break;
    // mi_*, mallocx, rallocx, xallocx, sdallocx, dallocx; the second letter
    // first, so that malloc, memcpy, realloc, sqrt, ... cost no strcmp.
    case 'm':
      api = name[1] == 'i' ? name[2] == '_' : name[1] == 'a' && strcmp(name + 2, "llocx") == 0;
      break;
    case 'r': case 'x': case 'd': api = name[1] == 'a' && strcmp(name + 2, "llocx") == 0; break;
    case 's': api = name[1] == 'd' && strcmp(name + 2, "allocx") == 0; break;
    default: break;
  }
  if (present) return Kind::kPresent;
  return api && handle != RTLD_DEFAULT && handle != RTLD_NEXT ? Kind::kAllocatorApi : Kind::kOther;
}

// No recursion guard around the real lookup: what it allocates and frees is
// glibc's dlerror state (a failed dlopen's message and result object, freed
// by the next dl* call that succeeds), which the game's other dl* calls
// allocate and free through the hooks too. Hidden here, a free of a
// recorded block would be lost (the block then seems reused while live).
__attribute__((noinline)) void* InterceptedDlsym(Kind kind, void* handle, const char* name) {
  void* found = RealDlsym()(handle, name);
  return kind == Kind::kPresent ? InterceptSymbol(name, found) : InterceptAllocatorApi(name, found);
}

__attribute__((noinline)) void* InterceptedDlvsym(Kind kind, void* handle, const char* name, const char* version) {
  void* found = RealDlvsym()(handle, name, version);
  return kind == Kind::kPresent ? InterceptSymbol(name, found) : InterceptAllocatorApi(name, found);
}

}  // namespace

MEMFRAME_EXPORT void* dlsym(void* handle, const char* name) noexcept {
  Kind kind = MaybeIntercepted(handle, name);
  if (__builtin_expect(kind != Kind::kOther, 0)) return InterceptedDlsym(kind, handle, name);
  return RealDlsym()(handle, name);  // tail call: glibc sees our caller
}

MEMFRAME_EXPORT void* dlvsym(void* handle, const char* name, const char* version) noexcept {
  Kind kind = MaybeIntercepted(handle, name);
  if (__builtin_expect(kind != Kind::kOther, 0)) return InterceptedDlvsym(kind, handle, name, version);
  DlvsymFn real = RealDlvsym();
  return real ? real(handle, name, version) : nullptr;
}
