// The GL and Vulkan functions the agent hands out in place of the real ones,
// beside the presents (present_hooks.h): the calls that make, resize and
// delete GPU objects and the binds that name them (gl_object_hooks.cc,
// vk_object_hooks.cc), and the context calls that say which binding state a
// thread uses (gl_context_hooks.cc). Interposed and intercepted as the
// presents are.
#pragma once

#include <atomic>

#include "hooks/present_hooks.h"
#include "hooks/tracked_call.h"

namespace memframe::agent {

const InterceptedFunction* GlObjectFunctions(int* count);
const InterceptedFunction* GlContextFunctions(int* count);
// The Vulkan memory, buffer and image calls (vk_object_hooks.cc).
const InterceptedFunction* VkObjectFunctions(int* count);

// Every table of GPU hooks, beside the presents' (present_hooks.h): the
// lookups hand them out, and an attach patches their import slots.
using InterceptedTable = const InterceptedFunction* (*)(int* count);
inline constexpr InterceptedTable kGpuHookTables[] = {GlObjectFunctions, GlContextFunctions, VkObjectFunctions};

// The real function of hook `name`, whose cache is g_<name> (filled at the
// start, by an interception, or looked up here as the last resort).
template <typename Fn>
Fn RealGl(std::atomic<void*>& cache, const char* name) {
  return reinterpret_cast<Fn>(CachedNextSymbol(cache, name));
}
#define MEMFRAME_REAL_GL(name) ::memframe::agent::RealGl<decltype(&::name)>(g_##name, #name)

}  // namespace memframe::agent
