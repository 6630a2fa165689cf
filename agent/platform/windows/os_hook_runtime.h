// What hooks/tracked_call.h asks of the runtime, on Windows. Hooks are
// installed by patching import tables (iat_patch.h) only after the agent is
// set up, and each patched slot hands its hook the real function, so there
// is nothing to resolve lazily and no early start.
#pragma once

#include <atomic>

// A DLL's exports are the functions marked so (annotation_hooks.cc's API).
#define MEMFRAME_EXPORT extern "C" __declspec(dllexport)

namespace memframe::agent {

inline bool StartEarly() { return false; }
// No library runs before the agent is set up.
inline std::atomic<bool> g_agent_constructed{true};
inline bool ShouldRecordEarly(const void*) { return false; }
inline bool RealFunctionsResolved() { return true; }
inline void ResolveRealFunctions() {}
void* NextSymbol(const char* name);  // not on Windows: never defined

}  // namespace memframe::agent
