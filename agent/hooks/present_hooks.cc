// Frame boundaries, found by interposing the game's buffer swap. Each hook
// looks up the real function lazily (the game may load its GL or SDL library
// late), counts nesting, and ends a frame when the outermost present returns.
#include "hooks/present_hooks.h"

#include <atomic>

#include "capture/recorder.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

namespace {

// Resolves the next definition of `name`; dlsym may allocate, which must not
// be charged to the game.
template <typename Fn>
Fn Real(std::atomic<Fn>& cache, const char* name) {
  Fn fn = cache.load(std::memory_order_acquire);
  if (!fn) {
    RecursionGuard guard;
    fn = reinterpret_cast<Fn>(NextSymbol(name));
    cache.store(fn, std::memory_order_release);
  }
  return fn;
}

// Runs the real present between EnterPresent and LeavePresent.
template <typename Fn, typename... Args>
auto Present(std::atomic<Fn>& cache, PresentMarker marker, Args... args) {
  Fn real = Real(cache, PresentEntryPointName(marker));
  EnterPresent();
  if constexpr (std::is_void_v<decltype(real(args...))>) {
    if (real) real(args...);
    LeavePresent(marker);
  } else {
    decltype(real(args...)) result{};
    if (real) result = real(args...);
    LeavePresent(marker);
    return result;
  }
}

std::atomic<void (*)(void*)> g_glfw_swap{nullptr};
std::atomic<void (*)(void*, unsigned long)> g_glx_swap{nullptr};
std::atomic<unsigned (*)(void*, void*)> g_egl_swap{nullptr};
std::atomic<void (*)(void*)> g_sdl2_swap{nullptr};
std::atomic<void (*)()> g_sdl1_swap{nullptr};
}  // namespace

MEMFRAME_EXPORT void glfwSwapBuffers(void* window) { Present(g_glfw_swap, kMarkerGlfwSwapBuffers, window); }
MEMFRAME_EXPORT void glXSwapBuffers(void* display, unsigned long drawable) {
  Present(g_glx_swap, kMarkerGlxSwapBuffers, display, drawable);
}
MEMFRAME_EXPORT unsigned eglSwapBuffers(void* display, void* surface) {
  return Present(g_egl_swap, kMarkerEglSwapBuffers, display, surface);
}
MEMFRAME_EXPORT void SDL_GL_SwapWindow(void* window) { Present(g_sdl2_swap, kMarkerSdlGlSwapWindow, window); }
MEMFRAME_EXPORT void SDL_GL_SwapBuffers() { Present(g_sdl1_swap, kMarkerSdlGlSwapBuffers); }
