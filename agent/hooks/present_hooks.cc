// Frame boundaries, found by interposing the game's buffer swap / present.
// Each hook finds the real function (looked up lazily, or handed over by
// InterceptSymbol when the game fetched it by name), counts nesting, and
// ends a frame when the outermost present on its thread returns.
#include "hooks/present_hooks.h"

#include <dlfcn.h>

#include <cstring>
#include <type_traits>

#include "attach/entry_trampolines.h"
#include "capture/recorder.h"
#include "hooks/gl_hooks.h"
#include "hooks/real_functions.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

namespace {

// Runs the real present between EnterPresent and LeavePresent.
template <typename Result, typename... Args>
Result Present(std::atomic<void*>& cache, PresentMarker marker, Args... args) {
  auto* real = reinterpret_cast<Result (*)(Args...)>(CachedNextSymbol(cache, FixedMarkerName(marker)));
  EnterPresent();
  if constexpr (std::is_void_v<Result>) {
    if (real) real(args...);
    LeavePresent(marker);
  } else {
    Result result{};
    if (real) result = real(args...);
    LeavePresent(marker);
    return result;
  }
}

// Each hook's real function, g_<symbol>.
#define MEMFRAME_X(Enumerator, symbol, ...) std::atomic<void*> g_##symbol;
MEMFRAME_LINUX_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
#define MEMFRAME_X(symbol) std::atomic<void*> g_##symbol;
MEMFRAME_PRESENT_LOOKUPS(MEMFRAME_X)
#undef MEMFRAME_X

// A GetProcAddress-style lookup: ask the real one, then intercept.
template <typename... Context>
void* Lookup(std::atomic<void*>& cache, const char* self, const char* name, Context... context) {
  auto* real = reinterpret_cast<void* (*)(Context..., const char*)>(CachedNextSymbol(cache, self));
  return real ? InterceptSymbol(name, real(context..., name)) : nullptr;
}

}  // namespace

#define MEMFRAME_X(Enumerator, symbol, id, Result, Parameters, Arguments) \
  MEMFRAME_EXPORT Result symbol Parameters { return Present<Result>(g_##symbol, kMarker##Enumerator MEMFRAME_COMMA_ARGS Arguments); }
// Splices the hook's arguments after the marker (none for SDL_GL_SwapBuffers).
#define MEMFRAME_COMMA_ARGS(...) __VA_OPT__(, ) __VA_ARGS__
MEMFRAME_LINUX_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_COMMA_ARGS
#undef MEMFRAME_X

MEMFRAME_EXPORT void* glXGetProcAddress(const char* name) { return Lookup(g_glXGetProcAddress, "glXGetProcAddress", name); }
MEMFRAME_EXPORT void* glXGetProcAddressARB(const char* name) {
  return Lookup(g_glXGetProcAddressARB, "glXGetProcAddressARB", name);
}
MEMFRAME_EXPORT void* eglGetProcAddress(const char* name) { return Lookup(g_eglGetProcAddress, "eglGetProcAddress", name); }
MEMFRAME_EXPORT void* SDL_GL_GetProcAddress(const char* name) {
  return Lookup(g_SDL_GL_GetProcAddress, "SDL_GL_GetProcAddress", name);
}
MEMFRAME_EXPORT void* vkGetInstanceProcAddr(void* instance, const char* name) {
  return Lookup(g_vkGetInstanceProcAddr, "vkGetInstanceProcAddr", name, instance);
}
MEMFRAME_EXPORT void* vkGetDeviceProcAddr(void* device, const char* name) {
  return Lookup(g_vkGetDeviceProcAddr, "vkGetDeviceProcAddr", name, device);
}

namespace memframe::agent {

namespace {
const InterceptedFunction kIntercepted[] = {
#define MEMFRAME_X(Enumerator, symbol, ...) {#symbol, kMarker##Enumerator, reinterpret_cast<void*>(&::symbol), &g_##symbol},
    MEMFRAME_LINUX_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
#define MEMFRAME_X(symbol) {#symbol, 0, reinterpret_cast<void*>(&::symbol), &g_##symbol},
    MEMFRAME_PRESENT_LOOKUPS(MEMFRAME_X)
#undef MEMFRAME_X
};

}  // namespace

const InterceptedFunction* InterceptedFunctions(int* count) {
  *count = static_cast<int>(sizeof(kIntercepted) / sizeof(kIntercepted[0]));
  return kIntercepted;
}

namespace {
// Every table of intercepted functions: the presents and lookups, then the
// GPU hooks' (gl_hooks.h). `visit` returns false to stop.
template <typename Visit>
void ForEachIntercepted(Visit visit) {
  for (const InterceptedFunction& f : kIntercepted)
    if (!visit(f)) return;
  for (InterceptedTable table : kGpuHookTables) {
    int count = 0;
    const InterceptedFunction* functions = table(&count);
    for (int i = 0; i < count; ++i)
      if (!visit(functions[i])) return;
  }
}
}  // namespace

void* InterceptSymbol(const char* name, void* real) {
  if (!real || !name) return real;
  void* result = real;
  ForEachIntercepted([&](const InterceptedFunction& f) {
    if (strcmp(f.name, name) != 0) return true;
    if (real == f.hook) return false;  // looked up through the agent itself
    // A patched entry's real function is its moved prologue: the entry
    // found again would lead back to the hook.
    if (!IsEntryTrampolineReal(f.real)) f.real->store(real, std::memory_order_release);
    result = f.hook;
    return false;
  });
  return result;
}

void ResolveInterceptedFunctions(InterceptLookup scope) {
  void* handle = scope == InterceptLookup::kGlobal ? RTLD_DEFAULT : RTLD_NEXT;
  bool missed = false;
  ForEachIntercepted([&](const InterceptedFunction& f) {
    if (f.real->load(std::memory_order_acquire)) return true;
    void* real = RealDlsym()(handle, f.name);
    missed |= !real;
    if (!real || real == f.hook) return true;
    // A hook's own lookup or an interception may have filled it meanwhile.
    void* unknown = nullptr;
    f.real->compare_exchange_strong(unknown, real, std::memory_order_acq_rel);
    return true;
  });
  // Most games lack most of these; at the start this is the game's main
  // thread, whose dlerror() must say "no error" as it would natively. The
  // first call hands out the message and the second frees it (glibc): left
  // to the game's next dl* call, those frees would be of blocks it never
  // allocated.
  if (missed)
    while (dlerror()) {
    }
}

}  // namespace memframe::agent
