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

std::atomic<void*> g_glfw_swap, g_glx_swap, g_egl_swap, g_sdl2_swap, g_sdl1_swap, g_sdl_render_present,
    g_sdl_update_window_surface, g_sdl_flip, g_sdl_update_rect, g_sdl_update_rects, g_vk_present;
std::atomic<void*> g_glx_proc, g_glx_proc_arb, g_egl_proc, g_sdl_proc, g_vk_instance_proc, g_vk_device_proc;

// A GetProcAddress-style lookup: ask the real one, then intercept.
template <typename... Context>
void* Lookup(std::atomic<void*>& cache, const char* self, const char* name, Context... context) {
  auto* real = reinterpret_cast<void* (*)(Context..., const char*)>(CachedNextSymbol(cache, self));
  return real ? InterceptSymbol(name, real(context..., name)) : nullptr;
}

}  // namespace

MEMFRAME_EXPORT void glfwSwapBuffers(void* window) { Present<void>(g_glfw_swap, kMarkerGlfwSwapBuffers, window); }
MEMFRAME_EXPORT void glXSwapBuffers(void* display, unsigned long drawable) {
  Present<void>(g_glx_swap, kMarkerGlxSwapBuffers, display, drawable);
}
MEMFRAME_EXPORT unsigned eglSwapBuffers(void* display, void* surface) {
  return Present<unsigned>(g_egl_swap, kMarkerEglSwapBuffers, display, surface);
}
MEMFRAME_EXPORT void SDL_GL_SwapWindow(void* window) { Present<void>(g_sdl2_swap, kMarkerSdlGlSwapWindow, window); }
MEMFRAME_EXPORT void SDL_GL_SwapBuffers() { Present<void>(g_sdl1_swap, kMarkerSdlGlSwapBuffers); }
MEMFRAME_EXPORT void SDL_RenderPresent(void* renderer) {
  Present<void>(g_sdl_render_present, kMarkerSdlRenderPresent, renderer);
}
MEMFRAME_EXPORT int SDL_UpdateWindowSurface(void* window) {
  return Present<int>(g_sdl_update_window_surface, kMarkerSdlUpdateWindowSurface, window);
}
MEMFRAME_EXPORT int SDL_Flip(void* screen) { return Present<int>(g_sdl_flip, kMarkerSdlFlip, screen); }
MEMFRAME_EXPORT void SDL_UpdateRect(void* screen, int32_t x, int32_t y, uint32_t w, uint32_t h) {
  Present<void>(g_sdl_update_rect, kMarkerSdlUpdateRect, screen, x, y, w, h);
}
MEMFRAME_EXPORT void SDL_UpdateRects(void* screen, int count, void* rects) {
  Present<void>(g_sdl_update_rects, kMarkerSdlUpdateRects, screen, count, rects);
}
MEMFRAME_EXPORT int32_t vkQueuePresentKHR(void* queue, const void* present_info) {
  return Present<int32_t>(g_vk_present, kMarkerVkQueuePresent, queue, present_info);
}

MEMFRAME_EXPORT void* glXGetProcAddress(const char* name) { return Lookup(g_glx_proc, "glXGetProcAddress", name); }
MEMFRAME_EXPORT void* glXGetProcAddressARB(const char* name) {
  return Lookup(g_glx_proc_arb, "glXGetProcAddressARB", name);
}
MEMFRAME_EXPORT void* eglGetProcAddress(const char* name) { return Lookup(g_egl_proc, "eglGetProcAddress", name); }
MEMFRAME_EXPORT void* SDL_GL_GetProcAddress(const char* name) {
  return Lookup(g_sdl_proc, "SDL_GL_GetProcAddress", name);
}
MEMFRAME_EXPORT void* vkGetInstanceProcAddr(void* instance, const char* name) {
  return Lookup(g_vk_instance_proc, "vkGetInstanceProcAddr", name, instance);
}
MEMFRAME_EXPORT void* vkGetDeviceProcAddr(void* device, const char* name) {
  return Lookup(g_vk_device_proc, "vkGetDeviceProcAddr", name, device);
}

namespace memframe::agent {

namespace {
#define MEMFRAME_PRESENT(name, marker, cache) {#name, marker, reinterpret_cast<void*>(&::name), &cache}
#define MEMFRAME_LOOKUP(name, cache) {#name, 0, reinterpret_cast<void*>(&::name), &cache}
const InterceptedFunction kIntercepted[] = {
    MEMFRAME_PRESENT(glfwSwapBuffers, kMarkerGlfwSwapBuffers, g_glfw_swap),
    MEMFRAME_PRESENT(glXSwapBuffers, kMarkerGlxSwapBuffers, g_glx_swap),
    MEMFRAME_PRESENT(eglSwapBuffers, kMarkerEglSwapBuffers, g_egl_swap),
    MEMFRAME_PRESENT(SDL_GL_SwapWindow, kMarkerSdlGlSwapWindow, g_sdl2_swap),
    MEMFRAME_PRESENT(SDL_GL_SwapBuffers, kMarkerSdlGlSwapBuffers, g_sdl1_swap),
    MEMFRAME_PRESENT(SDL_RenderPresent, kMarkerSdlRenderPresent, g_sdl_render_present),
    MEMFRAME_PRESENT(SDL_UpdateWindowSurface, kMarkerSdlUpdateWindowSurface, g_sdl_update_window_surface),
    MEMFRAME_PRESENT(SDL_Flip, kMarkerSdlFlip, g_sdl_flip),
    MEMFRAME_PRESENT(SDL_UpdateRect, kMarkerSdlUpdateRect, g_sdl_update_rect),
    MEMFRAME_PRESENT(SDL_UpdateRects, kMarkerSdlUpdateRects, g_sdl_update_rects),
    MEMFRAME_PRESENT(vkQueuePresentKHR, kMarkerVkQueuePresent, g_vk_present),
    MEMFRAME_LOOKUP(glXGetProcAddress, g_glx_proc),
    MEMFRAME_LOOKUP(glXGetProcAddressARB, g_glx_proc_arb),
    MEMFRAME_LOOKUP(eglGetProcAddress, g_egl_proc),
    MEMFRAME_LOOKUP(SDL_GL_GetProcAddress, g_sdl_proc),
    MEMFRAME_LOOKUP(vkGetInstanceProcAddr, g_vk_instance_proc),
    MEMFRAME_LOOKUP(vkGetDeviceProcAddr, g_vk_device_proc),
};
#undef MEMFRAME_PRESENT
#undef MEMFRAME_LOOKUP
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
