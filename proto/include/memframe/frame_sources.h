// The present functions that end frames ("frame sources"): the one table the
// agents' hooks and marker ids, attach's import patcher, the CLI's
// --frame-source check and the docs test are all generated from. Header
// only and free of agent code, so the CLI and memframe.exe include it
// without linking an agent. A capture names its frame source by the
// marker's name (MarkerDefs); the ids are fixed on Linux, FRAME_END.address.
#pragma once

#include <cstdint>
#include <cstring>

// Linux presents, interposed as symbols (agent/hooks/present_hooks.cc):
// X(Enumerator, symbol, wire id, return type, (parameters), (arguments)).
// Wire ids are dense from 1, in this order (checked below): loops over the
// ids see every entry.
#define MEMFRAME_LINUX_PRESENTS(X)                                                                        \
  X(GlfwSwapBuffers, glfwSwapBuffers, 1, void, (void* window), (window))                                 \
  X(GlxSwapBuffers, glXSwapBuffers, 2, void, (void* display, unsigned long drawable), (display, drawable)) \
  X(EglSwapBuffers, eglSwapBuffers, 3, unsigned, (void* display, void* surface), (display, surface))      \
  X(SdlGlSwapWindow, SDL_GL_SwapWindow, 4, void, (void* window), (window))                               \
  X(SdlGlSwapBuffers, SDL_GL_SwapBuffers, 5, void, (), ())                                               \
  X(SdlRenderPresent, SDL_RenderPresent, 6, void, (void* renderer), (renderer))                          \
  X(SdlUpdateWindowSurface, SDL_UpdateWindowSurface, 7, int, (void* window), (window))                   \
  X(SdlFlip, SDL_Flip, 8, int, (void* screen), (screen))                                                 \
  X(SdlUpdateRect, SDL_UpdateRect, 9, void, (void* screen, int32_t x, int32_t y, uint32_t w, uint32_t h), \
    (screen, x, y, w, h))                                                                                \
  X(SdlUpdateRects, SDL_UpdateRects, 10, void, (void* screen, int count, void* rects), (screen, count, rects)) \
  X(VkQueuePresent, vkQueuePresentKHR, 11, int32_t, (void* queue, const void* present_info), (queue, present_info))

// Windows presents (agent/platform/windows): X(Enumerator, name). Their
// markers are interned by name (dynamic ids); the hooks' signatures take
// Windows types and live in windows_hooks.cc. Present and Present1 are one
// entry point: the analysis takes frames from one, and a game may present
// one swap chain through both.
#define MEMFRAME_WINDOWS_PRESENTS(X)     \
  X(SwapBuffers, "SwapBuffers")          \
  X(WglSwapBuffers, "wglSwapBuffers")    \
  X(WglSwapLayerBuffers, "wglSwapLayerBuffers") \
  X(VkQueuePresent, "vkQueuePresentKHR") \
  X(DxgiPresent, "IDXGISwapChain::Present")

namespace memframe::wire {

// The fixed marker ids: the Linux presents, then the two frame ends that are
// no present. Named markers (memframe_marker()) start at kFirstDynamicMarker.
enum FixedMarker : uint32_t {
#define MEMFRAME_X(Enumerator, symbol, id, ...) kMarker##Enumerator = id,
  MEMFRAME_LINUX_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
  kMarkerTimeSlice,    // fallback frames: no present seen for a while
  kMarkerAnnotation,   // the game called memframe_frame_mark()
  kFirstDynamicMarker,
};
inline constexpr uint32_t kFirstPresentMarker = 1;
inline constexpr uint32_t kPresentMarkerEnd = kMarkerTimeSlice;  // one past the last present

enum FramePlatform : uint8_t { kFrameLinux = 1, kFrameWindows = 2 };

struct FrameSource {
  const char* name;     // the marker's name in a capture; --frame-source takes it
  uint32_t wire_id;     // fixed marker id; 0 for an interned (Windows) one
  FramePlatform platform;
};

// Every present of every platform, Linux's first (in wire id order). One
// present on two platforms has a row for each.
inline constexpr FrameSource kFrameSources[] = {
#define MEMFRAME_X(Enumerator, symbol, id, ...) {#symbol, id, kFrameLinux},
    MEMFRAME_LINUX_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
#define MEMFRAME_X(Enumerator, name) {name, 0, kFrameWindows},
        MEMFRAME_WINDOWS_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
};

namespace frame_sources_detail {
constexpr bool LinuxIdsDense() {
  uint32_t next = kFirstPresentMarker;
  for (const FrameSource& s : kFrameSources)
    if (s.platform == kFrameLinux && s.wire_id != next++) return false;
  return next == kPresentMarkerEnd;
}
}  // namespace frame_sources_detail
static_assert(frame_sources_detail::LinuxIdsDense(),
              "MEMFRAME_LINUX_PRESENTS: wire ids must run 1, 2, ... in table order");

// The name of fixed marker `id` (a present, the time slices or the
// annotation), or null.
constexpr const char* FixedMarkerName(uint32_t id) {
  if (id == kMarkerTimeSlice) return "time slice";
  if (id == kMarkerAnnotation) return "memframe_frame_mark";
  for (const FrameSource& s : kFrameSources)
    if (s.platform == kFrameLinux && s.wire_id == id) return s.name;
  return nullptr;
}

// The row of the present `name` on `platform`, or null.
inline const FrameSource* FindFrameSource(const char* name, FramePlatform platform) {
  for (const FrameSource& s : kFrameSources)
    if (s.platform == platform && name && strcmp(s.name, name) == 0) return &s;
  return nullptr;
}

}  // namespace memframe::wire
