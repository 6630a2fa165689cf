// dlsym and dlvsym, so that a present function fetched by name (SDL takes
// glXGetProcAddressARB, eglSwapBuffers, ... with dlsym) comes back as the
// agent's hook.
//
// Every other lookup must behave exactly as before, including RTLD_NEXT,
// which glibc resolves relative to the *caller's* object: the common path
// is a plain tail call, so glibc sees the original return address. (The
// agent_host tests check both.)
#include <dlfcn.h>

#include <cstring>

#include "hooks/present_hooks.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

namespace {

// Cheap pre-filter before the table walk: every intercepted name starts
// with one of these.
bool MaybeIntercepted(const char* name) {
  if (!name) return false;
  switch (name[0]) {
    case 'g': return name[1] == 'l';                 // glfw*, glX*
    case 'e': return strncmp(name, "egl", 3) == 0;
    case 'S': return strncmp(name, "SDL_", 4) == 0;
    case 'v': return strncmp(name, "vk", 2) == 0;
    default: return false;
  }
}

// No recursion guard around the real lookup: what it allocates and frees is
// glibc's dlerror state (a failed dlopen's message and result object, freed
// by the next dl* call that succeeds), which the game's other dl* calls
// allocate and free through the hooks too. Hidden here, a free of a
// recorded block would be lost (the block then seems reused while live).
__attribute__((noinline)) void* InterceptedDlsym(void* handle, const char* name) {
  return InterceptSymbol(name, RealDlsym()(handle, name));
}

__attribute__((noinline)) void* InterceptedDlvsym(void* handle, const char* name, const char* version) {
  return InterceptSymbol(name, RealDlvsym()(handle, name, version));
}

}  // namespace

MEMFRAME_EXPORT void* dlsym(void* handle, const char* name) noexcept {
  if (__builtin_expect(MaybeIntercepted(name), 0)) return InterceptedDlsym(handle, name);
  return RealDlsym()(handle, name);  // tail call: glibc sees our caller
}

MEMFRAME_EXPORT void* dlvsym(void* handle, const char* name, const char* version) noexcept {
  if (__builtin_expect(MaybeIntercepted(name), 0)) return InterceptedDlvsym(handle, name, version);
  DlvsymFn real = RealDlvsym();
  return real ? real(handle, name, version) : nullptr;
}
