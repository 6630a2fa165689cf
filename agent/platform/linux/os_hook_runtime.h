// What hooks/tracked_call.h asks of the runtime, on Linux: hooks are
// interposed by the dynamic linker (LD_PRELOAD) or patched into import slots
// after an attach, and find the real functions lazily by symbol lookup, so a
// library that allocates before the agent is set up still gets its memory.
#pragma once

#include "hooks/real_functions.h"
#include "runtime/agent_runtime.h"

// The agent's exports are the functions marked so (its hooks, annotate.h's API).
#define MEMFRAME_EXPORT extern "C" __attribute__((visibility("default")))
