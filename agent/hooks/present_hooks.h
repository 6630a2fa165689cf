// The buffer swap / present entry points that end a frame, and the lookup
// functions (dlsym, glXGetProcAddress, ...) through which games fetch them.
// Each is interposed as a symbol; when a game fetches one by name instead,
// InterceptSymbol hands out the hook and keeps the real function for it.
#pragma once

#include <atomic>
#include <cstdint>

#include "memframe/frame_sources.h"

namespace memframe::agent {

// Marker ids of the entry points (FRAME_END.address; names in MarkerDefs),
// from the one table of frame sources (memframe/frame_sources.h).
using PresentMarker = wire::FixedMarker;
using enum wire::FixedMarker;
using wire::FixedMarkerName;

// The GetProcAddress family, through which a game may fetch a present (or a
// GPU call, gl_hooks.h) by name: each hands out the hook instead.
#define MEMFRAME_PRESENT_LOOKUPS(X) \
  X(glXGetProcAddress) X(glXGetProcAddressARB) X(eglGetProcAddress) X(SDL_GL_GetProcAddress) \
  X(vkGetInstanceProcAddr) X(vkGetDeviceProcAddr)

struct InterceptedFunction {
  const char* name;
  uint32_t marker;             // 0 for lookup functions (GetProcAddress family)
  void* hook;                  // the agent's replacement
  std::atomic<void*>* real;    // where the hook finds the real function
};

// Every function the agent hands out in place of the real one.
const InterceptedFunction* InterceptedFunctions(int* count);

// If `name` is intercepted and `real` is non-null, remembers `real` for the
// hook and returns the hook; otherwise returns `real` unchanged.
void* InterceptSymbol(const char* name, void* real);

// Where the real functions of the intercepted entries are looked up: after
// the agent when it is preloaded (interposition), in the global scope when
// it was loaded into a running process (RTLD_NEXT then sees only the agent's
// own dependencies).
enum class InterceptLookup { kAfterAgent, kGlobal };

// Looks up the real function of every intercepted entry not known yet.
// dlsym takes the loader's lock, allocates when it misses, and sets the
// calling thread's dlerror state, so this runs only where that is harmless:
// the agent's start (its constructor, or the attach thread). A hook then
// only reads what is known. What this cannot know yet is a library loaded
// later: one the game opens itself and looks its present up in (by dlsym
// or a GetProcAddress: intercepted, InterceptSymbol learns the real one),
// or, rarely, one opened RTLD_GLOBAL and then called by name, for which
// the hook looks it up itself (tracked_call.h).
void ResolveInterceptedFunctions(InterceptLookup scope);

}  // namespace memframe::agent
